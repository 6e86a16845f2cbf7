/* MXNet's C predict API as a C program written for MXNet uses it: one predictor, reshape, partial
 * outputs, the NDArray list, and what bad files and bad shapes must do (return -1 with a message).
 *   predict_test FIXTURES_DIR */
/* MXNet's header uses uint32_t and bool without including their headers. */
#include <stdbool.h>
#include <stdint.h>

#include <mxnet/c_predict_api.h>

#include "compat_test_support.h"

typedef struct {
  char *json;
  char *params;
  long params_size;
} Model;

static int load_model(const char *dir, const char *name, Model *m) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-symbol.json", dir, name);
  m->json = read_file(path, NULL);
  snprintf(path, sizeof path, "%s/%s-0000.params", dir, name);
  m->params = read_file(path, &m->params_size);
  return m->json && m->params;
}

static void free_model(Model *m) {
  free(m->json);
  free(m->params);
}

/* A predictor for input "data" of shape (n, c, h, w), or NULL with the failure counted. */
static PredictorHandle create(const Model *m, uint32_t n, uint32_t c, uint32_t h, uint32_t w) {
  const char *keys[1] = {"data"};
  const uint32_t indptr[2] = {0, 4};
  const uint32_t shape[4] = {n, c, h, w};
  PredictorHandle p = NULL;
  int rc = MXPredCreate(m->json, m->params, (int)m->params_size, 1, 0, 1, keys, indptr, shape, &p);
  EXPECT(rc == 0, "MXPredCreate (%u,%u,%u,%u): %s", n, c, h, w, MXGetLastError());
  return rc == 0 ? p : NULL;
}

/* Runs p on the fixture input of `shape_text` and holds output 0 to MXNet's reference. */
static void run_case(PredictorHandle p, const char *dir, const char *model, const char *shape_text, size_t in_count,
                     uint32_t batch) {
  char name[256];
  snprintf(name, sizeof name, "%s-in-%s.f32", model, shape_text);
  float *in = read_floats(dir, name, in_count);
  snprintf(name, sizeof name, "%s-out-%s.f32", model, shape_text);
  float *want = read_floats(dir, name, (size_t)batch * 1000);
  float *got = (float *)calloc((size_t)batch * 1000, sizeof(float));
  uint32_t *shape = NULL, ndim = 0;
  if (p && in && want) {
    EXPECT(MXPredSetInput(p, "data", in, (uint32_t)in_count) == 0, "SetInput: %s", MXGetLastError());
    EXPECT(MXPredForward(p) == 0, "Forward: %s", MXGetLastError());
    EXPECT(MXPredGetOutputShape(p, 0, &shape, &ndim) == 0, "GetOutputShape: %s", MXGetLastError());
    EXPECT(ndim == 2 && shape[0] == batch && shape[1] == 1000, "output shape of %s %s: ndim %u", model, shape_text,
           ndim);
    EXPECT(MXPredGetOutput(p, 0, got, batch * 1000) == 0, "GetOutput: %s", MXGetLastError());
    snprintf(name, sizeof name, "%s %s", model, shape_text);
    expect_close(name, got, want, (size_t)batch * 1000);
    snprintf(name, sizeof name, "predict_%s_%s", model, shape_text);
    save_or_compare(name, got, (size_t)batch * 1000);
  }
  free(in);
  free(want);
  free(got);
}

static void test_single_and_reshape(const char *dir) {
  Model m;
  if (!load_model(dir, "resnet18_v1", &m)) return;
  PredictorHandle p = create(&m, 1, 3, 224, 224);
  run_case(p, dir, "resnet18_v1", "1x3x224x224", 3 * 224 * 224, 1);
  int dtype = -1;
  EXPECT(p && MXPredGetOutputType(p, 0, &dtype) == 0 && dtype == 0, "GetOutputType: dtype %d", dtype);

  /* Reshape keeps the parameters and changes the input: batch 4, then a smaller image. */
  const char *keys[1] = {"data"};
  const uint32_t indptr[2] = {0, 4};
  const uint32_t b4[4] = {4, 3, 224, 224}, s160[4] = {2, 3, 160, 160};
  PredictorHandle r4 = NULL, r160 = NULL;
  EXPECT(p && MXPredReshape(1, keys, indptr, b4, p, &r4) == 0, "Reshape to batch 4: %s", MXGetLastError());
  if (r4) run_case(r4, dir, "resnet18_v1", "4x3x224x224", 4 * 3 * 224 * 224, 4);
  EXPECT(p && MXPredReshape(1, keys, indptr, s160, p, &r160) == 0, "Reshape to 160x160: %s", MXGetLastError());
  if (r160) run_case(r160, dir, "resnet18_v1", "2x3x160x160", 2 * 3 * 160 * 160, 2);
  /* The original handle still runs its own shape. */
  run_case(p, dir, "resnet18_v1", "1x3x224x224", 3 * 224 * 224, 1);
  if (r4) MXPredFree(r4);
  if (r160) MXPredFree(r160);
  if (p) EXPECT(MXPredFree(p) == 0, "MXPredFree: %s", MXGetLastError());

  /* ResNet-50 v2, one predictor. */
  Model m50;
  if (load_model(dir, "resnet50_v2", &m50)) {
    PredictorHandle p50 = create(&m50, 1, 3, 224, 224);
    run_case(p50, dir, "resnet50_v2", "1x3x224x224", 3 * 224 * 224, 1);
    if (p50) MXPredFree(p50);
  }
  free_model(&m50);
  free_model(&m);
}

/* Internal outputs by node name: the global pool and the classifier at once. */
static void test_partial_out(const char *dir) {
  Model m;
  if (!load_model(dir, "resnet18_v1", &m)) return;
  const char *keys[1] = {"data"};
  const uint32_t indptr[2] = {0, 4};
  const uint32_t shape[4] = {1, 3, 224, 224};
  const char *outs[2] = {"resnetv10_pool1_fwd", "resnetv10_stage1_activation0"};
  PredictorHandle p = NULL;
  int rc = MXPredCreatePartialOut(m.json, m.params, (int)m.params_size, 1, 0, 1, keys, indptr, shape, 2, outs, &p);
  EXPECT(rc == 0, "MXPredCreatePartialOut: %s", MXGetLastError());
  float *in = read_floats(dir, "resnet18_v1-in-1x3x224x224.f32", 3 * 224 * 224);
  if (p && in) {
    EXPECT(MXPredSetInput(p, "data", in, 3 * 224 * 224) == 0, "SetInput: %s", MXGetLastError());
    /* MXNet's step loop: it must end with the outputs computed. */
    int step_left = 1, steps = 0;
    for (int step = 0; step_left > 0 && steps < 10000; ++step, ++steps)
      EXPECT(MXPredPartialForward(p, step, &step_left) == 0, "PartialForward: %s", MXGetLastError());
    uint32_t *s = NULL, ndim = 0;
    EXPECT(MXPredGetOutputShape(p, 0, &s, &ndim) == 0 && ndim == 4 && s[0] == 1 && s[1] == 512 && s[2] == 1 &&
               s[3] == 1,
           "pool output shape: %s", MXGetLastError());
    float pool[512];
    EXPECT(MXPredGetOutput(p, 0, pool, 512) == 0, "GetOutput 0: %s", MXGetLastError());
    save_or_compare("partial_pool1", pool, 512);
    EXPECT(MXPredGetOutputShape(p, 1, &s, &ndim) == 0 && ndim == 4 && s[1] == 64 && s[2] == 56,
           "stage1 output shape: %s", MXGetLastError());
    float *act = (float *)malloc(64 * 56 * 56 * sizeof(float));
    EXPECT(MXPredGetOutput(p, 1, act, 64 * 56 * 56) == 0, "GetOutput 1: %s", MXGetLastError());
    save_or_compare("partial_stage1_activation0", act, 64 * 56 * 56);
    free(act);
  }
  const char *missing[1] = {"no_such_layer"};
  PredictorHandle bad = NULL;
  rc = MXPredCreatePartialOut(m.json, m.params, (int)m.params_size, 1, 0, 1, keys, indptr, shape, 1, missing, &bad);
  EXPECT(rc == -1 && strstr(MXGetLastError(), "no_such_layer"), "an unknown output key: rc %d, '%s'", rc,
         MXGetLastError());
  free(in);
  if (p) MXPredFree(p);
  free_model(&m);
}

/* Bad files and bad shapes fail with -1 and a message; the process goes on. */
static void expect_failure(int rc, const char *what) {
  const char *msg = MXGetLastError();
  EXPECT(rc == -1 && msg && msg[0], "%s: rc %d, message '%s'", what, rc, msg ? msg : "(null)");
}

static void test_errors(const char *dir) {
  Model m;
  if (!load_model(dir, "resnet18_v1", &m)) return;
  const char *keys[1] = {"data"};
  const uint32_t indptr[2] = {0, 4}, indptr3[2] = {0, 3};
  const uint32_t good[4] = {1, 3, 224, 224}, channels[4] = {1, 5, 224, 224};
  PredictorHandle p = NULL;

  expect_failure(MXPredCreate(m.json, m.params, (int)(m.params_size / 3), 1, 0, 1, keys, indptr, good, &p),
                 "truncated parameters");
  expect_failure(MXPredCreate("{\"nodes\": [", m.params, (int)m.params_size, 1, 0, 1, keys, indptr, good, &p),
                 "truncated symbol JSON");
  expect_failure(MXPredCreate(m.json, m.params, (int)m.params_size, 1, 0, 1, keys, indptr, channels, &p),
                 "5 input channels for a 3-channel network");
  expect_failure(MXPredCreate(m.json, m.params, (int)m.params_size, 1, 0, 1, keys, indptr3, good, &p),
                 "a 3-D input for a 2-D convolution");

  p = NULL;
  EXPECT(MXPredCreate(m.json, m.params, (int)m.params_size, 1, 0, 1, keys, indptr, good, &p) == 0, "create: %s",
         MXGetLastError());
  if (p) {
    float small[10] = {0}, out[1000];
    expect_failure(MXPredSetInput(p, "data", small, 10), "an input of the wrong size");
    expect_failure(MXPredSetInput(p, "no_such_input", small, 10), "an unknown input key");
    EXPECT(MXPredForward(p) == 0, "forward after the failures: %s", MXGetLastError());
    expect_failure(MXPredGetOutput(p, 0, out, 999), "an output buffer of the wrong size");
    expect_failure(MXPredGetOutput(p, 7, out, 1000), "an output index out of range");
    EXPECT(MXPredGetOutput(p, 0, out, 1000) == 0, "the predictor still works: %s", MXGetLastError());
    MXPredFree(p);
  }

  uint32_t n = 0;
  NDListHandle list = NULL;
  expect_failure(MXNDListCreate(m.params, (int)(m.params_size / 2), &list, &n), "a truncated NDArray list");
  free_model(&m);
}

/* The NDArray list reads the digits model's parameters. */
static void test_nd_list(const char *dir) {
  char path[4096];
  long size = 0;
  snprintf(path, sizeof path, "%s/digits_cnn-0000.params", dir);
  char *bytes = read_file(path, &size);
  if (!bytes) return;
  NDListHandle list = NULL;
  uint32_t n = 0;
  EXPECT(MXNDListCreate(bytes, (int)size, &list, &n) == 0 && n > 0, "MXNDListCreate: %s", MXGetLastError());
  for (uint32_t i = 0; list && i < n; ++i) {
    const char *key = NULL;
    const float *data = NULL;
    const uint32_t *shape = NULL;
    uint32_t ndim = 0;
    EXPECT(MXNDListGet(list, i, &key, &data, &shape, &ndim) == 0, "MXNDListGet %u: %s", i, MXGetLastError());
    size_t count = 1;
    for (uint32_t d = 0; d < ndim; ++d) count *= shape[d];
    char name[300];
    snprintf(name, sizeof name, "ndlist_%u", i);
    save_or_compare(name, data, count);
    EXPECT(key && (strncmp(key, "arg:", 4) == 0 || strncmp(key, "aux:", 4) == 0), "key %u: '%s'", i, key);
  }
  if (list) EXPECT(MXNDListFree(list) == 0, "MXNDListFree: %s", MXGetLastError());
  free(bytes);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
    return 2;
  }
  test_single_and_reshape(argv[1]);
  test_partial_out(argv[1]);
  test_errors(argv[1]);
  test_nd_list(argv[1]);
  return summary("predict_test");
}
