// Checks for HIP test programs: HIP_CHECK stops at the first failing HIP call (later
// checks would only repeat it), EXPECT records a wrong result and goes on, and
// hip_report() prints "<name> OK" only when every check held.
#ifndef SOFTGPU_HIP_CHECK_H
#define SOFTGPU_HIP_CHECK_H
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

static int hip_failures;

#define HIP_CHECK(call)                                                              \
    do {                                                                             \
        hipError_t e_ = (call);                                                      \
        if (e_ != hipSuccess) {                                                      \
            std::printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                        hipGetErrorName(e_));                                        \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

// A HIP call that must fail with exactly this error.
#define HIP_EXPECT_ERROR(call, expected)                                             \
    do {                                                                             \
        hipError_t e_ = (call);                                                      \
        if (e_ != (expected)) {                                                      \
            std::printf("FAIL %s:%d: %s returned %s, expected %s\n", __FILE__,       \
                        __LINE__, #call, hipGetErrorName(e_),                        \
                        hipGetErrorName(expected));                                  \
            hip_failures++;                                                          \
        }                                                                            \
    } while (0)

#define EXPECT(cond)                                                                 \
    do {                                                                             \
        if (!(cond)) {                                                               \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);              \
            hip_failures++;                                                          \
        }                                                                            \
    } while (0)

static inline int hip_report(const char *name) {
    std::printf("%s %s\n", name, hip_failures ? "FAILED" : "OK");
    return hip_failures ? 1 : 0;
}
#endif
