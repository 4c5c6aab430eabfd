/* Nested hsa_init/hsa_shut_down as ROCr 5.2.3 counts them: a 32-bit reference count whose
   limit is INT32_MAX (one more hsa_init answers HSA_STATUS_ERROR_REFCOUNT_OVERFLOW and
   changes nothing), the session open from the first hsa_init to the matching last
   hsa_shut_down, and HSA_STATUS_ERROR_NOT_INITIALIZED after it. ROCr's own test makes
   2^31 nested calls of each, so each must be cheap; this program makes as many.
   usage: system_init_nesting [NESTED]   (default: up to ROCr's limit, 2^31 - 1) */
#include <hsa/hsa.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

static int session_open(void) {
    uint16_t major = 0;
    return hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    int64_t nested = argc > 1 ? strtoll(argv[1], NULL, 0) : INT32_MAX;
    CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK(!session_open());

    for (int64_t i = 0; i < nested; i++) {
        hsa_status_t status = hsa_init();
        if (status != HSA_STATUS_SUCCESS) {
            printf("FAIL: hsa_init number %lld returned 0x%x\n", (long long)i + 1, (unsigned)status);
            return 1;
        }
    }
    if (nested == INT32_MAX) {
        CHECK_STATUS(hsa_init(), HSA_STATUS_ERROR_REFCOUNT_OVERFLOW);
        CHECK_STATUS(hsa_init(), HSA_STATUS_ERROR_REFCOUNT_OVERFLOW);
    }
    CHECK(session_open());

    /* The refused calls counted nothing: exactly `nested` shutdowns close the session. */
    for (int64_t i = 0; i < nested - 1; i++) {
        hsa_status_t status = hsa_shut_down();
        if (status != HSA_STATUS_SUCCESS) {
            printf("FAIL: hsa_shut_down number %lld returned 0x%x\n", (long long)i + 1, (unsigned)status);
            return 1;
        }
    }
    CHECK(session_open());
    CHECK_OK(hsa_shut_down());
    CHECK(!session_open());
    CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);

    /* A new session opens after the old one closed. */
    CHECK_OK(hsa_init());
    CHECK(session_open());
    CHECK_OK(hsa_shut_down());
    return check_report();
}
