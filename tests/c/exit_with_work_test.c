/* Process exit with work still in flight neither hangs nor crashes: submits invocations of a model
 * big enough to still be running, frees nothing, and returns from main. CTest's timeout catches a hang;
 * a crash shows as a non-zero exit. Loads libquiver.so with dlopen like users' C programs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "qv_api_table.h"
#include "quiver/c_api.h"

/* data -> 3x3 convolution (16 filters) -> relu, no bias. */
static const char *kJson =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"data\",\"inputs\":[]},"
    "{\"op\":\"null\",\"name\":\"w\",\"inputs\":[]},"
    "{\"op\":\"Convolution\",\"name\":\"conv\",\"attrs\":{\"kernel\":\"(3, 3)\",\"pad\":\"(1, 1)\","
    "\"num_filter\":\"16\",\"no_bias\":\"True\"},\"inputs\":[[0,0,0],[1,0,0]]},"
    "{\"op\":\"Activation\",\"name\":\"relu\",\"attrs\":{\"act_type\":\"relu\"},\"inputs\":[[2,0,0]]}],"
    "\"arg_nodes\":[0,1],\"heads\":[[3,0,0]]}";

static Api api;

int main(int argc, char **argv) {
  if (!open_api(argc > 1 ? argv[1] : "libquiver.so", &api)) return 1;
  QvSymbolHandle sym;
  QvNDArrayHandle weight, input;
  QvCachedOpHandle op;
  const int64_t wshape[4] = {16, 16, 3, 3}, xshape[4] = {8, 16, 96, 96};
  const char *names[1] = {"w"};
  if (api.SymbolCreateFromJSON(kJson, &sym) || api.NDArrayCreate(wshape, 4, QV_CPU, 0, QV_FLOAT32, &weight) ||
      api.NDArrayCreate(xshape, 4, QV_CPU, 0, QV_FLOAT32, &input) ||
      api.CreateCachedOpEx(sym, 1, names, &weight, 0, NULL, NULL, &op, 1)) {
    fprintf(stderr, "setup failed: %s\n", api.GetLastError());
    return 1;
  }
  int submitted = 0;
  for (int i = 0; i < 32; ++i) {
    uint32_t n = 0;
    QvNDArrayHandle *outs = NULL;
    if (api.InvokeAsync(op, 1, &input, &n, &outs) == QV_OK) ++submitted;
  }
  printf("exiting with %d invocations submitted and not waited for\n", submitted);
  return submitted == 32 ? 0 : 1;
}
