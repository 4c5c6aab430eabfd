/* IPC memory and signal handles within one process: ROCr's rules for creating them, an
   attach that maps the memory again at a new address (as KFD imports do), detach, and
   the handles that must be refused: forged, garbled, freed, of a reused descriptor, of
   another session. (ipc_processes.c shares them between processes.) */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <string.h>

#include "check.h"

static hsa_amd_memory_pool_t device_pool;
static hsa_agent_t cpu, gpu;

static hsa_status_t pick_pool(hsa_amd_memory_pool_t pool, void *data) {
    (void)data;
    hsa_amd_segment_t segment;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
    if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    device_pool = pool;
    return HSA_STATUS_INFO_BREAK;
}

static void setup(void) {
    MUST(hsa_init());
    find_cpu_gpu(&cpu, &gpu);
    hsa_amd_agent_iterate_memory_pools(gpu, pick_pool, NULL);
}

static void create_rules(char *ptr) {
    hsa_amd_ipc_memory_t handle;
    static char host[4096];
    /* ROCr: the start of an allocation and exactly its size (pages, as pointer info says). */
    CHECK_OK(hsa_amd_ipc_memory_create(ptr, 8192, &handle));
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 8000, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr + 4096, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 8193, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 0x80000000000ull, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(host, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(NULL, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 8192, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 8192, (hsa_amd_ipc_memory_t *)8), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* A failed create leaves the caller's handle as it was, as in ROCr 5.2.3. */
    memset(&handle, 0xA5, sizeof handle);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr + 4096, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(handle.handle[0] == 0xA5A5A5A5 && handle.handle[7] == 0xA5A5A5A5);
}

static void attach_in_process(char *ptr) {
    hsa_amd_ipc_memory_t handle;
    MUST(hsa_amd_ipc_memory_create(ptr, 8192, &handle));
    /* Each attach maps the same pages at a new address: writes through one show in all. */
    char *mapped = NULL, *again = NULL;
    CHECK_OK(hsa_amd_ipc_memory_attach(&handle, 8192, 1, &gpu, (void **)&mapped));
    CHECK_OK(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, (void **)&again));
    CHECK(mapped != NULL && again != NULL && mapped != ptr && again != mapped);
    memset(ptr, 0x5a, 8192);
    CHECK(mapped[8191] == 0x5a && again[0] == 0x5a);
    mapped[100] = 0x11;
    CHECK(ptr[100] == 0x11 && again[100] == 0x11);

    /* Attached memory is IPC memory of the exporting GPU, reached by the agents named. */
    hsa_amd_pointer_info_t info = {.size = sizeof info};
    hsa_agent_t *accessible = NULL;
    uint32_t count = 0;
    CHECK_OK(hsa_amd_pointer_info(mapped + 64, &info, malloc, &count, &accessible));
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_IPC);
    CHECK(info.agentBaseAddress == mapped && info.sizeInBytes == 8192);
    CHECK_EQ_U64(info.agentOwner.handle, gpu.handle);
    CHECK(count == 1 && accessible[0].handle == gpu.handle);
    free(accessible);
    CHECK_OK(hsa_amd_memory_fill(mapped + 4096, 0x01020304, 16));
    CHECK(((uint32_t *)(ptr + 4096))[15] == 0x01020304);
    /* It is not the memory API's to free, and may be exported again. */
    CHECK_STATUS(hsa_amd_memory_pool_free(mapped), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    hsa_amd_ipc_memory_t again_handle;
    CHECK_OK(hsa_amd_ipc_memory_create(mapped, 8192, &again_handle));
    char *third = NULL;
    CHECK_OK(hsa_amd_ipc_memory_attach(&again_handle, 8192, 0, NULL, (void **)&third));
    CHECK(third != NULL && third[100] == 0x11);
    CHECK_OK(hsa_amd_ipc_memory_detach(third));

    CHECK_OK(hsa_amd_ipc_memory_detach(mapped));
    CHECK_OK(hsa_amd_ipc_memory_detach(again));
    CHECK_STATUS(hsa_amd_ipc_memory_detach(again), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_detach(ptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_detach(ptr + 4096), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_detach(NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void bad_handles(char *ptr) {
    hsa_amd_ipc_memory_t handle, forged;
    void *mapped = NULL;
    MUST(hsa_amd_ipc_memory_create(ptr, 8192, &handle));
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 1, NULL, &mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_agent_t bad = {12345};
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 1, &bad, &mapped), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_ipc_memory_attach(NULL, 8192, 0, NULL, &mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    for (int word = 0; word < 8; word++) {       /* any garbled word: refused, nothing mapped */
        forged = handle;
        forged.handle[word] ^= 0x100;
        CHECK_STATUS(hsa_amd_ipc_memory_attach(&forged, 8192, 0, NULL, &mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    memset(&forged, 0, sizeof forged);
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&forged, 8192, 0, NULL, &mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* A memory handle holds no signal. */
    hsa_signal_t signal;
    CHECK_STATUS(hsa_amd_ipc_signal_attach((hsa_amd_ipc_signal_t *)&handle, &signal),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void freed_and_reused(void) {
    /* Once freed, a handle attaches no more, even where the next export reuses the
       descriptor it named: the name of the memory there does not carry its token. */
    char *ptr = NULL, *reused = NULL, *mapped = NULL, *kept = NULL;
    hsa_amd_ipc_memory_t old, fresh;
    MUST(hsa_amd_memory_pool_allocate(device_pool, 8192, 0, (void **)&ptr));
    MUST(hsa_amd_ipc_memory_create(ptr, 8192, &old));
    memset(ptr, 0x77, 8192);
    CHECK_OK(hsa_amd_ipc_memory_attach(&old, 8192, 0, NULL, (void **)&kept));
    CHECK_OK(hsa_amd_memory_pool_free(ptr));
    CHECK(kept[4000] == 0x77);       /* an attached mapping outlives the export */
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&old, 8192, 0, NULL, (void **)&mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    MUST(hsa_amd_memory_pool_allocate(device_pool, 8192, 0, (void **)&reused));
    MUST(hsa_amd_ipc_memory_create(reused, 8192, &fresh));
    CHECK(fresh.handle[2] == old.handle[2]);      /* the same descriptor number... */
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&old, 8192, 0, NULL, (void **)&mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(reused[0] == 0);           /* freed shared pages come back as fresh zeroed memory */
    CHECK_OK(hsa_amd_memory_pool_free(reused));
    CHECK_OK(hsa_amd_ipc_memory_detach(kept));
}

static void signals(void) {
    hsa_signal_t plain, shared, attached, zero = {0};
    hsa_amd_ipc_signal_t handle;
    MUST(hsa_signal_create(0, 0, NULL, &plain));
    CHECK_STATUS(hsa_amd_ipc_signal_create(plain, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_signal_create(zero, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    MUST(hsa_amd_signal_create(5, 0, NULL, HSA_AMD_SIGNAL_IPC, &shared));
    CHECK_STATUS(hsa_amd_ipc_signal_create(shared, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_ipc_signal_create(shared, &handle));
    CHECK_STATUS(hsa_amd_ipc_signal_attach(&handle, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_signal_attach(NULL, &attached), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_ipc_signal_attach(&handle, &attached));
    CHECK(attached.handle != shared.handle);      /* a second mapping of one signal */
    CHECK_EQ_U64(hsa_signal_load_scacquire(attached), 5);
    hsa_signal_store_screlease(attached, 6);
    CHECK_EQ_U64(hsa_signal_load_scacquire(shared), 6);
    CHECK_EQ_U64(hsa_signal_wait_scacquire(shared, HSA_SIGNAL_CONDITION_EQ, 6, 1000000000, HSA_WAIT_STATE_BLOCKED), 6);
    /* Busy-wait signals, as ROCr's IPC signals: value pointers yes, async handlers no. */
    volatile hsa_signal_value_t *value = NULL;
    CHECK_OK(hsa_amd_signal_value_pointer(attached, &value));
    CHECK(value != NULL && *value == 6);
    /* Each handle is destroyed on its own; the other goes on working. */
    CHECK_OK(hsa_signal_destroy(attached));
    CHECK_STATUS(hsa_signal_destroy(attached), HSA_STATUS_ERROR_INVALID_SIGNAL);
    hsa_signal_subtract_screlease(shared, 1);
    CHECK_EQ_U64(hsa_signal_load_scacquire(shared), 5);
    CHECK_OK(hsa_signal_destroy(shared));
    CHECK_OK(hsa_signal_destroy(plain));
    /* Destroyed: its handle attaches no more. */
    CHECK_STATUS(hsa_amd_ipc_signal_attach(&handle, &attached), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    setup();
    char *ptr = NULL;
    MUST(hsa_amd_memory_pool_allocate(device_pool, 8000, 0, (void **)&ptr));
    create_rules(ptr);
    attach_in_process(ptr);
    bad_handles(ptr);
    freed_and_reused();
    signals();

    /* Handles die with the session that made them. */
    hsa_amd_ipc_memory_t handle;
    void *mapped;
    CHECK_OK(hsa_amd_ipc_memory_create(ptr, 8192, &handle));
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, &mapped), HSA_STATUS_ERROR_NOT_INITIALIZED);
    setup();
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, &mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
