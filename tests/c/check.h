/* Minimal assertions for C tests: print each failure, exit non-zero at the end. */
#ifndef SOFTGPU_TEST_CHECK_H
#define SOFTGPU_TEST_CHECK_H
#include <hsa/hsa.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int check_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                    \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_STATUS(call, expected)                                                  \
    do {                                                                              \
        hsa_status_t check_s_ = (call);                                               \
        if (check_s_ != (expected)) {                                                 \
            printf("FAIL %s:%d: %s returned 0x%x, expected 0x%x\n", __FILE__, __LINE__,\
                   #call, (unsigned)check_s_, (unsigned)(expected));                  \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, HSA_STATUS_SUCCESS)

#define CHECK_EQ_U64(a, b)                                                            \
    do {                                                                              \
        uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);                  \
        if (check_a_ != check_b_) {                                                   \
            printf("FAIL %s:%d: %s == %" PRIu64 ", expected %" PRIu64 "\n", __FILE__,  \
                   __LINE__, #a, check_a_, check_b_);                                 \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

static inline int check_report(void) {
    printf("%s: %d failure(s)\n", check_failures ? "FAILED" : "PASSED", check_failures);
    return check_failures ? 1 : 0;
}
#endif
