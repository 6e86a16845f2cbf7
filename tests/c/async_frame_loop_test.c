/* A C program's frame loop: build a small CNN from an inline JSON string and random parameters made
 * through the API, submit frames with at most MAX_IN_FLIGHT in flight, poll QvNDArrayCanRead without
 * blocking, collect results in submission order and compare each with a synchronous run of that frame.
 * Usage: async_frame_loop_test <path to libquiver.so> <fixtures dir> */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "qv_api_table.h"
#include "quiver/c_api.h"

#define FRAMES 48
#define MAX_IN_FLIGHT 4
#define CLASSES 10
#define FRAME_H 32
#define FRAME_W 32
#define FRAME_ELEMS (3 * FRAME_H * FRAME_W)
#define POLL_LIMIT_MS 50.0
#define LOOP_LIMIT_S 60.0

/* data -> conv0/bn0/relu0 -> conv1/bn1 -> add(relu0) -> relu -> global avg pool -> flatten -> fc0 -> softmax */
static const char kSymbolJson[] =
    "{\"nodes\": ["
    "{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"conv0_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"conv0_bias\", \"inputs\": []},"
    "{\"op\": \"Convolution\", \"name\": \"conv0\","
    " \"attrs\": {\"kernel\": \"(3, 3)\", \"num_filter\": \"8\", \"pad\": \"(1, 1)\"},"
    " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"bn0_gamma\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"bn0_beta\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"bn0_moving_mean\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"bn0_moving_var\", \"inputs\": []},"
    "{\"op\": \"BatchNorm\", \"name\": \"bn0\", \"attrs\": {\"eps\": \"1e-05\", \"fix_gamma\": \"False\"},"
    " \"inputs\": [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0], [7, 0, 0]]},"
    "{\"op\": \"Activation\", \"name\": \"relu0\", \"attrs\": {\"act_type\": \"relu\"}, \"inputs\": [[8, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"conv1_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"conv1_bias\", \"inputs\": []},"
    "{\"op\": \"Convolution\", \"name\": \"conv1\","
    " \"attrs\": {\"kernel\": \"(3, 3)\", \"num_filter\": \"8\", \"pad\": \"(1, 1)\"},"
    " \"inputs\": [[9, 0, 0], [10, 0, 0], [11, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"bn1_gamma\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"bn1_beta\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"bn1_moving_mean\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"bn1_moving_var\", \"inputs\": []},"
    "{\"op\": \"BatchNorm\", \"name\": \"bn1\", \"attrs\": {\"eps\": \"1e-05\", \"fix_gamma\": \"False\"},"
    " \"inputs\": [[12, 0, 0], [13, 0, 0], [14, 0, 0], [15, 0, 0], [16, 0, 0]]},"
    "{\"op\": \"elemwise_add\", \"name\": \"add0\", \"inputs\": [[17, 0, 0], [9, 0, 0]]},"
    "{\"op\": \"relu\", \"name\": \"relu1\", \"inputs\": [[18, 0, 0]]},"
    "{\"op\": \"Pooling\", \"name\": \"pool0\","
    " \"attrs\": {\"global_pool\": \"True\", \"kernel\": \"(1, 1)\", \"pool_type\": \"avg\"},"
    " \"inputs\": [[19, 0, 0]]},"
    "{\"op\": \"Flatten\", \"name\": \"flatten0\", \"inputs\": [[20, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"fc0_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc0_bias\", \"inputs\": []},"
    "{\"op\": \"FullyConnected\", \"name\": \"fc0\", \"attrs\": {\"num_hidden\": \"10\"},"
    " \"inputs\": [[21, 0, 0], [22, 0, 0], [23, 0, 0]]},"
    "{\"op\": \"softmax\", \"name\": \"softmax0\", \"attrs\": {\"axis\": \"-1\"}, \"inputs\": [[24, 0, 0]]}"
    "],"
    "\"arg_nodes\": [0, 1, 2, 4, 5, 6, 7, 10, 11, 13, 14, 15, 16, 22, 23],"
    "\"node_row_ptr\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25, 26, 27, 28,"
    " 29, 30],"
    "\"heads\": [[25, 0, 0]],"
    "\"attrs\": {\"mxnet_version\": [\"int\", 10901]}}";

typedef struct {
  const char *name;
  uint32_t ndim;
  int64_t shape[4];
  float lo, hi;
} ParamSpec;

/* Names without "arg:"/"aux:" prefixes, which the API accepts as well. */
static const ParamSpec kParams[] = {
    {"conv0_weight", 4, {8, 3, 3, 3}, -0.4f, 0.4f},  {"conv0_bias", 1, {8, 0, 0, 0}, -0.1f, 0.1f},
    {"bn0_gamma", 1, {8, 0, 0, 0}, 0.5f, 1.5f},      {"bn0_beta", 1, {8, 0, 0, 0}, -0.1f, 0.1f},
    {"bn0_moving_mean", 1, {8, 0, 0, 0}, -0.1f, 0.1f}, {"bn0_moving_var", 1, {8, 0, 0, 0}, 0.5f, 1.5f},
    {"conv1_weight", 4, {8, 8, 3, 3}, -0.4f, 0.4f},  {"conv1_bias", 1, {8, 0, 0, 0}, -0.1f, 0.1f},
    {"bn1_gamma", 1, {8, 0, 0, 0}, 0.5f, 1.5f},      {"bn1_beta", 1, {8, 0, 0, 0}, -0.1f, 0.1f},
    {"bn1_moving_mean", 1, {8, 0, 0, 0}, -0.1f, 0.1f}, {"bn1_moving_var", 1, {8, 0, 0, 0}, 0.5f, 1.5f},
    {"fc0_weight", 2, {CLASSES, 8, 0, 0}, -0.4f, 0.4f}, {"fc0_bias", 1, {CLASSES, 0, 0, 0}, -0.1f, 0.1f},
};
#define NUM_PARAMS (sizeof kParams / sizeof kParams[0])

static Api api;

/* Reports a failed call and makes main fail. */
static int ok_call(int status, const char *what) {
  if (status == QV_OK) return 1;
  fprintf(stderr, "%s failed with status %d: %s\n", what, status, api.GetLastError());
  return 0;
}

static uint32_t g_rng = 12345u;

static float next_uniform(float lo, float hi) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return lo + (hi - lo) * (float)(g_rng >> 8) / 16777216.0f;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void pause_briefly(void) {
  struct timespec ts = {0, 100000}; /* 0.1 ms */
  nanosleep(&ts, NULL);
}

/* A new float32 CPU array of `shape` filled with `values`; NULL on failure. */
static QvNDArrayHandle make_array(const int64_t *shape, uint32_t ndim, const float *values, size_t count) {
  QvNDArrayHandle a = NULL;
  if (!ok_call(api.NDArrayCreate(shape, ndim, QV_CPU, 0, QV_FLOAT32, &a), "QvNDArrayCreate")) return NULL;
  if (!ok_call(api.NDArraySyncCopyFromCPU(a, values, count * sizeof(float)), "QvNDArraySyncCopyFromCPU")) {
    api.NDArrayFree(a);
    return NULL;
  }
  return a;
}

static QvCachedOpHandle build_model(void) {
  static float values[8 * 8 * 3 * 3];
  QvNDArrayHandle arrays[NUM_PARAMS];
  const char *names[NUM_PARAMS];
  const char *keys[1] = {"max_inflight"};
  const char *vals[1] = {"8"};
  QvSymbolHandle sym = NULL;
  QvCachedOpHandle op = NULL;
  size_t i, j, made = 0;
  int ok = 1;

  for (i = 0; i < NUM_PARAMS && ok; ++i) {
    size_t count = 1;
    for (j = 0; j < kParams[i].ndim; ++j) count *= (size_t)kParams[i].shape[j];
    for (j = 0; j < count; ++j) values[j] = next_uniform(kParams[i].lo, kParams[i].hi);
    names[i] = kParams[i].name;
    arrays[i] = make_array(kParams[i].shape, kParams[i].ndim, values, count);
    ok = arrays[i] != NULL;
    if (ok) ++made;
  }
  if (ok) ok = ok_call(api.SymbolCreateFromJSON(kSymbolJson, &sym), "QvSymbolCreateFromJSON");
  if (ok)
    ok = ok_call(api.CreateCachedOpEx(sym, (uint32_t)NUM_PARAMS, names, arrays, 1, keys, vals, &op, 1),
                 "QvCreateCachedOpEx");
  /* The op keeps its own copy of the parameters. */
  if (sym != NULL) api.SymbolFree(sym);
  for (i = 0; i < made; ++i) api.NDArrayFree(arrays[i]);
  return ok ? op : NULL;
}

/* Submits one frame; its single output in *out. */
static int submit(QvCachedOpHandle op, QvNDArrayHandle frame, QvNDArrayHandle *out) {
  uint32_t n = 0;
  QvNDArrayHandle *outputs = NULL;
  if (!ok_call(api.InvokeAsync(op, 1, &frame, &n, &outputs), "QvInvokeAsync")) return 0;
  if (n != 1) {
    fprintf(stderr, "expected 1 output, got %u\n", n);
    return 0;
  }
  *out = outputs[0];
  return 1;
}

int main(int argc, char **argv) {
  static float frame_data[FRAME_ELEMS];
  static float expected[FRAMES][CLASSES];
  const int64_t frame_shape[4] = {1, 3, FRAME_H, FRAME_W};
  QvNDArrayHandle frames[FRAMES];
  QvNDArrayHandle pending[FRAMES];
  QvCachedOpHandle op;
  int f, i, submitted = 0, collected = 0, passed = 0, failed = 0, in_flight_polls = 0, max_in_flight = 0;
  double slowest_poll = 0.0, start;

  if (argc < 2) {
    fprintf(stderr, "usage: %s <libquiver.so> [fixtures dir]\n", argv[0]);
    return 2;
  }
  if (!open_api(argv[1], &api)) return 1;
  op = build_model();
  if (op == NULL) return 1;

  /* The frames, and each one's result from a synchronous run. */
  for (f = 0; f < FRAMES; ++f) {
    QvNDArrayHandle out = NULL;
    for (i = 0; i < FRAME_ELEMS; ++i) frame_data[i] = next_uniform(-1.0f, 1.0f);
    frames[f] = make_array(frame_shape, 4, frame_data, FRAME_ELEMS);
    if (frames[f] == NULL || !submit(op, frames[f], &out)) return 1;
    if (!ok_call(api.NDArrayWaitToRead(out), "QvNDArrayWaitToRead") ||
        !ok_call(api.NDArraySyncCopyToCPU(out, expected[f], sizeof expected[f]), "QvNDArraySyncCopyToCPU"))
      return 1;
    api.NDArrayFree(out);
  }

  /* The loop: keep up to MAX_IN_FLIGHT frames submitted, collect the oldest once CanRead says so. */
  start = now_ms();
  while (collected < FRAMES) {
    int ready = -1;
    double t0, took;
    if (now_ms() - start > LOOP_LIMIT_S * 1e3) {
      fprintf(stderr, "frame loop did not finish in %.0f s (%d of %d collected)\n", LOOP_LIMIT_S, collected, FRAMES);
      return 1;
    }
    while (submitted < FRAMES && submitted - collected < MAX_IN_FLIGHT) {
      if (!submit(op, frames[submitted], &pending[submitted])) return 1;
      ++submitted;
    }
    if (submitted - collected > max_in_flight) max_in_flight = submitted - collected;
    t0 = now_ms();
    if (!ok_call(api.NDArrayCanRead(pending[collected], &ready), "QvNDArrayCanRead")) return 1;
    took = now_ms() - t0;
    if (took > slowest_poll) slowest_poll = took;
    if (!ready) {
      ++in_flight_polls;
      pause_briefly();
      continue;
    }
    {
      float got[CLASSES];
      if (!ok_call(api.NDArraySyncCopyToCPU(pending[collected], got, sizeof got), "QvNDArraySyncCopyToCPU"))
        return 1;
      if (memcmp(got, expected[collected], sizeof got) == 0) {
        ++passed;
      } else {
        ++failed;
        fprintf(stderr, "frame %d: result differs from the synchronous run (first value %g vs %g)\n", collected,
                (double)got[0], (double)expected[collected][0]);
      }
      api.NDArrayFree(pending[collected]);
      ++collected;
    }
  }
  if (slowest_poll >= POLL_LIMIT_MS) {
    fprintf(stderr, "a QvNDArrayCanRead call took %.2f ms (limit %.0f ms)\n", slowest_poll, POLL_LIMIT_MS);
    ++failed;
  }
  if (max_in_flight != MAX_IN_FLIGHT) {
    fprintf(stderr, "expected up to %d frames in flight, saw %d\n", MAX_IN_FLIGHT, max_in_flight);
    ++failed;
  }

  for (f = 0; f < FRAMES; ++f) api.NDArrayFree(frames[f]);
  if (!ok_call(api.FreeCachedOp(op), "QvFreeCachedOp")) ++failed;
  if (!ok_call(api.WaitAll(), "QvWaitAll")) ++failed;
  printf("frame loop: %d frames, up to %d in flight, %d polls found work pending, slowest poll %.3f ms\n", FRAMES,
         max_in_flight, in_flight_polls, slowest_poll);
  printf("%d passed, %d failed\n", passed, failed);
  /* No dlclose: the runtime's worker threads live until the process exits. */
  return failed == 0 ? 0 : 1;
}
