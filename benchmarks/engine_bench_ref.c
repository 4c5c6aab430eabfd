/* The benchmark's work in plain C (gcc -O2): the yardstick for the ISA engine.
 * Usage: engine_bench_ref N_ADD N_FMA ITERS -> prints "vadd SECONDS" and "fma SECONDS",
 * the best of several runs, and a checksum so the compiler keeps the work. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void vadd(const float *a, const float *b, float *c, long n) {
  for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
}

/* Same recurrence as the fma_loop kernel: two dependent multiply-add chains per item. */
static void fma_loop(float *x, long n, int iters) {
  for (long i = 0; i < n; i++) {
    float a = x[i], b = 1.0f - x[i];
    for (int k = 0; k < iters; k++) {
      a = a * 0.999f + 0.001f;
      b = b * 0.998f + a;
    }
    x[i] = a + b;
  }
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  long n_add = atol(argv[1]), n_fma = atol(argv[2]);
  int iters = atoi(argv[3]);
  float *a = malloc(n_add * sizeof *a), *b = malloc(n_add * sizeof *b), *c = malloc(n_add * sizeof *c);
  float *x = malloc(n_fma * sizeof *x);
  for (long i = 0; i < n_add; i++) { a[i] = (float)i; b[i] = 2.0f; }
  double best_add = 1e30, best_fma = 1e30, sum = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t = now();
    vadd(a, b, c, n_add);
    t = now() - t;
    if (t < best_add) best_add = t;
    sum += c[rep];
    for (long i = 0; i < n_fma; i++) x[i] = (float)(i % 1000) * 0.001f;
    t = now();
    fma_loop(x, n_fma, iters);
    t = now() - t;
    if (t < best_fma) best_fma = t;
    sum += x[rep];
  }
  printf("vadd %.9f\nfma %.9f\nchecksum %f\n", best_add, best_fma, sum);
  return 0;
}
