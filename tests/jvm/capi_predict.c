/* capi_predict: one prediction through the C API alone, the oracle the JVM suites compare with.
 *
 *   capi_predict PREFIX EPOCH INPUT.f32 N,C,H,W OUTPUT.f32
 *
 * Loads PREFIX-symbol.json and PREFIX-EPOCH.params, runs the float32 input (raw little-endian, row-major,
 * of the given shape) through the model's single data input, and writes every output's float32 values
 * one after another to OUTPUT.f32. Exit status 0 on success; otherwise the runtime's message on stderr. */
#include <quiver/c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
  fprintf(stderr, "capi_predict: %s: %s\n", what, QvGetLastError());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: capi_predict PREFIX EPOCH INPUT.f32 N,C,H,W OUTPUT.f32\n");
    return 2;
  }
  char path[4096];
  QvSymbolHandle sym = NULL;
  snprintf(path, sizeof path, "%s-symbol.json", argv[1]);
  if (QvSymbolCreateFromFile(path, &sym) != QV_OK) return fail("symbol");
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle *loaded = NULL;
  const char **names = NULL;
  snprintf(path, sizeof path, "%s-%04d.params", argv[1], atoi(argv[2]));
  if (QvNDArrayLoad(path, &n, &loaded, &n_names, &names) != QV_OK) return fail("params");
  /* `loaded` and `names` stay valid: this thread loads nothing else. */
  QvCachedOpHandle op = NULL;
  if (QvCreateCachedOpEx(sym, n, names, loaded, 0, NULL, NULL, &op, 1) != QV_OK) return fail("cached op");
  for (uint32_t i = 0; i < n; ++i) QvNDArrayFree(loaded[i]);
  QvSymbolFree(sym);

  int64_t shape[8];
  uint32_t ndim = 0;
  size_t count = 1;
  for (char *dim = strtok(argv[4], ","); dim != NULL && ndim < 8; dim = strtok(NULL, ",")) {
    shape[ndim] = atoll(dim);
    count *= (size_t)shape[ndim++];
  }
  float *input = malloc(count * sizeof *input);
  FILE *in = fopen(argv[3], "rb");
  if (in == NULL || fread(input, sizeof *input, count, in) != count) {
    fprintf(stderr, "capi_predict: cannot read %zu floats from %s\n", count, argv[3]);
    return 1;
  }
  fclose(in);
  QvNDArrayHandle data = NULL;
  if (QvNDArrayCreateFromBuffer(input, shape, ndim, QV_FLOAT32, NULL, NULL, &data) != QV_OK) return fail("input");
  uint32_t n_out = 0;
  QvNDArrayHandle *outputs = NULL;
  if (QvInvokeAsync(op, 1, &data, &n_out, &outputs) != QV_OK) return fail("invoke");
  /* `outputs` stays valid: this thread invokes nothing else. */
  FILE *out = fopen(argv[5], "wb");
  if (out == NULL) {
    fprintf(stderr, "capi_predict: cannot write %s\n", argv[5]);
    return 1;
  }
  for (uint32_t i = 0; i < n_out; ++i) {
    uint32_t out_ndim = 0;
    const int64_t *out_shape = NULL;
    if (QvNDArrayGetShape(outputs[i], &out_ndim, &out_shape) != QV_OK) return fail("output shape");
    size_t out_count = 1;
    for (uint32_t d = 0; d < out_ndim; ++d) out_count *= (size_t)out_shape[d];
    float *values = malloc((out_count > 0 ? out_count : 1) * sizeof *values);
    if (QvNDArraySyncCopyToCPU(outputs[i], values, out_count * sizeof *values) != QV_OK) return fail("output");
    fwrite(values, sizeof *values, out_count, out);
    free(values);
    QvNDArrayFree(outputs[i]);
  }
  fclose(out);
  QvNDArrayFree(data);
  QvFreeCachedOp(op);
  free(input);
  return 0;
}
