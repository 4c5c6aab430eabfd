/* Start-up cost: times the first hsa_init of this process (library load excluded: the
   loader maps the library before main). Prints milliseconds. */
#include <hsa/hsa.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int main(void) {
    double start = now_ms();
    hsa_status_t status = hsa_init();
    double elapsed = now_ms() - start;
    if (status != HSA_STATUS_SUCCESS) return 1;
    printf("%.3f\n", elapsed);
    return hsa_shut_down() == HSA_STATUS_SUCCESS ? 0 : 1;
}
