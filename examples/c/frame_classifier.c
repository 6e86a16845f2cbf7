/* Classifies a stream of frames the way a camera app would: frames arrive one after another, each is
 * submitted with QvInvokeAsync, at most `max_inflight` are in flight, and the loop never blocks on a
 * result. It polls QvNDArrayCanRead on the oldest frame and, when nothing is ready and the window is
 * full, yields the CPU and comes back; results are collected in frame order.
 *
 * The program loads libquiver.so with dlopen, as a C program that ships without linking Quiver would.
 *
 *   frame_classifier <libquiver.so> <model_prefix> <epoch> <synset.txt> <frames.f32> <labels.i32>
 *                    [max_inflight] [--shape C,H,W] [--min-accuracy A]
 *
 * frames.f32 holds raw float32 frames of shape (C,H,W) (default 1,8,8) back to back; labels.i32 one
 * int32 label per frame. Prints the accuracy, the frame rate and how the in-flight window was used. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quiver/c_api.h"

/* The Qv* functions this program uses, resolved from the library at run time. */
typedef struct {
  const char *(*GetLastError)(void);
  int (*GetVersion)(int *, int *, int *);
  int (*SymbolCreateFromFile)(const char *, QvSymbolHandle *);
  int (*SymbolListInputs)(QvSymbolHandle, uint32_t *, const char ***);
  int (*SymbolFree)(QvSymbolHandle);
  int (*NDArrayLoad)(const char *, uint32_t *, QvNDArrayHandle **, uint32_t *, const char ***);
  int (*NDArrayCreateFromBuffer)(void *, const int64_t *, uint32_t, int, void (*)(void *), void *,
                                 QvNDArrayHandle *);
  int (*NDArrayGetShape)(QvNDArrayHandle, uint32_t *, const int64_t **);
  int (*NDArrayCanRead)(QvNDArrayHandle, int *);
  int (*NDArraySyncCopyToCPU)(QvNDArrayHandle, void *, size_t);
  int (*NDArrayFree)(QvNDArrayHandle);
  int (*CreateCachedOpEx)(QvSymbolHandle, uint32_t, const char **, QvNDArrayHandle *, int, const char **,
                          const char **, QvCachedOpHandle *, int);
  int (*InvokeAsync)(QvCachedOpHandle, uint32_t, QvNDArrayHandle *, uint32_t *, QvNDArrayHandle **);
  int (*FreeCachedOp)(QvCachedOpHandle);
} QvApi;

static QvApi qv;

/* dlsym returns an object pointer; copying its bytes into the function pointer avoids a cast that
 * ISO C leaves undefined. */
static int load_api(void *lib) {
  struct {
    const char *name;
    void *slot;
    size_t size;
  } table[] = {
#define QV_ENTRY(fn) {"Qv" #fn, &qv.fn, sizeof qv.fn}
      QV_ENTRY(GetLastError),     QV_ENTRY(GetVersion),           QV_ENTRY(SymbolCreateFromFile),
      QV_ENTRY(SymbolListInputs), QV_ENTRY(SymbolFree),           QV_ENTRY(NDArrayLoad),
      QV_ENTRY(NDArrayCreateFromBuffer), QV_ENTRY(NDArrayGetShape), QV_ENTRY(NDArrayCanRead),
      QV_ENTRY(NDArraySyncCopyToCPU), QV_ENTRY(NDArrayFree),      QV_ENTRY(CreateCachedOpEx),
      QV_ENTRY(InvokeAsync),      QV_ENTRY(FreeCachedOp),
#undef QV_ENTRY
  };
  size_t i;
  for (i = 0; i < sizeof table / sizeof table[0]; ++i) {
    void *sym = dlsym(lib, table[i].name);
    if (sym == NULL || table[i].size != sizeof sym) {
      fprintf(stderr, "frame_classifier: cannot resolve %s: %s\n", table[i].name,
              sym == NULL ? dlerror() : "function pointers differ in size from void *");
      return 0;
    }
    memcpy(table[i].slot, &sym, sizeof sym);
  }
  return 1;
}

/* Prints the failed call and Quiver's message; returns 1 when the call succeeded. */
static int qv_ok(int status, const char *what) {
  if (status == QV_OK) return 1;
  fprintf(stderr, "frame_classifier: %s failed (status %d): %s\n", what, status, qv.GetLastError());
  return 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The whole file in a malloc'd buffer (plus a NUL, so text files are strings), or NULL. */
static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
      (buf = malloc((size_t)n + 1)) == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "frame_classifier: cannot read %s\n", path);
    free(buf);
    if (f != NULL) fclose(f);
    return NULL;
  }
  fclose(f);
  buf[n] = '\0';
  *size = (size_t)n;
  return buf;
}

/* Splits the synset text into lines in place; returns how many (an unterminated last line counts). */
static size_t split_lines(char *text, char **lines, size_t max_lines) {
  size_t n = 0;
  char *p = text;
  while (*p != '\0' && n < max_lines) {
    char *end = strchr(p, '\n');
    if (end != NULL) *end = '\0';
    if (end != NULL && end > p && end[-1] == '\r') end[-1] = '\0';
    lines[n++] = p;
    if (end == NULL) break;
    p = end + 1;
  }
  return n;
}

/* "arg:fc_weight" and "fc_weight" name the same parameter. */
static const char *strip_prefix(const char *name) {
  return (strncmp(name, "arg:", 4) == 0 || strncmp(name, "aux:", 4) == 0) ? name + 4 : name;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#define MAX_CLASSES 4096

/* One submitted frame whose result has not been collected yet. */
typedef struct {
  QvNDArrayHandle scores;
  size_t frame;
  double submitted_at;
} Pending;

int main(int argc, char **argv) {
  const char *pos[7];
  int n_pos = 0, i, c = 1, h = 8, w = 8, max_inflight = 4, epoch;
  double min_accuracy = 0.0; /* exit 3 below it: lets tests hold the demo to the oracle's accuracy */
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--min-accuracy") == 0 && i + 1 < argc) {
      min_accuracy = atof(argv[++i]);
    } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
      if (sscanf(argv[++i], "%d,%d,%d", &c, &h, &w) != 3 || c < 1 || h < 1 || w < 1) {
        fprintf(stderr, "frame_classifier: --shape wants C,H,W, got '%s'\n", argv[i]);
        return 2;
      }
    } else {
      if (n_pos < 7) pos[n_pos] = argv[i];
      ++n_pos;
    }
  }
  if (n_pos < 6 || n_pos > 7) {
    fprintf(stderr,
            "usage: %s <libquiver.so> <model_prefix> <epoch> <synset.txt> <frames.f32> <labels.i32> "
            "[max_inflight] [--shape C,H,W] [--min-accuracy A]\n",
            argv[0]);
    return 2;
  }
  epoch = atoi(pos[2]);
  if (n_pos == 7) max_inflight = atoi(pos[6]);
  if (max_inflight < 1) {
    fprintf(stderr, "frame_classifier: max_inflight must be at least 1, got '%s'\n", pos[6]);
    return 2;
  }

  void *lib = dlopen(pos[0], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "frame_classifier: dlopen(%s) failed: %s\n", pos[0], dlerror());
    return 1;
  }
  /* No dlclose anywhere: the runtime's worker threads live until the process exits. */
  if (!load_api(lib)) return 1;

  /* The data: frames, labels and class names. */
  size_t frames_bytes, labels_bytes, synset_bytes;
  const size_t frame_elems = (size_t)c * (size_t)h * (size_t)w;
  float *frames = (float *)read_file(pos[4], &frames_bytes);
  int32_t *labels = (int32_t *)read_file(pos[5], &labels_bytes);
  char *synset_text = read_file(pos[3], &synset_bytes);
  if (frames == NULL || labels == NULL || synset_text == NULL) return 1;
  const size_t n_frames = frames_bytes / (frame_elems * sizeof(float));
  if (n_frames == 0 || frames_bytes % (frame_elems * sizeof(float)) != 0) {
    fprintf(stderr, "frame_classifier: %s has %zu bytes, not a whole number of %dx%dx%d float32 frames\n",
            pos[4], frames_bytes, c, h, w);
    return 1;
  }
  if (labels_bytes != n_frames * sizeof(int32_t)) {
    fprintf(stderr, "frame_classifier: %s has %zu labels for %zu frames\n", pos[5],
            labels_bytes / sizeof(int32_t), n_frames);
    return 1;
  }
  static char *class_names[MAX_CLASSES];
  const size_t n_classes = split_lines(synset_text, class_names, MAX_CLASSES);

  /* The model: symbol + parameters, compiled once for batch-1 frames. */
  char path[4096];
  QvSymbolHandle sym;
  QvCachedOpHandle op;
  uint32_t n_params, n_names, n_inputs, k;
  QvNDArrayHandle *params;
  const char **param_names, **input_names, *data_name = NULL;
  snprintf(path, sizeof path, "%s-symbol.json", pos[1]);
  if (!qv_ok(qv.SymbolCreateFromFile(path, &sym), "loading the symbol")) return 1;
  snprintf(path, sizeof path, "%s-%04d.params", pos[1], epoch);
  if (!qv_ok(qv.NDArrayLoad(path, &n_params, &params, &n_names, &param_names), "loading the parameters"))
    return 1;
  if (n_names != n_params) {
    fprintf(stderr, "frame_classifier: %s stores no parameter names\n", path);
    return 1;
  }
  /* The data input is the one symbol input that is not a parameter. */
  if (!qv_ok(qv.SymbolListInputs(sym, &n_inputs, &input_names), "listing the inputs")) return 1;
  for (k = 0; k < n_inputs; ++k) {
    uint32_t j = 0;
    while (j < n_names && strcmp(strip_prefix(param_names[j]), input_names[k]) != 0) ++j;
    if (j < n_names) continue;
    if (data_name != NULL) {
      fprintf(stderr, "frame_classifier: the model has several data inputs ('%s', '%s'), expected one\n",
              data_name, input_names[k]);
      return 1;
    }
    data_name = input_names[k];
  }
  if (data_name == NULL) {
    fprintf(stderr, "frame_classifier: every input of the model has a parameter: no data input\n");
    return 1;
  }
  char data_shapes[512], inflight_flag[32];
  snprintf(data_shapes, sizeof data_shapes, "%s:(1,%d,%d,%d)", data_name, c, h, w);
  snprintf(inflight_flag, sizeof inflight_flag, "%d", max_inflight);
  const char *keys[] = {"device", "static_shape", "max_inflight", "data_shapes"};
  const char *vals[] = {"cpu", "true", inflight_flag, data_shapes};
  const double t_load = now_s();
  if (!qv_ok(qv.CreateCachedOpEx(sym, n_params, param_names, params, 4, keys, vals, &op, 1),
             "compiling the model"))
    return 1;
  const double load_s = now_s() - t_load;
  for (k = 0; k < n_params; ++k) qv.NDArrayFree(params[k]); /* the op keeps its own copy */

  int major = 0, minor = 0, patch = 0;
  qv.GetVersion(&major, &minor, &patch);
  printf("Quiver %d.%d.%d frame classifier\n", major, minor, patch);
  printf("  model      %s (epoch %d), input '%s' 1x%dx%dx%d, compiled in %.1f ms\n", pos[1], epoch, data_name, c,
         h, w, 1e3 * load_s);
  printf("  frames     %zu from %s\n", n_frames, pos[4]);
  printf("  window     up to %d frames in flight; results polled with QvNDArrayCanRead, never waited on\n\n",
         max_inflight);

  /* The frame loop. */
  Pending *window = calloc((size_t)max_inflight, sizeof *window);
  double *latency_ms = calloc(n_frames, sizeof *latency_ms);
  if (window == NULL || latency_ms == NULL) return 1;
  float scores[MAX_CLASSES];
  const int64_t frame_shape[4] = {1, c, h, w};
  size_t next_frame = 0, collected = 0, correct = 0, wrong = 0;
  unsigned long long polls = 0, empty_polls = 0, yields = 0, depth_sum = 0;
  const double start = now_s();
  while (collected < n_frames) {
    int progressed = 0;
    /* A new frame arrives: submit it if the window has room. The input wraps the frame's memory. */
    if (next_frame < n_frames && next_frame - collected < (size_t)max_inflight) {
      QvNDArrayHandle input, *outputs = NULL;
      uint32_t n_outputs = 0;
      if (!qv_ok(qv.NDArrayCreateFromBuffer(frames + next_frame * frame_elems, frame_shape, 4, QV_FLOAT32, NULL,
                                            NULL, &input),
                 "wrapping a frame"))
        return 1;
      if (!qv_ok(qv.InvokeAsync(op, 1, &input, &n_outputs, &outputs), "submitting a frame")) return 1;
      qv.NDArrayFree(input); /* safe while the invocation still reads it */
      for (k = 1; k < n_outputs; ++k) qv.NDArrayFree(outputs[k]);
      Pending *slot = &window[next_frame % (size_t)max_inflight];
      slot->scores = outputs[0];
      slot->frame = next_frame;
      slot->submitted_at = now_s();
      ++next_frame;
      depth_sum += next_frame - collected;
      progressed = 1;
    }
    /* Collect every finished frame at the front of the window, in order. */
    while (collected < next_frame) {
      Pending *oldest = &window[collected % (size_t)max_inflight];
      int ready = 0;
      uint32_t ndim;
      const int64_t *shape;
      size_t n_scores = 1, best = 0, d;
      ++polls;
      if (!qv_ok(qv.NDArrayCanRead(oldest->scores, &ready), "polling a result")) return 1;
      if (!ready) {
        ++empty_polls;
        break;
      }
      if (!qv_ok(qv.NDArrayGetShape(oldest->scores, &ndim, &shape), "reading the output shape")) return 1;
      for (d = 0; d < ndim; ++d) n_scores *= (size_t)shape[d];
      if (n_scores != n_classes) {
        fprintf(stderr, "frame_classifier: the model gives %zu scores per frame but %s names %zu classes\n",
                n_scores, pos[3], n_classes);
        return 1;
      }
      /* Ready, so this copy does not wait; it reports the invocation's error if it failed. */
      if (!qv_ok(qv.NDArraySyncCopyToCPU(oldest->scores, scores, n_scores * sizeof(float)), "reading a result"))
        return 1;
      latency_ms[collected] = 1e3 * (now_s() - oldest->submitted_at);
      qv.NDArrayFree(oldest->scores);
      for (d = 1; d < n_scores; ++d)
        if (scores[d] > scores[best]) best = d;
      const int32_t label = labels[oldest->frame];
      if ((int32_t)best == label) {
        ++correct;
      } else if (++wrong <= 8) {
        if (wrong == 1) printf("misclassified frames\n");
        printf("  frame %4zu  predicted %-8s label %s\n", oldest->frame, class_names[best],
               label >= 0 && (size_t)label < n_classes ? class_names[label] : "(out of range)");
      }
      ++collected;
      progressed = 1;
    }
    /* Nothing to submit and nothing ready: a camera app would draw or read the sensor here. */
    if (!progressed) {
      ++yields;
      sched_yield();
    }
  }
  const double elapsed = now_s() - start;

  if (wrong > 8) printf("  ... and %zu more misclassified frames\n", wrong - 8);
  qsort(latency_ms, n_frames, sizeof *latency_ms, cmp_double);
  printf("%saccuracy     %zu / %zu correct = %.2f%%\n", wrong > 0 ? "\n" : "", correct, n_frames,
         100.0 * (double)correct / (double)n_frames);
  printf("throughput   %.0f frames/s (%zu frames in %.1f ms)\n", (double)n_frames / elapsed, n_frames,
         1e3 * elapsed);
  printf("latency      submit -> collected: p50 %.3f ms, max %.3f ms\n", latency_ms[n_frames / 2],
         latency_ms[n_frames - 1]);
  printf("in flight    %.2f frames on average after a submit (window %d)\n",
         (double)depth_sum / (double)n_frames, max_inflight);
  printf("polling      %llu polls, %llu found nothing ready; the loop yielded %llu times, never blocked\n", polls,
         empty_polls, yields);

  qv.FreeCachedOp(op);
  qv.SymbolFree(sym);
  free(window);
  free(latency_ms);
  free(synset_text);
  free(labels);
  free(frames);
  if ((double)correct < min_accuracy * (double)n_frames) {
    fprintf(stderr, "frame_classifier: accuracy below the required %.4f\n", min_accuracy);
    return 3;
  }
  return 0;
}
