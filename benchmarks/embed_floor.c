/* The reference for start-up: what any library that embeds this Python pays before its
   own code runs (Py_InitializeEx as cffi's embedding calls it, site included). Prints
   milliseconds. */
#include <Python.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int main(void) {
    double start = now_ms();
    Py_InitializeEx(0);
    double elapsed = now_ms() - start;
    printf("%.3f\n", elapsed);
    return Py_FinalizeEx() == 0 ? 0 : 1;
}
