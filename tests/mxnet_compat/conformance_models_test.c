/* The conformance fixtures (tests/conformance/make_fixtures.sh) through MXNet's C predict API: for every
 * classifier in the set's manifest.json and every case of it, one MXPredCreate for the case's input
 * shape, its input .npy set, one forward, and every output read back, held to the fixture's reference
 * output and (second run) to MXNet's run within 1e-4 x output scale.
 *   conformance_models_test CONFORMANCE_DIR
 * Detectors (GluonCV SSDs) are listed and not compared here: their outputs are detections after
 * non-maximum suppression, which two float32 runs may order or cut off differently, so they are
 * matched detection by detection in tests/conformance/test_conformance.py instead. So are the
 * segmentation models: their dilated ResNet-50s end further than 1e-4 from MXNet's float32 result in
 * float32 itself, and tests/conformance holds them to twice MXNet's own error instead. */
/* MXNet's header uses uint32_t and bool without including their headers. */
#include <stdbool.h>
#include <stdint.h>

#include <mxnet/c_predict_api.h>

#include "compat_test_support.h"

#define MAX_DIMS 8
#define MAX_OUTPUTS 8
#define MAX_CASES 16
#define NAME_SIZE 256

typedef struct {
  char input[NAME_SIZE];
  char outputs[MAX_OUTPUTS][NAME_SIZE];
  int num_outputs;
} Case;

typedef struct {
  char prefix[NAME_SIZE];
  char task[NAME_SIZE];
  Case cases[MAX_CASES];
  int num_cases;
} ModelEntry;

/* Whether a .npy file's header says float32 (an unreadable one is left to read_npy to report). */
static int is_float32_npy(const char *dir, const char *name) {
  char path[4096];
  char header[256] = {0};
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return 1;
  const size_t n = fread(header, 1, sizeof header - 1, f);
  fclose(f);
  for (size_t i = 0; i < n; ++i)
    if (header[i] == '\0') header[i] = ' ';
  return strstr(header, "'descr':") == NULL || strstr(header, "'descr': '<f4'") != NULL;
}

/* A float32, C-order .npy file: its data (malloc'd) and shape, or NULL with the failure counted. */
static float *read_npy(const char *dir, const char *name, uint32_t *shape, uint32_t *ndim, size_t *count) {
  char path[4096];
  long size = 0;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *bytes = read_file(path, &size);
  if (!bytes) return NULL;
  const unsigned char *u = (const unsigned char *)bytes;
  size_t header_len = 0, data_at = 0;
  if (size >= 10 && memcmp(bytes, "\x93NUMPY", 6) == 0 && u[6] == 1) {
    header_len = (size_t)u[8] | (size_t)u[9] << 8;
    data_at = 10;
  } else if (size >= 12 && memcmp(bytes, "\x93NUMPY", 6) == 0 && (u[6] == 2 || u[6] == 3)) {
    header_len = (size_t)u[8] | (size_t)u[9] << 8 | (size_t)u[10] << 16 | (size_t)u[11] << 24;
    data_at = 12;
  } else {
    EXPECT(0, "%s: not a .npy file (version 1-3)", path);
    free(bytes);
    return NULL;
  }
  if (data_at + header_len > (size_t)size) {
    EXPECT(0, "%s: header runs past the end", path);
    free(bytes);
    return NULL;
  }
  /* The header is a Python dict literal; it is NUL-terminated for strstr at its end. */
  char *header = bytes + data_at;
  const char saved = header[header_len];
  header[header_len] = '\0';
  const char *shape_at = strstr(header, "'shape':");
  int ok = strstr(header, "'descr': '<f4'") != NULL && strstr(header, "'fortran_order': False") != NULL &&
           shape_at != NULL;
  *ndim = 0;
  *count = 1;
  if (ok) {
    const char *s = strchr(shape_at, '(');
    ok = s != NULL;
    while (ok && *++s != ')') {
      if (*s == ' ' || *s == ',') continue;
      char *end = NULL;
      unsigned long d = strtoul(s, &end, 10);
      ok = end != s && *ndim < MAX_DIMS;
      if (ok) {
        shape[(*ndim)++] = (uint32_t)d;
        *count *= d;
        s = end - 1;
      }
    }
  }
  header[header_len] = saved;
  const size_t data_bytes = (size_t)size - data_at - header_len;
  if (!ok || data_bytes != *count * sizeof(float)) {
    EXPECT(0, "%s: not a C-order float32 array whose data matches its shape (%zu data bytes)", path, data_bytes);
    free(bytes);
    return NULL;
  }
  float *data = (float *)malloc(data_bytes ? data_bytes : 1);
  if (data) memcpy(data, bytes + data_at + header_len, data_bytes);
  free(bytes);
  return data;
}

static void shape_text(const uint32_t *shape, uint32_t ndim, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d < ndim && used < size; ++d)
    used += (size_t)snprintf(out + used, size - used, d ? "x%u" : "%u", shape[d]);
}

/* Holds one model's cases: predictor per case, every output against the fixture and MXNet's run. */
static void run_model(const char *dir, const ModelEntry *m, double *worst_fixture, double *worst_mxnet) {
  char path[4096];
  long params_size = 0;
  snprintf(path, sizeof path, "%s/%s-symbol.json", dir, m->prefix);
  char *json = read_file(path, NULL);
  snprintf(path, sizeof path, "%s/%s-0000.params", dir, m->prefix);
  char *params = read_file(path, &params_size);
  EXPECT(m->num_cases > 0, "%s: no cases in the manifest", m->prefix);
  for (int c = 0; json && params && c < m->num_cases; ++c) {
    const Case *k = &m->cases[c];
    uint32_t in_shape[MAX_DIMS], in_ndim = 0;
    size_t in_count = 0;
    if (!is_float32_npy(dir, k->input)) {  /* a typed (integer) input: MXPredSetInput takes float32 */
      printf("%s %s: input not float32, not compared here (tests/conformance compares it)\n", m->prefix, k->input);
      continue;
    }
    float *in = read_npy(dir, k->input, in_shape, &in_ndim, &in_count);
    if (!in) continue;
    char shape_name[128];
    shape_text(in_shape, in_ndim, shape_name, sizeof shape_name);
    const char *keys[1] = {"data"};
    const uint32_t indptr[2] = {0, in_ndim};
    PredictorHandle p = NULL;
    int rc = MXPredCreate(json, params, (int)params_size, 1, 0, 1, keys, indptr, in_shape, &p);
    EXPECT(rc == 0, "%s: MXPredCreate %s: %s", m->prefix, shape_name, MXGetLastError());
    if (rc == 0) {
      EXPECT(MXPredSetInput(p, "data", in, (uint32_t)in_count) == 0, "%s %s: SetInput: %s", m->prefix, shape_name,
             MXGetLastError());
      EXPECT(MXPredForward(p) == 0, "%s %s: Forward: %s", m->prefix, shape_name, MXGetLastError());
      for (int o = 0; o < k->num_outputs; ++o) {
        uint32_t want_shape[MAX_DIMS], want_ndim = 0, *got_shape = NULL, got_ndim = 0;
        size_t want_count = 0;
        float *want = read_npy(dir, k->outputs[o], want_shape, &want_ndim, &want_count);
        rc = MXPredGetOutputShape(p, (uint32_t)o, &got_shape, &got_ndim);
        EXPECT(rc == 0, "%s %s: GetOutputShape %d: %s", m->prefix, shape_name, o, MXGetLastError());
        if (rc != 0 || !want) {
          free(want);
          continue;
        }
        int same_shape = got_ndim == want_ndim;
        for (uint32_t d = 0; same_shape && d < got_ndim; ++d) same_shape = got_shape[d] == want_shape[d];
        char got_text[128], want_text[128];
        shape_text(got_shape, got_ndim, got_text, sizeof got_text);
        shape_text(want_shape, want_ndim, want_text, sizeof want_text);
        EXPECT(same_shape, "%s %s output %d: shape %s, the fixture's %s", m->prefix, shape_name, o, got_text,
               want_text);
        float *got = (float *)calloc(want_count ? want_count : 1, sizeof(float));
        if (same_shape && got) {
          EXPECT(MXPredGetOutput(p, (uint32_t)o, got, (uint32_t)want_count) == 0, "%s %s: GetOutput %d: %s",
                 m->prefix, shape_name, o, MXGetLastError());
          char what[512];
          snprintf(what, sizeof what, "%s %s output %d against the fixture", m->prefix, shape_name, o);
          const double fixture = expect_close(what, got, want, want_count);
          char saved_name[300];
          snprintf(saved_name, sizeof saved_name, "conformance_%.200s_%.60s_out%d", m->prefix, shape_name, o);
          const double mxnet = save_or_compare(saved_name, got, want_count);
          printf("  %s %s output %d (%s): max |diff| / scale %.3g against the fixture", m->prefix, shape_name, o,
                 got_text, fixture);
          if (mxnet >= 0) printf(", %.3g against MXNet's run", mxnet);
          printf("\n");
          if (!(fixture <= *worst_fixture)) *worst_fixture = fixture;
          if (mxnet >= 0 && !(mxnet <= *worst_mxnet)) *worst_mxnet = mxnet;
        }
        free(got);
        free(want);
      }
      EXPECT(MXPredFree(p) == 0, "%s: MXPredFree: %s", m->prefix, MXGetLastError());
    }
    free(in);
  }
  free(json);
  free(params);
}

/* The next JSON string token at or after *at, copied into out; *at moves past it. */
static int next_string(const char **at, char *out, size_t size) {
  const char *s = strchr(*at, '"');
  if (!s) return 0;
  const char *e = s + 1;
  while (*e && *e != '"') e += (*e == '\\' && e[1]) ? 2 : 1;
  if (*e != '"') return 0;
  size_t n = (size_t)(e - s - 1);
  if (n >= size) n = size - 1;
  memcpy(out, s + 1, n);
  out[n] = '\0';
  *at = e + 1;
  return 1;
}

/* Walks manifest.json ({"models": [{"prefix", "task", "cases": [{"input", "outputs": [...]}]}]}),
 * by nesting depth rather than key order, and runs each model as its object closes. */
static int run_manifest(const char *dir, const char *text, int *classifiers) {
  static ModelEntry model;
  const char *at = text;
  int depth = 0, models_seen = 0;
  char key[NAME_SIZE] = "", list_key[NAME_SIZE] = "";
  Case *current = NULL;
  while (*at) {
    const char ch = *at;
    if (ch == '"') {
      char token[NAME_SIZE];
      if (!next_string(&at, token, sizeof token)) break;
      const char *after = at;
      while (*after == ' ' || *after == '\n' || *after == '\t' || *after == '\r') ++after;
      if (*after == ':') {
        snprintf(key, sizeof key, "%s", token);
        continue;
      }
      /* A string value: depth 3 is a model object, 5 a case object, 6 a case's outputs array. */
      if (depth == 3 && strcmp(key, "prefix") == 0) snprintf(model.prefix, sizeof model.prefix, "%s", token);
      if (depth == 3 && strcmp(key, "task") == 0) snprintf(model.task, sizeof model.task, "%s", token);
      if (depth == 5 && current && strcmp(key, "input") == 0)
        snprintf(current->input, sizeof current->input, "%s", token);
      if (depth == 6 && current && strcmp(key, "outputs") == 0 && current->num_outputs < MAX_OUTPUTS)
        snprintf(current->outputs[current->num_outputs++], NAME_SIZE, "%s", token);
      continue;
    }
    if (ch == '{' || ch == '[') {
      ++depth;
      if (depth == 3 && ch == '{') memset(&model, 0, sizeof model);
      if (depth == 4) snprintf(list_key, sizeof list_key, "%s", key);  /* "cases", or "refused" (no input) */
      if (depth == 5 && ch == '{' && strcmp(list_key, "cases") == 0) {
        EXPECT(model.num_cases < MAX_CASES, "%s: more than %d cases", model.prefix, MAX_CASES);
        current = model.num_cases < MAX_CASES ? &model.cases[model.num_cases++] : NULL;
      }
    } else if (ch == '}' || ch == ']') {
      if (depth == 5 && ch == '}') current = NULL;
      if (depth == 3 && ch == '}') {
        ++models_seen;
        if (strcmp(model.task, "classification") == 0) {
          double worst_fixture = 0, worst_mxnet = 0;
          ++*classifiers;
          printf("%s (%d cases):\n", model.prefix, model.num_cases);
          run_model(dir, &model, &worst_fixture, &worst_mxnet);
          printf("%s: worst max |diff| / scale %.3g against the fixtures", model.prefix, worst_fixture);
          if (getenv("MXC_COMPARE_DIR")) printf(", %.3g against MXNet's run", worst_mxnet);
          printf("\n");
        } else {
          printf("%s: task '%s', not compared here (tests/conformance compares it)\n", model.prefix, model.task);
        }
      }
      --depth;
    }
    ++at;
  }
  EXPECT(depth == 0, "manifest.json: unbalanced brackets (depth %d at the end)", depth);
  return models_seen;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CONFORMANCE_DIR\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest.json", argv[1]);
  char *manifest = read_file(path, NULL);
  int classifiers = 0;
  if (manifest) {
    const int models = run_manifest(argv[1], manifest, &classifiers);
    printf("%d models in %s, %d classifiers compared\n", models, path, classifiers);
    EXPECT(classifiers > 0, "no classification model in %s", path);
  }
  free(manifest);
  return summary("conformance_models_test");
}
