/* Process exit while other threads are inside the runtime neither hangs nor crashes: 8 threads keep
 * invoking one shared model (registering OnReady callbacks and freeing outputs) when the process exits,
 * and the exit-time teardown must not pull anything from under them. A crash here depends on timing,
 * so the scenario runs in 20 child processes one after another; each loads libquiver.so with dlopen
 * like users' C programs. CTest's timeout catches a hang. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "c_test_support.h"
#include "qv_api_table.h"
#include "quiver/c_api.h"

#define THREADS 8
#define RUNS 20

static Api api;
static QvCachedOpHandle op;
static QvNDArrayHandle input;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int invocations = 0;

static void on_ready(QvNDArrayHandle a, int status, void *user) {
  (void)a;
  (void)status;
  (void)user;
}

static void *invoke_forever(void *arg) {
  (void)arg;
  for (;;) {
    uint32_t n = 0;
    QvNDArrayHandle *outs = NULL;
    if (api.InvokeAsync(op, 1, &input, &n, &outs) == QV_OK) {
      api.NDArrayOnReady(outs[0], on_ready, NULL);
      api.NDArrayFree(outs[0]);
    }
    pthread_mutex_lock(&mu);
    ++invocations;
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

/* One run, in a child process: load, start the threads, and exit while they invoke. */
static void run_and_exit(const char *path) {
  if (!open_api(path, &api)) exit(1);
  const int64_t xshape[4] = {2, 8, 32, 32};
  if (!create_conv_relu_model(&api, 8, xshape, &op, &input)) exit(1);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i)
    if (pthread_create(&threads[i], NULL, invoke_forever, NULL) != 0) exit(1);
  /* Exit once the threads are well into their loops. */
  for (int seen = 0; seen < 20 * THREADS;) {
    const struct timespec pause = {0, 1000000}; /* 1 ms */
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&mu);
    seen = invocations;
    pthread_mutex_unlock(&mu);
  }
  exit(0);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "libquiver.so";
  int clean = 0;
  for (int run = 0; run < RUNS; ++run) {
    fflush(NULL);
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) run_and_exit(path);
    int status = 0;
    if (waitpid(child, &status, 0) != child) return 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++clean;
    else if (WIFSIGNALED(status)) fprintf(stderr, "run %d: killed by signal %d at exit\n", run, WTERMSIG(status));
    else fprintf(stderr, "run %d: exit status %d\n", run, WEXITSTATUS(status));
  }
  printf("%d of %d processes exited cleanly while %d threads invoked\n", clean, RUNS, THREADS);
  return clean == RUNS ? 0 : 1;
}
