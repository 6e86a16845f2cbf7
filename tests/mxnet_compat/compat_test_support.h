/* Shared by the programs of tests/mxnet_compat, which are compiled against MXNet 1.9.1's own headers
 * and linked with -lmxnet, then run once on MXNet's libmxnet.so and once on Quiver's (run.sh).
 * Checks are counted (EXPECT); results are held to MXNet's reference outputs from the fixtures, and
 * every named result is saved by the first run (MXC_SAVE_DIR) and compared by the second
 * (MXC_COMPARE_DIR), so the two libraries are held to each other too, within 1e-4 x output scale.
 * MXC_LIBRARY names the library under test ("mxnet" or "quiver") for the messages. */
#ifndef QUIVER_TESTS_MXNET_COMPAT_SUPPORT_H_
#define QUIVER_TESTS_MXNET_COMPAT_SUPPORT_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mxc_passed = 0, mxc_failed = 0;

#define EXPECT(cond, ...)                                                \
  do {                                                                   \
    if (cond) {                                                          \
      ++mxc_passed;                                                      \
    } else {                                                             \
      ++mxc_failed;                                                      \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                      \
      fputc('\n', stderr);                                               \
    }                                                                    \
  } while (0)

static const char *library_name(void) {
  const char *name = getenv("MXC_LIBRARY");
  return name ? name : "libmxnet.so";
}

static int summary(const char *program) {
  printf("%s on %s: %d passed, %d failed\n", program, library_name(), mxc_passed, mxc_failed);
  return mxc_failed == 0 ? 0 : 1;
}

/* The whole file, NUL-terminated; *size gets its length. NULL (and a failed check) if unreadable. */
static char *read_file(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    buf = (char *)malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    }
    if (buf) buf[n] = '\0';
  }
  if (f) fclose(f);
  EXPECT(buf != NULL, "cannot read %s", path);
  if (size) *size = buf ? n : 0;
  return buf;
}

/* A fixture file's float32 contents; `count` must match its size. */
static float *read_floats(const char *dir, const char *name, size_t count) {
  char path[4096];
  long size = 0;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *bytes = read_file(path, &size);
  if (bytes && (size_t)size != count * sizeof(float)) {
    EXPECT(0, "%s holds %ld bytes, expected %zu floats", path, size, count);
    free(bytes);
    return NULL;
  }
  return (float *)bytes;
}

static float max_abs(const float *x, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; ++i) m = fabsf(x[i]) > m ? fabsf(x[i]) : m;
  return m;
}

/* max |got - want| <= 1e-4 * max |want|, the project's tolerance for MXNet's outputs. Returns
 * max |got - want| / max |want| (infinity when there is nothing to compare). */
static double expect_close(const char *what, const float *got, const float *want, size_t n) {
  if (!got || !want) {
    EXPECT(0, "%s: no data to compare", what);
    return INFINITY;
  }
  const float scale = max_abs(want, n);
  float worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const float d = fabsf(got[i] - want[i]);
    if (d > worst || isnan(d)) {
      worst = d;
      at = i;
    }
  }
  EXPECT(worst <= 1e-4f * scale && !isnan(worst), "%s on %s: max |diff| %g at %zu (got %g, want %g) > 1e-4 x scale %g",
         what, library_name(), worst, at, got[at], want[at], scale);
  return isnan(worst) ? INFINITY : scale > 0 ? (double)worst / scale : worst > 0 ? INFINITY : 0;
}

/* Saves a named result (first run) or compares it with the saved one (second run); returns
 * expect_close's relative difference when it compares, else -1. */
static double save_or_compare(const char *name, const float *data, size_t n) {
  const char *save = getenv("MXC_SAVE_DIR"), *compare = getenv("MXC_COMPARE_DIR");
  char path[4096];
  if (save && data) {
    snprintf(path, sizeof path, "%s/%s.f32", save, name);
    FILE *f = fopen(path, "wb");
    EXPECT(f && fwrite(data, sizeof(float), n, f) == n, "cannot write %s", path);
    if (f) fclose(f);
  }
  if (compare) {
    char file[600];
    snprintf(file, sizeof file, "%s.f32", name);
    float *want = read_floats(compare, file, n);
    char what[512];
    snprintf(what, sizeof what, "%s against MXNet's run", name);
    const double relative = expect_close(what, data, want, n);
    free(want);
    return relative;
  }
  return -1;
}

#endif /* QUIVER_TESTS_MXNET_COMPAT_SUPPORT_H_ */
