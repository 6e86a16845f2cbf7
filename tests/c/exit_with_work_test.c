/* Process exit with work still in flight neither hangs nor crashes: submits invocations of two models
 * big enough to still be running, frees nothing, and returns from main. CTest's timeout catches a hang;
 * a crash shows as a non-zero exit. Loads libquiver.so with dlopen like users' C programs.
 * The second model is a batched matrix product, which oneDNN runs on its gemm-based kernels on an
 * AVX2 CPU (scripts/test_avx2.sh): their JIT code lives in process-wide statics, which exit must not
 * free under a running step (scripts/build_onednn.sh says how). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "c_test_support.h"
#include "qv_api_table.h"
#include "quiver/c_api.h"

static Api api;

/* batch_dot(a, b^T) of two (64, 256, 512) float32 inputs, about 4 GFLOP an invocation. */
static int create_batch_dot_model(QvCachedOpHandle *op, QvNDArrayHandle inputs[2]) {
  const char *json =
      "{\"nodes\":[{\"op\":\"null\",\"name\":\"a\",\"inputs\":[]},{\"op\":\"null\",\"name\":\"b\",\"inputs\":[]},"
      "{\"op\":\"batch_dot\",\"name\":\"product\",\"attrs\":{\"transpose_b\":\"True\"},"
      "\"inputs\":[[0,0,0],[1,0,0]]}],\"arg_nodes\":[0,1],\"heads\":[[2,0,0]]}";
  const int64_t shape[3] = {64, 256, 512};
  QvSymbolHandle sym;
  if (api.SymbolCreateFromJSON(json, &sym) || api.NDArrayCreate(shape, 3, QV_CPU, 0, QV_FLOAT32, &inputs[0]) ||
      api.NDArrayCreate(shape, 3, QV_CPU, 0, QV_FLOAT32, &inputs[1]) ||
      api.CreateCachedOpEx(sym, 0, NULL, NULL, 0, NULL, NULL, op, 1)) {
    fprintf(stderr, "setup failed: %s\n", api.GetLastError());
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (!open_api(argc > 1 ? argv[1] : "libquiver.so", &api)) return 1;
  QvNDArrayHandle conv_input, product_inputs[2];
  QvCachedOpHandle conv, product;
  const int64_t xshape[4] = {8, 16, 96, 96};
  if (!create_conv_relu_model(&api, 16, xshape, &conv, &conv_input)) return 1;
  if (!create_batch_dot_model(&product, product_inputs)) return 1;
  int submitted = 0;
  for (int i = 0; i < 32; ++i) {
    uint32_t n = 0;
    QvNDArrayHandle *outs = NULL;
    if (api.InvokeAsync(product, 2, product_inputs, &n, &outs) == QV_OK) ++submitted;
    if (api.InvokeAsync(conv, 1, &conv_input, &n, &outs) == QV_OK) ++submitted;
  }
  printf("exiting with %d invocations submitted and not waited for\n", submitted);
  return submitted == 64 ? 0 : 1;
}
