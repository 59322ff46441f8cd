/* The host library in 40 lines: open a device, run an int8 GEMM with bias and ReLU, check it.
 * Quoted verbatim in docs/host-api.md; `make test-docs` builds and runs it (model backend). */
#include <stdint.h>
#include <stdio.h>

#include "tessel.h"

enum { M = 5, K = 20, N = 33 };  /* any shape: the library pads and tiles */

int main(void) {
  static int8_t a[M][K], b[K][N];
  static int32_t c[M][N], bias[N];
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) a[i][k] = (int8_t)(i * 7 - k * 3);
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) b[k][j] = (int8_t)((k * j) % 17 - 8);
  for (int j = 0; j < N; j++) bias[j] = j - 16;

  tessel_dev_t *dev;
  tessel_status_t st = tessel_open(&dev, "model", NULL);
  if (st != TESSEL_OK) return fprintf(stderr, "open: %s\n", tessel_strerror(st)), 1;
  tessel_gemm_t g = {.m = M, .n = N, .k = K, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32,
                     .a = a, .lda = K, .b = b, .ldb = N, .c = c, .ldc = N, .bias = bias, .relu = 1};
  tessel_completion_t cpl;
  st = tessel_gemm(dev, &g, &cpl);
  if (st != TESSEL_OK) fprintf(stderr, "gemm: %s (%s)\n", tessel_strerror(st), tessel_last_error(dev));
  tessel_close(dev);
  if (st != TESSEL_OK) return 1;

  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int32_t s = bias[j];
      for (int k = 0; k < K; k++) s += a[i][k] * b[k][j];
      bad += c[i][j] != (s > 0 ? s : 0);
    }
  printf("host_example: %dx%dx%d int8 GEMM + bias + ReLU: %d mismatches\n", M, K, N, bad);
  return bad != 0;
}
