/* Fault-free copies between host addresses (see safe_memory.h). */
#include "shim.h"

#include <unistd.h>
#include <sys/uio.h>

/* process_vm_* return the bytes moved as an ssize_t: copy in 1 GiB steps so that a
   huge size can neither overflow it nor be taken for a partial copy. */
#define SG_SAFE_CHUNK ((size_t)1 << 30)

static int sg_vm_copy(void *dst, const void *src, size_t size) {
    while (size) {
        size_t n = size < SG_SAFE_CHUNK ? size : SG_SAFE_CHUNK;
        struct iovec local = {(void *)src, n}, remote = {dst, n};
        if (process_vm_writev(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)n) return -1;
        dst = (char *)dst + n;
        src = (const char *)src + n;
        size -= n;
    }
    return 0;
}

int sg_safe_copy(void *dst, const void *src, size_t size) {
    if (size == 0) return 0;
    if (!dst || !src) return -1;
    /* process_vm_writev reads `src` as a local buffer: an unreadable source also fails
       with EFAULT rather than faulting, so one call checks both sides. */
    return sg_vm_copy(dst, src, size);
}

int sg_readable(const void *address, size_t size) {
    char probe[256];
    const char *p = address;
    if (!address) return size == 0;
    /* One byte per page is enough: permissions are per page. */
    for (size_t off = 0; off < size; off += 4096) {
        struct iovec local = {probe, 1}, remote = {(void *)(p + off), 1};
        if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1) return 0;
    }
    if (size) {
        struct iovec local = {probe, 1}, remote = {(void *)(p + size - 1), 1};
        if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1) return 0;
    }
    return 1;
}

int sg_writable(void *address, size_t size) {
    char *p = address;
    if (!address) return size == 0;
    /* Rewrite one byte per page with its own value: writable pages accept it, and
       the value never changes (racing writers aside, which own the memory anyway). */
    for (size_t off = 0; off < size; off += 4096) {
        char byte;
        struct iovec probe = {&byte, 1}, remote = {p + off, 1};
        if (process_vm_readv(getpid(), &probe, 1, &remote, 1, 0) != 1) return 0;
        if (process_vm_writev(getpid(), &probe, 1, &remote, 1, 0) != 1) return 0;
    }
    if (size) {
        char byte;
        struct iovec probe = {&byte, 1}, remote = {p + size - 1, 1};
        if (process_vm_readv(getpid(), &probe, 1, &remote, 1, 0) != 1) return 0;
        if (process_vm_writev(getpid(), &probe, 1, &remote, 1, 0) != 1) return 0;
    }
    return 1;
}
