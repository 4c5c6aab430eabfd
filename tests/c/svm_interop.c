/* SVM with HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED false (ROCr validates, then KFD's call fails;
 * prefetches complete as hints), and graphics interop without a graphics driver. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <string.h>

#include "check.h"

static hsa_agent_t cpu, gpu;

static hsa_status_t pick(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (type == HSA_DEVICE_TYPE_GPU && !gpu.handle) gpu = agent;
    if (type == HSA_DEVICE_TYPE_CPU && !cpu.handle) cpu = agent;
    return HSA_STATUS_SUCCESS;
}

#define PAIR(a, v) ((hsa_amd_svm_attribute_pair_t){(uint64_t)(a), (uint64_t)(v)})

static void svm_attributes(void *ptr) {
    bool supported = true;
    CHECK_OK(hsa_system_get_info((hsa_system_info_t)HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED, &supported));
    CHECK(!supported);

    hsa_amd_svm_attribute_pair_t good[] = {
        PAIR(HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED),
        PAIR(HSA_AMD_SVM_ATTRIB_READ_ONLY, 1),
        PAIR(HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 0),
        PAIR(HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, gpu.handle),
        PAIR(HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS, cpu.handle),
    };
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, good, 5), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, NULL, 0), HSA_STATUS_ERROR);
    /* Argument errors come first, as in ROCr. */
    hsa_amd_svm_attribute_pair_t twice[] = {PAIR(HSA_AMD_SVM_ATTRIB_READ_ONLY, 1), PAIR(HSA_AMD_SVM_ATTRIB_READ_ONLY, 0)};
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, twice, 2), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    hsa_amd_svm_attribute_pair_t agent_twice[] = {PAIR(HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, gpu.handle),
                                                  PAIR(HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS, gpu.handle)};
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, agent_twice, 2), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    hsa_amd_svm_attribute_pair_t bad_flag = PAIR(HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, &bad_flag, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_amd_svm_attribute_pair_t bad_agent = PAIR(HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, 777);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, &bad_agent, 1), HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_amd_svm_attribute_pair_t bad_location = PAIR(HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 777);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, &bad_location, 1), HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_amd_svm_attribute_pair_t query = PAIR(HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, gpu.handle);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, &query, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_amd_svm_attribute_pair_t unknown = PAIR(0x1234, 0);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, &unknown, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, NULL, 2), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_svm_attributes_set(ptr, 4096, (hsa_amd_svm_attribute_pair_t *)8, 1),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    hsa_amd_svm_attribute_pair_t get[] = {PAIR(HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0), PAIR(HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, gpu.handle)};
    CHECK_STATUS(hsa_amd_svm_attributes_get(ptr, 4096, get, 2), HSA_STATUS_ERROR);
    CHECK_OK(hsa_amd_svm_attributes_get(ptr, 4096, NULL, 0));
    hsa_amd_svm_attribute_pair_t get_bad_agent = PAIR(HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, 777);
    CHECK_STATUS(hsa_amd_svm_attributes_get(ptr, 4096, &get_bad_agent, 1), HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_amd_svm_attribute_pair_t get_settable_only = PAIR(HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, gpu.handle);
    CHECK_STATUS(hsa_amd_svm_attributes_get(ptr, 4096, &get_settable_only, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_svm_attributes_get(ptr, 4096, NULL, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void prefetch(void *ptr) {
    hsa_signal_t dep, done;
    CHECK_OK(hsa_signal_create(1, 0, NULL, &dep));
    CHECK_OK(hsa_signal_create(1, 0, NULL, &done));
    CHECK_OK(hsa_amd_svm_prefetch_async(ptr, 4096, gpu, 1, &dep, done));
    /* Waits for its dependency first. */
    CHECK_EQ_U64(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 50000000, HSA_WAIT_STATE_BLOCKED), 1);
    hsa_signal_store_screlease(dep, 0);
    CHECK_EQ_U64(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 0);
    CHECK_OK(hsa_amd_svm_prefetch_async(ptr, 4096, cpu, 0, NULL, (hsa_signal_t){0}));

    hsa_signal_t dead;
    CHECK_OK(hsa_signal_create(1, 0, NULL, &dead));
    CHECK_OK(hsa_signal_destroy(dead));
    CHECK_STATUS(hsa_amd_svm_prefetch_async(ptr, 4096, (hsa_agent_t){777}, 0, NULL, done),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_svm_prefetch_async(ptr, 4096, gpu, 0, NULL, dead), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_STATUS(hsa_amd_svm_prefetch_async(ptr, 4096, gpu, 1, &dead, done), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_STATUS(hsa_amd_svm_prefetch_async(ptr, 4096, gpu, 1, NULL, done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_signal_destroy(dep));
    CHECK_OK(hsa_signal_destroy(done));
}

static void interop(void) {
    size_t size = 0, metadata_size = 0;
    void *ptr = NULL;
    const void *metadata = NULL;
    /* No graphics driver registers buffers with SoftGPU: any handle fails to map. */
    CHECK_STATUS(hsa_amd_interop_map_buffer(1, &gpu, 3, 0, &size, &ptr, &metadata_size, &metadata), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_amd_interop_map_buffer(1, &gpu, 3, 0, &size, &ptr, NULL, NULL), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_amd_interop_map_buffer(1, NULL, 3, 0, &size, &ptr, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_interop_map_buffer(1, &gpu, 3, 0, NULL, &ptr, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_interop_map_buffer(1, &gpu, 3, 0, &size, NULL, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_interop_map_buffer(1, &gpu, 3, 1, &size, &ptr, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_interop_map_buffer(0, &gpu, 3, 0, &size, &ptr, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_agent_t bad = {55};
    CHECK_STATUS(hsa_amd_interop_map_buffer(1, &bad, 3, 0, &size, &ptr, NULL, NULL), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(ptr == NULL && size == 0);
    CHECK_OK(hsa_amd_interop_unmap_buffer(NULL));
    CHECK_OK(hsa_amd_interop_unmap_buffer((void *)0x1000));
}

int main(void) {
    CHECK_OK(hsa_init());
    hsa_iterate_agents(pick, NULL);
    static char buffer[8192];
    svm_attributes(buffer);
    prefetch(buffer);
    interop();
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_amd_interop_unmap_buffer(NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
    return check_report();
}
