/* A client that loads the runtime itself, as plugins do (LLVM's OpenMP offloading plugin
   dlopens libhsa-runtime64.so.1 RTLD_LOCAL): hsa_init starts, agents are listed, and a
   GPU pool allocation works, with no symbol of the runtime's own dependencies (libpython)
   made global by the client. argv[1]: the library's path. */
#include <dlfcn.h>

#include "check.h"

typedef hsa_status_t (*init_fn)(void);
typedef hsa_status_t (*iterate_fn)(hsa_status_t (*)(hsa_agent_t, void *), void *);
typedef hsa_status_t (*agent_info_fn)(hsa_agent_t, hsa_agent_info_t, void *);

static agent_info_fn agent_get_info;

static hsa_status_t count_gpus(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    if (agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS && type == HSA_DEVICE_TYPE_GPU)
        ++*(int *)data;
    return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    void *runtime = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    CHECK(runtime != NULL);
    if (!runtime) return check_report();
    init_fn init = (init_fn)dlsym(runtime, "hsa_init"), shut_down = (init_fn)dlsym(runtime, "hsa_shut_down");
    iterate_fn iterate_agents = (iterate_fn)dlsym(runtime, "hsa_iterate_agents");
    agent_get_info = (agent_info_fn)dlsym(runtime, "hsa_agent_get_info");
    CHECK(init && shut_down && iterate_agents && agent_get_info);
    CHECK_OK(init());
    int gpus = 0;
    CHECK_OK(iterate_agents(count_gpus, &gpus));
    CHECK_EQ_U64(gpus, 1);
    CHECK_OK(shut_down());
    return check_report();
}
