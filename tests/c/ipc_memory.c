/* IPC memory handles: create, attach and detach within the process, the errors of each,
 * and a handle taken to another process (this program run as a child), which must not
 * attach there. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static hsa_amd_memory_pool_t device_pool;
static hsa_agent_t gpu;

static hsa_status_t pick_pool(hsa_amd_memory_pool_t pool, void *data) {
    hsa_amd_segment_t segment;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
    if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    device_pool = pool;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t pick_gpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (type == HSA_DEVICE_TYPE_GPU) {
        gpu = agent;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

static void setup(void) {
    if (hsa_init() != HSA_STATUS_SUCCESS) exit(1);
    hsa_iterate_agents(pick_gpu, NULL);
    hsa_amd_agent_iterate_memory_pools(gpu, pick_pool, NULL);
}

/* In another process: decode the handle from hex and try to attach it. */
static int child(const char *hex) {
    setup();
    hsa_amd_ipc_memory_t handle;
    for (int i = 0; i < 8; i++) sscanf(hex + 8 * i, "%8x", &handle.handle[i]);
    void *mapped = (void *)1;
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, &mapped), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_shut_down());
    return check_report();
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "child") == 0) return child(argv[2]);
    setup();
    char *ptr = NULL;
    CHECK_OK(hsa_amd_memory_pool_allocate(device_pool, 8000, 0, (void **)&ptr));
    hsa_amd_ipc_memory_t handle;
    /* The size asked for or the allocation's whole pages both name it. */
    CHECK_OK(hsa_amd_ipc_memory_create(ptr, 8000, &handle));
    CHECK_OK(hsa_amd_ipc_memory_create(ptr, 8192, &handle));

    /* Attached in this process, the memory is reachable at the exporter's address. */
    char *mapped = NULL, *again = NULL;
    CHECK_OK(hsa_amd_ipc_memory_attach(&handle, 8192, 1, &gpu, (void **)&mapped));
    CHECK(mapped == ptr);
    CHECK_OK(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, (void **)&again));
    memset(ptr, 0x5a, 8000);
    CHECK(mapped[7999] == 0x5a && again[0] == 0x5a);
    CHECK_OK(hsa_amd_ipc_memory_detach(mapped));
    CHECK_OK(hsa_amd_ipc_memory_detach(again));
    CHECK_STATUS(hsa_amd_ipc_memory_detach(again), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_detach(ptr + 4096), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_detach(NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Creation needs the start of an HSA allocation and its size. */
    static char host[4096];
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr + 4096, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 8193, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 0x80000000000ull, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(host, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(NULL, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 8192, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr, 8192, (hsa_amd_ipc_memory_t *)8), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    memset(&handle, 0xff, sizeof handle);
    CHECK_STATUS(hsa_amd_ipc_memory_create(ptr + 4096, 4096, &handle), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(handle.handle[0] == 0 && handle.handle[7] == 0);

    /* Attach errors: NULL pointers, bad agents, forged handles. */
    CHECK_OK(hsa_amd_ipc_memory_create(ptr, 8192, &handle));
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 1, NULL, (void **)&mapped),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_agent_t bad = {12345};
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 1, &bad, (void **)&mapped),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_ipc_memory_attach(NULL, 8192, 0, NULL, (void **)&mapped),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_amd_ipc_memory_t forged = handle;
    forged.handle[3] += 1000;
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&forged, 8192, 0, NULL, (void **)&mapped),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    memset(&forged, 0, sizeof forged);
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&forged, 8192, 0, NULL, (void **)&mapped),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Another process cannot attach: SoftGPU's device memory is this process's own. */
    char hex[65];
    for (int i = 0; i < 8; i++) sprintf(hex + 8 * i, "%08x", handle.handle[i]);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv[0], argv[0], "child", hex, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* Once freed, the handle attaches no more, even if the address is reused. */
    CHECK_OK(hsa_amd_memory_pool_free(ptr));
    char *reused = NULL;
    CHECK_OK(hsa_amd_memory_pool_allocate(device_pool, 8192, 0, (void **)&reused));
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 8192, 0, NULL, (void **)&mapped),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_ipc_memory_create(reused, 8192, &handle));
    CHECK_OK(hsa_amd_memory_pool_free(reused));

    /* Handles die with the session. */
    CHECK_OK(hsa_amd_memory_pool_allocate(device_pool, 4096, 0, (void **)&ptr));
    CHECK_OK(hsa_amd_ipc_memory_create(ptr, 4096, &handle));
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 4096, 0, NULL, (void **)&mapped),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    setup();
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&handle, 4096, 0, NULL, (void **)&mapped),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
