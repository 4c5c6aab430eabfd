/* Copies that report a bad address instead of crashing (cdef'd by build_shim.py).

   Host pointers handed to SoftGPU (out-pointers, copy sources and destinations) cannot
   be trusted: a fuzzer passes dangling and forged ones. These copies go through
   process_vm_readv/writev on this very process, which fail with EFAULT where a plain
   memcpy would take SIGSEGV. Return 0 on success, -1 if any byte was inaccessible. */
int sg_safe_copy(void *dst, const void *src, size_t size);
int sg_readable(const void *address, size_t size);
int sg_writable(void *address, size_t size);
