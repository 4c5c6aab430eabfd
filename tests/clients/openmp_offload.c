// OpenMP target offloading (clang-15 and its libomptarget AMDGPU plugin, which dlopens
// libhsa-runtime64 and reads the code object through its hsa_code_object_t) on SoftGPU:
// SPMD and generic-mode target regions, a reduction, target data with updates, declare
// target functions and globals, omp_target_alloc/memcpy with is_device_ptr, device atomics.
// Prints "OPENMP OFFLOAD OK".
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 1000

#pragma omp declare target
static int scale = 3;
static int triple(int x) { return scale * x; }
#pragma omp end declare target

static int failures;
#define EXPECT(cond)                                                              \
    do {                                                                          \
        if (!(cond)) {                                                            \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
            failures++;                                                           \
        }                                                                         \
    } while (0)

int main(void) {
    static float x[N], y[N];
    static int values[N];
    for (int i = 0; i < N; ++i) {
        x[i] = (float)i;
        y[i] = 1.0f;
        values[i] = i % 17 - 8;
    }
    EXPECT(omp_get_num_devices() == 1);

    int on_device = 0;
#pragma omp target teams distribute parallel for map(to : x) map(tofrom : y) map(tofrom : on_device)
    for (int i = 0; i < N; ++i) {
        y[i] = 2.5f * x[i] + y[i];
        if (i == 0) on_device = !omp_is_initial_device();
    }
    EXPECT(on_device);
    int saxpy_ok = 1;
    for (int i = 0; i < N; ++i) saxpy_ok &= y[i] == 2.5f * i + 1.0f;
    EXPECT(saxpy_ok);

    long sum = 0, want_sum = 0;
    for (int i = 0; i < N; ++i) want_sum += 3L * values[i] * values[i];
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : values)
    for (int i = 0; i < N; ++i) sum += (long)triple(values[i]) * values[i];
    EXPECT(sum == want_sum);

    // Generic mode: the team's main thread runs serial code, then wakes its workers.
    int stages[4] = {0, 0, 0, 0};
#pragma omp target map(tofrom : stages)
    {
        stages[0] = omp_get_team_num() + 10;
#pragma omp parallel num_threads(32)
        {
#pragma omp atomic
            stages[1] += 1;
        }
        stages[2] = stages[1] * 2;
        stages[3] = triple(7);
    }
    EXPECT(stages[0] == 10 && stages[1] == 32 && stages[2] == 64 && stages[3] == 21);

    // Data stays on the device between regions; updates move it both ways.
    int data[64];
    for (int i = 0; i < 64; ++i) data[i] = i;
#pragma omp target data map(tofrom : data)
    {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < 64; ++i) data[i] *= 2;
#pragma omp target update from(data)
        EXPECT(data[63] == 126);
        for (int i = 0; i < 64; ++i) data[i] += 1;
#pragma omp target update to(data)
#pragma omp target teams distribute parallel for
        for (int i = 0; i < 64; ++i) data[i] -= i;
    }
    int data_ok = 1;
    for (int i = 0; i < 64; ++i) data_ok &= data[i] == i + 1;
    EXPECT(data_ok);

    int device = omp_get_default_device(), host = omp_get_initial_device();
    int* buffer = (int*)omp_target_alloc(N * sizeof(int), device);
    EXPECT(buffer != NULL);
    EXPECT(omp_target_memcpy(buffer, values, N * sizeof(int), 0, 0, device, host) == 0);
    int histogram[17] = {0};
#pragma omp target teams distribute parallel for is_device_ptr(buffer) map(tofrom : histogram)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic
        histogram[buffer[i] + 8] += 1;
    }
    int histogram_ok = 1;
    for (int b = 0; b < 17; ++b) histogram_ok &= histogram[b] == N / 17 + (b < N % 17);
    EXPECT(histogram_ok);
    omp_target_free(buffer, device);

    printf("OPENMP OFFLOAD %s\n", failures ? "FAILED" : "OK");
    fflush(stdout);
    // LLVM 15's plugin (the build that dlopens libhsa-runtime64) tears its device state
    // down before libomptarget's own exit handlers use it (llvm-project issue 57124):
    // leave before the exit handlers run.
    _exit(failures != 0);
}
