/* ROCr's virtual memory API and dma-buf export, as a client uses them:
   - "api": reserve (sizes and alignments at and one past their limits, an address asked
     for), physical handles from pools (ALLOC_MAX_SIZE at and one past, page multiples),
     map/unmap (neighbouring mappings at and one page past the next one's start),
     set/get access (at a mapping's end and one byte past), retain, properties, pointer info, every bad argument with
     ROCr's status;
   - "kernel": a real kernel reads and writes through a mapped range; the same range after
     unmap, and with access NONE, faults with a report; memory released while mapped stays
     until unmapped;
   - "share": a shareable handle (and a dma-buf of an allocation) imported in this process,
     then in a child process that maps it and computes on the parent's bytes.
   usage: vmem_api CODE_OBJECT CASE     (aql_kernels.cl for gfx1030)
          vmem_api CODE_OBJECT child FD (run by "share") */
#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aql_util.h"
#include "hsa_newest.h"

#define PAGE 4096ull
#define N 1024
#define MAPPED (64 * 1024)        /* bytes of each physical handle the kernels use */
#define OUT_OFFSET 8192

typedef struct __attribute__((packed)) {
    const float *a;
    float *out;
    float scale;
    uint32_t n;
} scale_add_args;

static hsa_amd_memory_pool_t group_pool, gpu_pool;

/* The GPU's LDS pool and its first global pool (its device memory). */
static hsa_status_t find_gpu_pools(hsa_amd_memory_pool_t pool, void *data) {
    (void)data;
    hsa_amd_segment_t segment;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    if (segment == HSA_AMD_SEGMENT_GROUP) group_pool = pool;
    if (segment == HSA_AMD_SEGMENT_GLOBAL && !gpu_pool.handle) gpu_pool = pool;
    return HSA_STATUS_SUCCESS;
}

static void grant(void *va, size_t size, hsa_agent_t agent, hsa_access_permission_t perms) {
    hsa_amd_memory_access_desc_t desc = {perms, agent};
    MUST(hsa_amd_vmem_set_access(va, size, &desc, 1));
}

/* Runs scale_add over N floats at `a` into `out` on a fresh queue with an error callback:
   1 when it completed, 0 when the queue reported an error (aql_errors_seen counts it). */
static int run_scale_add(aql_env_t *env, const float *a, float *out) {
    scale_add_args *args = aql_alloc(env, sizeof *args);
    args->a = a;
    args->out = out;
    args->scale = 2.0f;
    args->n = N;
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env->gpu, 64, HSA_QUEUE_TYPE_MULTI, aql_record_error, NULL, UINT32_MAX, UINT32_MAX,
                          &queue));
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    int before = aql_errors_seen;
    aql_dispatch(queue, aql_kernel(env, "scale_add"), args, N, 64, done);
    int completed = 0;
    for (int i = 0; i < 600 && !completed && aql_errors_seen == before; i++) completed = aql_wait_zero(done, 0.1);
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_amd_memory_pool_free(args));
    return completed;
}

static int results_right(const float *a, const float *out) {
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += out[i] != a[i] * 2.0f + (float)i;
    return wrong == 0;
}

/* ---- api ---- */

static void reserve_and_free(void) {
    void *va = NULL;
    CHECK_STATUS(hsa_amd_vmem_address_reserve(&va, 0, 0, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_address_reserve(NULL, PAGE, 0, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The thunk takes whole pages only, and alignments that are powers of two of a page or more. */
    CHECK_STATUS(hsa_amd_vmem_address_reserve(&va, PAGE + 1, 0, 0), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_amd_vmem_address_reserve_align(&va, PAGE, 0, PAGE / 2, 0), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_amd_vmem_address_reserve_align(&va, PAGE, 0, 3 * PAGE, 0), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_amd_vmem_address_reserve(&va, 1ull << 60, 0, 0), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_OK(hsa_amd_vmem_address_reserve_align(&va, PAGE, 0, PAGE, 0));
    CHECK_EQ_U64((uintptr_t)va % PAGE, 0);
    void *big = NULL;
    CHECK_OK(hsa_amd_vmem_address_reserve_align(&big, PAGE, 0, 1ull << 30, 0));
    CHECK_EQ_U64((uintptr_t)big % (1ull << 30), 0);
    CHECK(big != NULL && big != va);

    /* free: exactly the reserved size, of a reserved start. */
    CHECK_STATUS(hsa_amd_vmem_address_free(NULL, PAGE), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_address_free(va, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_address_free(va, PAGE + 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_address_free((char *)va + PAGE, PAGE), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_address_free(va, PAGE));
    CHECK_STATUS(hsa_amd_vmem_address_free(va, PAGE), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_address_free(big, PAGE));

    /* Address space is not memory: a range four times the device memory is reserved. */
    size_t device_bytes = 0;
    MUST(hsa_amd_memory_pool_get_info(gpu_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &device_bytes));
    void *wide = NULL;
    CHECK_OK(hsa_amd_vmem_address_reserve(&wide, 4 * device_bytes, 0, 0));
    CHECK_OK(hsa_amd_vmem_address_free(wide, 4 * device_bytes));

    /* An address asked for is given when it is free. */
    void *again = NULL;
    CHECK_OK(hsa_amd_vmem_address_reserve(&again, 4 * PAGE, (uint64_t)(uintptr_t)va, 0));
    CHECK(again == va);
    void *elsewhere = NULL;
    CHECK_OK(hsa_amd_vmem_address_reserve(&elsewhere, PAGE, (uint64_t)(uintptr_t)va, 0));
    CHECK(elsewhere != va && elsewhere != NULL);
    CHECK_OK(hsa_amd_vmem_address_free(again, 4 * PAGE));
    CHECK_OK(hsa_amd_vmem_address_free(elsewhere, PAGE));
}

static void handles(aql_env_t *env) {
    hsa_amd_vmem_alloc_handle_t h = {0};
    hsa_amd_memory_pool_t forged = {0x1234};
    CHECK_STATUS(hsa_amd_vmem_handle_create(env->device_pool, 0, MEMORY_TYPE_NONE, 0, &h),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_handle_create(env->device_pool, PAGE, (hsa_amd_memory_type_t)2, 0, &h),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_handle_create(forged, PAGE, MEMORY_TYPE_NONE, 0, &h), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_handle_create(env->device_pool, PAGE + 1, MEMORY_TYPE_NONE, 0, &h),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_handle_create(group_pool, PAGE, MEMORY_TYPE_NONE, 0, &h),
                 HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_vmem_handle_create(env->device_pool, PAGE, MEMORY_TYPE_NONE, 0, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* The pool's ALLOC_MAX_SIZE is the largest handle, as the largest allocation. */
    size_t max_size = 0;
    MUST(hsa_amd_memory_pool_get_info(env->device_pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &max_size));
    CHECK_STATUS(hsa_amd_vmem_handle_create(env->device_pool, max_size + PAGE, MEMORY_TYPE_NONE, 0, &h),
                 HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_handle_create(env->device_pool, max_size, MEMORY_TYPE_NONE, 0, &h));
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    /* The pool's RUNTIME_ALLOC_GRANULE is the unit of handle sizes. */
    size_t granule = 0;
    MUST(hsa_amd_memory_pool_get_info(env->device_pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule));
    CHECK_EQ_U64(granule, PAGE);
    CHECK_OK(hsa_amd_vmem_handle_create(env->device_pool, granule, MEMORY_TYPE_NONE, 0, &h));
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    CHECK_STATUS(hsa_amd_vmem_handle_release(h), HSA_STATUS_ERROR_INVALID_ALLOCATION);

    /* Properties: the pool and the type it was made with. */
    CHECK_OK(hsa_amd_vmem_handle_create(env->device_pool, PAGE, MEMORY_TYPE_PINNED, 0, &h));
    hsa_amd_memory_pool_t pool = {0};
    hsa_amd_memory_type_t type = MEMORY_TYPE_NONE;
    CHECK_OK(hsa_amd_vmem_get_alloc_properties_from_handle(h, &pool, &type));
    CHECK_EQ_U64(pool.handle, env->device_pool.handle);
    CHECK_EQ_U64(type, MEMORY_TYPE_PINNED);
    CHECK_STATUS(hsa_amd_vmem_get_alloc_properties_from_handle(h, NULL, &type), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    CHECK_STATUS(hsa_amd_vmem_get_alloc_properties_from_handle(h, &pool, &type), HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

static void mapping_and_access(aql_env_t *env) {
    void *va = NULL;
    MUST(hsa_amd_vmem_address_reserve(&va, 4 * PAGE, 0, 0));
    hsa_amd_vmem_alloc_handle_t h, cpu_h, forged = {0x5600000000000000ull};
    MUST(hsa_amd_vmem_handle_create(env->device_pool, 2 * PAGE, MEMORY_TYPE_NONE, 0, &h));
    MUST(hsa_amd_vmem_handle_create(env->kernarg_pool, PAGE, MEMORY_TYPE_NONE, 0, &cpu_h));
    char *base = va;

    CHECK_STATUS(hsa_amd_vmem_map(NULL, PAGE, 0, h, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_map(va, 0, 0, h, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The mapping must end inside the reserved range: at its end, and one page past. */
    CHECK_STATUS(hsa_amd_vmem_map(base + 3 * PAGE, 2 * PAGE, 0, h, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_map(va, 2 * PAGE, 0, forged, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_map(va, PAGE, 0, cpu_h, 0), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_vmem_map(va, 3 * PAGE, 0, h, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);  /* > handle */
    CHECK_OK(hsa_amd_vmem_map(base + 2 * PAGE, 2 * PAGE, 0, h, 0));                           /* at the end */
    CHECK_STATUS(hsa_amd_vmem_map(base + PAGE, 2 * PAGE, 0, h, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT); /* overlap */
    CHECK_STATUS(hsa_amd_vmem_address_free(va, 4 * PAGE), HSA_STATUS_ERROR_RESOURCE_FREE);

    /* Access: NONE until set; agents checked first, then the range. */
    hsa_access_permission_t perms = HSA_ACCESS_PERMISSION_RW;
    CHECK_OK(hsa_amd_vmem_get_access(base + 2 * PAGE, &perms, env->gpu));
    CHECK_EQ_U64(perms, HSA_ACCESS_PERMISSION_NONE);
    CHECK_STATUS(hsa_amd_vmem_get_access(base + 2 * PAGE, &perms, env->cpu), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_vmem_get_access(va, &perms, env->gpu), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_vmem_get_access(base + 2 * PAGE, NULL, env->gpu), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_amd_memory_access_desc_t desc = {HSA_ACCESS_PERMISSION_RW, env->gpu};
    hsa_amd_memory_access_desc_t bad = {HSA_ACCESS_PERMISSION_RW, {0x77}};
    CHECK_STATUS(hsa_amd_vmem_set_access(base + 2 * PAGE, 2 * PAGE, NULL, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_set_access(base + 2 * PAGE, 2 * PAGE, &desc, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_set_access(base + 2 * PAGE, 2 * PAGE, &bad, 1), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_vmem_set_access(base + 2 * PAGE, 3 * PAGE, &desc, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_set_access(va, PAGE, &desc, 1), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_set_access(base + 2 * PAGE, 2 * PAGE, &desc, 1));
    /* SoftGPU reads at most 4096 descriptors (more cannot name distinct agents). */
    hsa_amd_memory_access_desc_t *many = calloc(4097, sizeof *many);
    for (int i = 0; i < 4097; i++) many[i] = desc;
    CHECK_OK(hsa_amd_vmem_set_access(base + 2 * PAGE, 2 * PAGE, many, 4096));
    CHECK_STATUS(hsa_amd_vmem_set_access(base + 2 * PAGE, 2 * PAGE, many, 4097), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    free(many);
    CHECK_OK(hsa_amd_vmem_get_access(base + 3 * PAGE, &perms, env->gpu));
    CHECK_EQ_U64(perms, HSA_ACCESS_PERMISSION_RW);
    grant(base + 2 * PAGE, 2 * PAGE, env->gpu, HSA_ACCESS_PERMISSION_RO);
    CHECK_OK(hsa_amd_vmem_get_access(base + 2 * PAGE, &perms, env->gpu));
    CHECK_EQ_U64(perms, HSA_ACCESS_PERMISSION_RO);

    /* Retain: the handle mapped at exactly that address, one more reference. */
    hsa_amd_vmem_alloc_handle_t retained = {0};
    CHECK_STATUS(hsa_amd_vmem_retain_alloc_handle(&retained, base + 3 * PAGE), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_vmem_retain_alloc_handle(&retained, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_vmem_retain_alloc_handle(&retained, base + 2 * PAGE));
    CHECK_EQ_U64(retained.handle, h.handle);
    CHECK_OK(hsa_amd_vmem_handle_release(retained));

    /* Pointer info: ROCr's thunk knows a reserved range as address space without memory. */
    hsa_amd_pointer_info_t info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CHECK_OK(hsa_amd_pointer_info(base + 2 * PAGE + 100, &info, NULL, NULL, NULL));
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_RESERVED_ADDR);
    CHECK(info.agentBaseAddress == va);
    CHECK_EQ_U64(info.sizeInBytes, 4 * PAGE);
    void *unregistered = NULL;
    MUST(hsa_amd_vmem_address_reserve(&unregistered, PAGE, 0, HSA_AMD_VMEM_ADDRESS_NO_REGISTER));
    CHECK_OK(hsa_amd_pointer_info(unregistered, &info, NULL, NULL, NULL));
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
    CHECK_OK(hsa_amd_vmem_address_free(unregistered, PAGE));

    /* Unmap: exactly whole mappings. */
    CHECK_STATUS(hsa_amd_vmem_unmap(NULL, PAGE), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_unmap(base + 2 * PAGE, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_unmap(base + 2 * PAGE, PAGE), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_vmem_unmap(base + 2 * PAGE, 3 * PAGE), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_vmem_unmap(va, 2 * PAGE), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_unmap(base + 2 * PAGE, 2 * PAGE));
    CHECK_STATUS(hsa_amd_vmem_get_access(base + 2 * PAGE, &perms, env->gpu), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    CHECK_OK(hsa_amd_vmem_handle_release(cpu_h));
    CHECK_OK(hsa_amd_vmem_address_free(va, 4 * PAGE));

    bool supported = false;
    CHECK_OK(hsa_system_get_info(HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED, &supported));
    CHECK(supported);
}

static int open_descriptors(void) {
    int count = 0;
    for (int fd = 0; fd < 4096; fd++) count += fcntl(fd, F_GETFD) != -1;
    return count;
}

/* hsa_shut_down with a mapping, a reservation and handles alive: their descriptors close,
   and after the next hsa_init their handle and address are stale. */
/* Neighbouring mappings: one may end exactly where the next starts (one page further is an
   overlap); ROCr's get_access takes the mapping starting at or below the address, up to and
   including its end, so the byte just past the last mapping still answers its access. */
static void neighbouring_mappings(aql_env_t *env) {
    void *va = NULL;
    MUST(hsa_amd_vmem_address_reserve(&va, 4 * PAGE, 0, 0));
    hsa_amd_vmem_alloc_handle_t first, second, wide;
    MUST(hsa_amd_vmem_handle_create(env->device_pool, PAGE, MEMORY_TYPE_NONE, 0, &first));
    MUST(hsa_amd_vmem_handle_create(env->device_pool, PAGE, MEMORY_TYPE_NONE, 0, &second));
    MUST(hsa_amd_vmem_handle_create(env->device_pool, 2 * PAGE, MEMORY_TYPE_NONE, 0, &wide));
    char *base = va;

    CHECK_OK(hsa_amd_vmem_map(base + 2 * PAGE, PAGE, 0, second, 0));
    CHECK_STATUS(hsa_amd_vmem_map(base + PAGE, 2 * PAGE, 0, wide, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_vmem_map(base + PAGE, PAGE, 0, first, 0));             /* ends at second's start */
    grant(base + PAGE, PAGE, env->gpu, HSA_ACCESS_PERMISSION_RW);
    grant(base + 2 * PAGE, PAGE, env->gpu, HSA_ACCESS_PERMISSION_RO);

    hsa_access_permission_t perms = HSA_ACCESS_PERMISSION_NONE;
    CHECK_STATUS(hsa_amd_vmem_get_access(base + PAGE - 1, &perms, env->gpu), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_get_access(base + 2 * PAGE - 1, &perms, env->gpu));
    CHECK_EQ_U64(perms, HSA_ACCESS_PERMISSION_RW);
    CHECK_OK(hsa_amd_vmem_get_access(base + 2 * PAGE, &perms, env->gpu));
    CHECK_EQ_U64(perms, HSA_ACCESS_PERMISSION_RO);
    perms = HSA_ACCESS_PERMISSION_NONE;
    CHECK_OK(hsa_amd_vmem_get_access(base + 3 * PAGE, &perms, env->gpu));    /* second's end */
    CHECK_EQ_U64(perms, HSA_ACCESS_PERMISSION_RO);
    CHECK_STATUS(hsa_amd_vmem_get_access(base + 3 * PAGE + 1, &perms, env->gpu), HSA_STATUS_ERROR_INVALID_ALLOCATION);

    CHECK_OK(hsa_amd_vmem_unmap(base + PAGE, 2 * PAGE));                    /* both, contiguous */
    CHECK_OK(hsa_amd_vmem_handle_release(first));
    CHECK_OK(hsa_amd_vmem_handle_release(second));
    CHECK_OK(hsa_amd_vmem_handle_release(wide));
    CHECK_OK(hsa_amd_vmem_address_free(va, 4 * PAGE));
}

static void shut_down_with_live_mappings(aql_env_t *env) {
    int before = open_descriptors();
    void *va = NULL;
    hsa_amd_vmem_alloc_handle_t h, unmapped;
    MUST(hsa_amd_vmem_address_reserve(&va, 2 * PAGE, 0, 0));
    MUST(hsa_amd_vmem_handle_create(env->device_pool, PAGE, MEMORY_TYPE_NONE, 0, &h));
    MUST(hsa_amd_vmem_handle_create(env->device_pool, PAGE, MEMORY_TYPE_NONE, 0, &unmapped));
    MUST(hsa_amd_vmem_map(va, PAGE, 0, h, 0));
    grant(va, PAGE, env->gpu, HSA_ACCESS_PERMISSION_RW);
    CHECK(open_descriptors() > before);
    MUST(hsa_shut_down());
    CHECK_EQ_U64(open_descriptors(), before);
    MUST(hsa_init());
    CHECK_STATUS(hsa_amd_vmem_handle_release(h), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_vmem_handle_release(unmapped), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_vmem_address_free(va, 2 * PAGE), HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

/* ---- kernel ---- */

static void kernels_through_mappings(aql_env_t *env) {
    void *va = NULL;
    MUST(hsa_amd_vmem_address_reserve(&va, 2 * MAPPED, 0, 0));
    hsa_amd_vmem_alloc_handle_t h;
    MUST(hsa_amd_vmem_handle_create(env->device_pool, MAPPED, MEMORY_TYPE_NONE, 0, &h));
    MUST(hsa_amd_vmem_map(va, MAPPED, 0, h, 0));
    printf("reserved %p %u\n", va, 2 * MAPPED);     /* where the fault reports must point */
    float *a = va, *out = (float *)((char *)va + OUT_OFFSET);
    for (int i = 0; i < N; i++) a[i] = (float)i * 0.5f;

    /* Mapped but no access yet: the kernel faults. */
    aql_errors_seen = 0;
    CHECK(!run_scale_add(env, a, out));
    CHECK_EQ_U64(aql_errors_seen, 1);
    CHECK_EQ_U64(aql_error_status, HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);

    grant(va, MAPPED, env->gpu, HSA_ACCESS_PERMISSION_RW);
    CHECK(run_scale_add(env, a, out));
    CHECK(results_right(a, out));

    /* Access NONE again: the kernel faults. */
    aql_errors_seen = 0;
    grant(va, MAPPED, env->gpu, HSA_ACCESS_PERMISSION_NONE);
    CHECK(!run_scale_add(env, a, out));
    CHECK_EQ_U64(aql_errors_seen, 1);
    grant(va, MAPPED, env->gpu, HSA_ACCESS_PERMISSION_RW);

    /* hsa_amd_agents_allow_access on a mapped address grants read-write, as set_access does;
       on reserved space that maps nothing it is INVALID_ALLOCATION. */
    grant(va, MAPPED, env->gpu, HSA_ACCESS_PERMISSION_NONE);
    CHECK_OK(hsa_amd_agents_allow_access(1, &env->gpu, NULL, (char *)va + PAGE));
    hsa_access_permission_t perms = HSA_ACCESS_PERMISSION_NONE;
    CHECK_OK(hsa_amd_vmem_get_access(va, &perms, env->gpu));
    CHECK_EQ_U64(perms, HSA_ACCESS_PERMISSION_RW);
    CHECK_STATUS(hsa_amd_agents_allow_access(1, &env->gpu, NULL, (char *)va + MAPPED),
                 HSA_STATUS_ERROR_INVALID_ALLOCATION);
    memset(out, 0, N * sizeof(float));
    CHECK(run_scale_add(env, a, out));
    CHECK(results_right(a, out));

    /* Released while mapped: the memory stays until the unmap. */
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    memset(out, 0, N * sizeof(float));
    CHECK(run_scale_add(env, a, out));
    CHECK(results_right(a, out));

    /* The same physical memory mapped again elsewhere shows the same bytes. */
    hsa_amd_vmem_alloc_handle_t again;
    CHECK_OK(hsa_amd_vmem_retain_alloc_handle(&again, va));
    char *second = (char *)va + MAPPED;
    CHECK_OK(hsa_amd_vmem_map(second, MAPPED, 0, again, 0));
    CHECK(memcmp(second, va, MAPPED) == 0);
    ((uint32_t *)second)[5] = 0xC0FFEE;
    CHECK_EQ_U64(((uint32_t *)va)[5], 0xC0FFEE);
    CHECK_OK(hsa_amd_vmem_unmap(second, MAPPED));
    CHECK_OK(hsa_amd_vmem_handle_release(again));

    /* Copies reach mapped memory as kernels do: hsa_memory_copy and an asynchronous copy. */
    uint32_t *source = aql_alloc(env, PAGE);
    for (int i = 0; i < 1024; i++) source[i] = 0xA5000000u + i;
    CHECK_OK(hsa_memory_copy(va, source, PAGE));
    CHECK(memcmp(va, source, PAGE) == 0);
    hsa_signal_t copied;
    MUST(hsa_signal_create(1, 0, NULL, &copied));
    CHECK_OK(hsa_amd_memory_async_copy((char *)va + PAGE, env->gpu, source, env->cpu, PAGE, 0, NULL, copied));
    CHECK(aql_wait_zero(copied, 60));
    CHECK(memcmp((char *)va + PAGE, source, PAGE) == 0);
    MUST(hsa_signal_destroy(copied));
    MUST(hsa_amd_memory_pool_free(source));

    /* Unmapped: the kernel faults with the usual report. */
    CHECK_OK(hsa_amd_vmem_unmap(va, MAPPED));
    aql_errors_seen = 0;
    CHECK(!run_scale_add(env, a, out));
    CHECK_EQ_U64(aql_errors_seen, 1);
    CHECK_EQ_U64(aql_error_status, HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
    /* The handle went with its last mapping. */
    CHECK_STATUS(hsa_amd_vmem_handle_release(h), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_vmem_address_free(va, 2 * MAPPED));
}

/* ---- share ---- */

static void dmabuf_export(aql_env_t *env) {
    char *device = NULL, *system = NULL;
    MUST(hsa_amd_memory_pool_allocate(env->device_pool, 4 * PAGE, 0, (void **)&device));
    MUST(hsa_amd_memory_pool_allocate(env->kernarg_pool, PAGE, 0, (void **)&system));
    int fd = -7;
    uint64_t offset = 7;
    CHECK_STATUS(hsa_amd_portable_export_dmabuf(NULL, PAGE, &fd, &offset), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_portable_export_dmabuf(device, PAGE, NULL, &offset), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_portable_export_dmabuf(device, PAGE, &fd, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_portable_export_dmabuf(device, 0, &fd, &offset), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The range must lie in one allocation: up to its end, not one byte past. */
    CHECK_STATUS(hsa_amd_portable_export_dmabuf(device + PAGE, 3 * PAGE + 1, &fd, &offset),
                 HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_portable_export_dmabuf(system, PAGE, &fd, &offset), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_EQ_U64(fd, (uint64_t)-7);
    CHECK_EQ_U64(offset, 7);
    memset(device, 0x5A, 4 * PAGE);
    CHECK_OK(hsa_amd_portable_export_dmabuf_v2(device + PAGE, 3 * PAGE, &fd, &offset,
                                               HSA_AMD_DMABUF_MAPPING_TYPE_PCIE));
    CHECK(fd >= 0);
    CHECK_EQ_U64(offset, PAGE);

    /* The descriptor imports as physical memory showing the allocation's bytes. */
    hsa_amd_vmem_alloc_handle_t h;
    CHECK_OK(hsa_amd_vmem_import_shareable_handle(fd, &h));
    void *va = NULL;
    MUST(hsa_amd_vmem_address_reserve(&va, 4 * PAGE, 0, 0));
    CHECK_OK(hsa_amd_vmem_map(va, 4 * PAGE, 0, h, 0));
    CHECK(memcmp(va, device, 4 * PAGE) == 0);
    device[3] = 0x11;
    CHECK_EQ_U64(((char *)va)[3], 0x11);
    CHECK_OK(hsa_amd_portable_close_dmabuf(fd));
    CHECK_STATUS(hsa_amd_portable_close_dmabuf(fd), HSA_STATUS_ERROR_RESOURCE_FREE);
    CHECK_OK(hsa_amd_vmem_unmap(va, 4 * PAGE));
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    CHECK_OK(hsa_amd_vmem_address_free(va, 4 * PAGE));
    MUST(hsa_amd_memory_pool_free(device));
    MUST(hsa_amd_memory_pool_free(system));
}

static int child(aql_env_t *env, int fd) {
    hsa_amd_vmem_alloc_handle_t h;
    CHECK_OK(hsa_amd_vmem_import_shareable_handle(fd, &h));
    hsa_amd_memory_pool_t pool = {0};
    hsa_amd_memory_type_t type;
    CHECK_OK(hsa_amd_vmem_get_alloc_properties_from_handle(h, &pool, &type));
    CHECK(pool.handle != 0);
    void *va = NULL;
    MUST(hsa_amd_vmem_address_reserve(&va, MAPPED, 0, 0));
    CHECK_OK(hsa_amd_vmem_map(va, MAPPED, 0, h, 0));
    grant(va, MAPPED, env->gpu, HSA_ACCESS_PERMISSION_RW);
    float *a = va;
    CHECK(a[N - 1] == (float)(N - 1) * 0.25f);                    /* the parent's bytes */
    CHECK(run_scale_add(env, a, (float *)((char *)va + OUT_OFFSET)));
    ((uint32_t *)va)[MAPPED / 4 - 1] = 0xFEED;                    /* written by this CPU */
    CHECK_OK(hsa_amd_vmem_unmap(va, MAPPED));
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    CHECK_OK(hsa_amd_vmem_address_free(va, MAPPED));
    close(fd);
    return check_report();
}

static void share_with_a_child(aql_env_t *env, const char *self, const char *kernels) {
    hsa_amd_vmem_alloc_handle_t h, forged = {0x5600000000000000ull};
    MUST(hsa_amd_vmem_handle_create(env->device_pool, MAPPED, MEMORY_TYPE_NONE, 0, &h));
    void *va = NULL;
    MUST(hsa_amd_vmem_address_reserve(&va, MAPPED, 0, 0));
    MUST(hsa_amd_vmem_map(va, MAPPED, 0, h, 0));
    grant(va, MAPPED, env->cpu, HSA_ACCESS_PERMISSION_RW);
    float *a = va;
    for (int i = 0; i < N; i++) a[i] = (float)i * 0.25f;

    int fd = 0;
    CHECK_STATUS(hsa_amd_vmem_export_shareable_handle(&fd, forged, 0), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_EQ_U64(fd, (uint64_t)-1);
    CHECK_STATUS(hsa_amd_vmem_export_shareable_handle(NULL, h, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_vmem_export_shareable_handle(&fd, h, 0));
    CHECK(fd >= 0);

    /* Imported here, it is the handle this process has, with one more reference. */
    hsa_amd_vmem_alloc_handle_t same;
    CHECK_OK(hsa_amd_vmem_import_shareable_handle(fd, &same));
    CHECK_EQ_U64(same.handle, h.handle);
    CHECK_OK(hsa_amd_vmem_handle_release(same));
    CHECK_STATUS(hsa_amd_vmem_import_shareable_handle(-1, &same), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_vmem_import_shareable_handle(fd, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    int null_fd = open("/dev/null", O_RDONLY);
    CHECK_STATUS(hsa_amd_vmem_import_shareable_handle(null_fd, &same), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    close(null_fd);

    /* A dma-buf descriptor is close-on-exec; this client hands it to its child on purpose. */
    fcntl(fd, F_SETFD, 0);
    char fd_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", fd);
    char *argv[] = {(char *)self, (char *)kernels, "child", fd_text, NULL};
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execv(self, argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(results_right(a, (float *)((char *)va + OUT_OFFSET)));
    CHECK_EQ_U64(((uint32_t *)va)[MAPPED / 4 - 1], 0xFEED);
    CHECK_OK(hsa_amd_portable_close_dmabuf(fd));
    CHECK_OK(hsa_amd_vmem_unmap(va, MAPPED));
    CHECK_OK(hsa_amd_vmem_handle_release(h));
    CHECK_OK(hsa_amd_vmem_address_free(va, MAPPED));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        printf("usage: vmem_api CODE_OBJECT api|kernel|share\n");
        return 2;
    }
    aql_env_t env;
    aql_setup(&env, argv[1]);
    MUST(hsa_amd_agent_iterate_memory_pools(env.gpu, find_gpu_pools, NULL));
    env.device_pool = gpu_pool;
    if (!strcmp(argv[2], "child") && argc == 4) {
        int status = child(&env, atoi(argv[3]));
        MUST(hsa_shut_down());
        return status;
    }
    if (!strcmp(argv[2], "api")) {
        reserve_and_free();
        handles(&env);
        mapping_and_access(&env);
        neighbouring_mappings(&env);
        shut_down_with_live_mappings(&env);
    } else if (!strcmp(argv[2], "kernel")) {
        kernels_through_mappings(&env);
    } else if (!strcmp(argv[2], "share")) {
        dmabuf_export(&env);
        share_with_a_child(&env, argv[0], argv[1]);
    } else {
        printf("FAIL unknown case %s\n", argv[2]);
        return 2;
    }
    MUST(hsa_shut_down());
    return check_report();
}
