/* Start-up cost: times the first hsa_init of this process (the library itself is mapped
   before main). Built with -DEMBED_FLOOR it times instead what any library embedding this
   Python pays before its own code runs (Py_InitializeEx as cffi's embedding calls it,
   site included): the reference; with -DEMBED_FLOOR -DNO_SITE, the same start without site,
   as SoftGPU starts it (softgpu_shim/embedding_paths.c): the floor of hsa_init. Prints
   milliseconds. */
#ifdef EMBED_FLOOR
#include <Python.h>
#else
#include <hsa/hsa.h>
#endif
#include <stdio.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int main(void) {
    double start = now_ms();
#ifdef EMBED_FLOOR
#ifdef NO_SITE
    Py_NoSiteFlag = 1;
#endif
    Py_InitializeEx(0);
    int ok = 1;
#else
    int ok = hsa_init() == HSA_STATUS_SUCCESS;
#endif
    double elapsed = now_ms() - start;
    if (!ok) return 1;
    printf("%.3f\n", elapsed);
#ifdef EMBED_FLOOR
    return Py_FinalizeEx() == 0 ? 0 : 1;
#else
    return hsa_shut_down() == HSA_STATUS_SUCCESS ? 0 : 1;
#endif
}
