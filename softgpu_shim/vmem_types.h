/* Types of ROCr's virtual memory API (hsa_ext_amd.h, AMD interface 1.6 and later) that the
   5.2.3 headers the library is compiled against lack: read by cffi's cdef (preprocessor
   lines dropped) and, behind the version guard, by the C compiler. Once the ABI types are
   generated from headers of interface 1.6 or later, the guard keeps these out of C. */
#if HSA_AMD_INTERFACE_VERSION_MAJOR == 1 && HSA_AMD_INTERFACE_VERSION_MINOR < 6
typedef struct hsa_amd_vmem_alloc_handle_s {
    uint64_t handle;
} hsa_amd_vmem_alloc_handle_t;
typedef enum {
    MEMORY_TYPE_NONE,
    MEMORY_TYPE_PINNED,
} hsa_amd_memory_type_t;
typedef struct hsa_amd_memory_access_desc_s {
    hsa_access_permission_t permissions;
    hsa_agent_t agent_handle;
} hsa_amd_memory_access_desc_t;
#endif
