/* Process exit with work still in flight neither hangs nor crashes: submits invocations of a model
 * big enough to still be running, frees nothing, and returns from main. CTest's timeout catches a hang;
 * a crash shows as a non-zero exit. Loads libquiver.so with dlopen like users' C programs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "c_test_support.h"
#include "qv_api_table.h"
#include "quiver/c_api.h"

static Api api;

int main(int argc, char **argv) {
  if (!open_api(argc > 1 ? argv[1] : "libquiver.so", &api)) return 1;
  QvNDArrayHandle input;
  QvCachedOpHandle op;
  const int64_t xshape[4] = {8, 16, 96, 96};
  if (!create_conv_relu_model(&api, 16, xshape, &op, &input)) return 1;
  int submitted = 0;
  for (int i = 0; i < 32; ++i) {
    uint32_t n = 0;
    QvNDArrayHandle *outs = NULL;
    if (api.InvokeAsync(op, 1, &input, &n, &outs) == QV_OK) ++submitted;
  }
  printf("exiting with %d invocations submitted and not waited for\n", submitted);
  return submitted == 32 ? 0 : 1;
}
