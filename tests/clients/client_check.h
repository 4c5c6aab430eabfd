// Checks for the client programs: HIP_CHECK and EXPECT from hip_check.h, STATUS_CHECK for
// the ROCm libraries' own status enums (success is 0 in each of them), and EXPECT_NEAR for
// results computed in floating point on both sides.
#ifndef SOFTGPU_CLIENT_CHECK_H
#define SOFTGPU_CLIENT_CHECK_H
#include "hip_check.h"

#include <cmath>

#define STATUS_CHECK(call)                                                                                   \
    do {                                                                                                     \
        int s_ = (int)(call);                                                                                \
        if (s_ != 0) {                                                                                       \
            std::printf("FAIL %s:%d: %s returned status %d\n", __FILE__, __LINE__, #call, s_);               \
            std::exit(1);                                                                                    \
        }                                                                                                    \
    } while (0)

// |got - want| <= tol * (1 + |want|); prints the first few misses of each check.
static inline bool near(double got, double want, double tol) {
    return std::fabs(got - want) <= tol * (1 + std::fabs(want));
}

#define EXPECT_NEAR_ARRAY(what, got, want, n, tol)                                                           \
    do {                                                                                                     \
        int misses_ = 0;                                                                                     \
        for (size_t i_ = 0; i_ < (size_t)(n); ++i_)                                                          \
            if (!near((got)[i_], (want)[i_], (tol)) && misses_++ < 3)                                        \
                std::printf("FAIL %s [%zu]: %.9g, expected %.9g\n", (what), i_, (double)(got)[i_],           \
                            (double)(want)[i_]);                                                             \
        if (misses_)                                                                                         \
            hip_failures++;                                                                                  \
        else                                                                                                 \
            std::printf("%s ok\n", (what));                                                                  \
    } while (0)
#endif
