/* Declarations of the newest ROCr's hsa_ext_amd.h (AMD interface 1.11) that the 5.2.3
   headers in /usr/include/hsa lack: the virtual memory API and dma-buf export. The ABI facts
   (prototypes, types, enumerators with their values) as our generated headers state them
   (softgpu_shim/include/hsa, ci/gen/vendor_headers.py), in pycparser's spelling; with headers
   of interface 1.6 or later it declares nothing. */
#ifndef SOFTGPU_TEST_HSA_NEWEST_H
#define SOFTGPU_TEST_HSA_NEWEST_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#if HSA_AMD_INTERFACE_VERSION_MAJOR == 1 && HSA_AMD_INTERFACE_VERSION_MINOR < 6
#define HSA_ACCESS_PERMISSION_NONE ((hsa_access_permission_t)0)
#define HSA_EXT_POINTER_TYPE_RESERVED_ADDR ((hsa_amd_pointer_type_t)5)
#define HSA_AMD_SYSTEM_INFO_DMABUF_SUPPORTED ((hsa_system_info_t)0x204)
#define HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED ((hsa_system_info_t)0x205)

typedef enum hsa_amd_dma_buf_mapping_type_s
{
  HSA_AMD_DMABUF_MAPPING_TYPE_NONE = 0,
  HSA_AMD_DMABUF_MAPPING_TYPE_PCIE = 1
} hsa_amd_dma_buf_mapping_type_t;
typedef enum hsa_amd_vmem_address_reserve_flag_s
{
  HSA_AMD_VMEM_ADDRESS_NO_REGISTER = 1UL << 0
} hsa_amd_vmem_address_reserve_flag_t;
typedef struct hsa_amd_vmem_alloc_handle_s
{
  uint64_t handle;
} hsa_amd_vmem_alloc_handle_t;
typedef enum 
{
  MEMORY_TYPE_NONE,
  MEMORY_TYPE_PINNED
} hsa_amd_memory_type_t;
typedef struct hsa_amd_memory_access_desc_s
{
  hsa_access_permission_t permissions;
  hsa_agent_t agent_handle;
} hsa_amd_memory_access_desc_t;
hsa_status_t hsa_amd_portable_export_dmabuf(const void *ptr, size_t size, int *dmabuf, uint64_t *offset);
hsa_status_t hsa_amd_portable_export_dmabuf_v2(const void *ptr, size_t size, int *dmabuf, uint64_t *offset, uint64_t flags);
hsa_status_t hsa_amd_portable_close_dmabuf(int dmabuf);
hsa_status_t hsa_amd_vmem_address_reserve(void **va, size_t size, uint64_t address, uint64_t flags);
hsa_status_t hsa_amd_vmem_address_reserve_align(void **va, size_t size, uint64_t address, uint64_t alignment, uint64_t flags);
hsa_status_t hsa_amd_vmem_address_free(void *va, size_t size);
hsa_status_t hsa_amd_vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size, hsa_amd_memory_type_t type, uint64_t flags, hsa_amd_vmem_alloc_handle_t *memory_handle);
hsa_status_t hsa_amd_vmem_handle_release(hsa_amd_vmem_alloc_handle_t memory_handle);
hsa_status_t hsa_amd_vmem_map(void *va, size_t size, size_t in_offset, hsa_amd_vmem_alloc_handle_t memory_handle, uint64_t flags);
hsa_status_t hsa_amd_vmem_unmap(void *va, size_t size);
hsa_status_t hsa_amd_vmem_set_access(void *va, size_t size, const hsa_amd_memory_access_desc_t *desc, size_t desc_cnt);
hsa_status_t hsa_amd_vmem_get_access(void *va, hsa_access_permission_t *perms, hsa_agent_t agent_handle);
hsa_status_t hsa_amd_vmem_export_shareable_handle(int *dmabuf_fd, hsa_amd_vmem_alloc_handle_t handle, uint64_t flags);
hsa_status_t hsa_amd_vmem_import_shareable_handle(int dmabuf_fd, hsa_amd_vmem_alloc_handle_t *handle);
hsa_status_t hsa_amd_vmem_retain_alloc_handle(hsa_amd_vmem_alloc_handle_t *memory_handle, void *addr);
hsa_status_t hsa_amd_vmem_get_alloc_properties_from_handle(hsa_amd_vmem_alloc_handle_t memory_handle, hsa_amd_memory_pool_t *pool, hsa_amd_memory_type_t *type);
#endif
#endif
