/* Error paths as a C program sees them: NULL handles, bad JSON, missing files, and the thread-local
 * last-error message. Usage: error_paths_test <path to libquiver.so> <fixtures dir> */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "c_test_support.h"
#include "qv_api_table.h"
#include "quiver/c_api.h"

static Api api;
/* Case-sensitive substring test that tolerates a NULL message. */
static int mentions(const char *message, const char *part) { return message != NULL && strstr(message, part) != NULL; }

/* Checks one failed call: its status and that the message mentions `part`. */
static void expect_failure(const char *what, int status, int expected, const char *part) {
  const char *message = api.GetLastError();
  EXPECT(status == expected, "%s: status %d, expected %d (message \"%s\")", what, status, expected,
         message ? message : "(null)");
  EXPECT(message != NULL && message[0] != '\0', "%s: empty message", what);
  if (part != NULL) EXPECT(mentions(message, part), "%s: message \"%s\" does not mention \"%s\"", what, message, part);
}

static void ignore_ready(QvNDArrayHandle a, int status, void *user) {
  (void)a;
  (void)status;
  (void)user;
}

static void null_handles(void) {
  uint32_t n = 0;
  const char **names = NULL;
  const int64_t *shape = NULL;
  int value = 0;
  float buffer[4];
  QvNDArrayHandle *outputs = NULL;
  QvNDArrayHandle input = NULL;
  QvCachedOpHandle op = NULL;
  QvSymbolHandle sym = NULL;

  expect_failure("SymbolCreateFromJSON(NULL)", api.SymbolCreateFromJSON(NULL, &sym), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("SymbolCreateFromJSON(out NULL)", api.SymbolCreateFromJSON("{}", NULL), QV_ERR_INVALID_ARGUMENT,
                 NULL);
  expect_failure("SymbolListInputs(NULL)", api.SymbolListInputs(NULL, &n, &names), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("SymbolListOutputs(NULL)", api.SymbolListOutputs(NULL, &n, &names), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("SymbolFree(NULL)", api.SymbolFree(NULL), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("NDArrayGetShape(NULL)", api.NDArrayGetShape(NULL, &n, &shape), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("NDArrayGetDType(NULL)", api.NDArrayGetDType(NULL, &value), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("NDArraySyncCopyToCPU(NULL)", api.NDArraySyncCopyToCPU(NULL, buffer, sizeof buffer),
                 QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("NDArrayCanRead(NULL)", api.NDArrayCanRead(NULL, &value), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("NDArrayWaitToRead(NULL)", api.NDArrayWaitToRead(NULL), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("NDArrayOnReady(NULL)", api.NDArrayOnReady(NULL, ignore_ready, NULL), QV_ERR_INVALID_ARGUMENT,
                 NULL);
  expect_failure("NDArrayFree(NULL)", api.NDArrayFree(NULL), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("CreateCachedOpEx(NULL)", api.CreateCachedOpEx(NULL, 0, NULL, NULL, 0, NULL, NULL, &op, 1),
                 QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("CachedOpListInputs(NULL)", api.CachedOpListInputs(NULL, &n, &names), QV_ERR_INVALID_ARGUMENT,
                 NULL);
  expect_failure("InvokeAsync(NULL)", api.InvokeAsync(NULL, 1, &input, &n, &outputs), QV_ERR_INVALID_ARGUMENT, NULL);
  expect_failure("FreeCachedOp(NULL)", api.FreeCachedOp(NULL), QV_ERR_INVALID_ARGUMENT, NULL);
  EXPECT(sym == NULL && op == NULL, "a failed call set an out-pointer");
}

static void bad_json(void) {
  QvSymbolHandle sym = NULL;
  QvCachedOpHandle op = NULL;
  int status;
  static const char *const unknown_op =
      "{\"nodes\": [{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
      " {\"op\": \"NoSuchQuiverOp\", \"name\": \"odd_layer7\", \"inputs\": [[0, 0, 0]]}],"
      " \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}";

  expect_failure("not JSON", api.SymbolCreateFromJSON("<html>not json</html>", &sym), QV_ERR_PARSE, "JSON");
  expect_failure("no heads", api.SymbolCreateFromJSON("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\"}]}", &sym),
                 QV_ERR_PARSE, "heads");
  expect_failure("no nodes", api.SymbolCreateFromJSON("{\"heads\": [[0, 0, 0]]}", &sym), QV_ERR_PARSE, "nodes");
  expect_failure("dangling input",
                 api.SymbolCreateFromJSON("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []},"
                                          " {\"op\": \"relu\", \"name\": \"r\", \"inputs\": [[9, 0, 0]]}],"
                                          " \"heads\": [[1, 0, 0]]}",
                                          &sym),
                 QV_ERR_PARSE, "9");

  /* An unknown operator fails at load or at compile time; either way the message names it and its node. */
  status = api.SymbolCreateFromJSON(unknown_op, &sym);
  if (status == QV_OK) {
    status = api.CreateCachedOpEx(sym, 0, NULL, NULL, 0, NULL, NULL, &op, 1);
    expect_failure("unknown operator at compile time", status, QV_ERR_UNSUPPORTED, "NoSuchQuiverOp");
    EXPECT(mentions(api.GetLastError(), "odd_layer7"), "message \"%s\" does not name the node", api.GetLastError());
    api.SymbolFree(sym);
  } else {
    expect_failure("unknown operator at load time", status, QV_ERR_UNSUPPORTED, "NoSuchQuiverOp");
    EXPECT(mentions(api.GetLastError(), "odd_layer7"), "message \"%s\" does not name the node", api.GetLastError());
  }
  EXPECT(op == NULL, "a failed compile set its out-pointer");
}

static void missing_files(const char *fixtures) {
  char path[4096];
  QvSymbolHandle sym = NULL;
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle *arrays = NULL;
  const char **names = NULL;

  snprintf(path, sizeof path, "%s/no-such-model-symbol.json", fixtures);
  expect_failure("missing symbol file", api.SymbolCreateFromFile(path, &sym), QV_ERR_NOT_FOUND, path);
  snprintf(path, sizeof path, "%s/no-such-model-0000.params", fixtures);
  expect_failure("missing params file", api.NDArrayLoad(path, &n, &arrays, &n_names, &names), QV_ERR_NOT_FOUND, path);
}

/* The message stays valid and unchanged across successful calls on the same thread. */
static void message_lifetime(void) {
  QvSymbolHandle sym = NULL;
  char saved[512];
  const char *message;
  int major = 0;
  const int64_t shape[1] = {3};
  QvNDArrayHandle array = NULL;

  api.SymbolCreateFromJSON("{ lifetime-marker", &sym);
  message = api.GetLastError();
  snprintf(saved, sizeof saved, "%s", message);
  EXPECT(api.GetVersion(&major, NULL, NULL) == QV_OK, "QvGetVersion failed");
  EXPECT(api.NDArrayCreate(shape, 1, QV_CPU, 0, QV_FLOAT32, &array) == QV_OK, "%s", api.GetLastError());
  if (array != NULL) api.NDArrayFree(array);
  EXPECT(strcmp(api.GetLastError(), saved) == 0, "message changed after successful calls: \"%s\" -> \"%s\"", saved,
         api.GetLastError());
}

typedef struct {
  const char *json;
  char message[512];
} ThreadCase;

static void *fail_on_thread(void *arg) {
  ThreadCase *c = (ThreadCase *)arg;
  QvSymbolHandle sym = NULL;
  api.SymbolCreateFromJSON(c->json, &sym);
  snprintf(c->message, sizeof c->message, "%s", api.GetLastError());
  return NULL;
}

/* An error on another thread leaves this thread's message alone. */
static void thread_local_messages(void) {
  pthread_t thread;
  ThreadCase other;
  QvSymbolHandle sym = NULL;
  char mine[512];

  api.SymbolCreateFromFile("/nonexistent-quiver-dir/main-thread-marker.json", &sym);
  snprintf(mine, sizeof mine, "%s", api.GetLastError());
  other.json = "[\"other-thread\"]";
  other.message[0] = '\0';
  if (pthread_create(&thread, NULL, fail_on_thread, &other) != 0) {
    EXPECT(0, "pthread_create failed");
    return;
  }
  pthread_join(thread, NULL);
  EXPECT(other.message[0] != '\0', "the other thread saw no message");
  EXPECT(!mentions(other.message, "main-thread-marker"), "the other thread saw this thread's message");
  EXPECT(strcmp(api.GetLastError(), mine) == 0, "this thread's message changed to \"%s\"", api.GetLastError());
}

int main(int argc, char **argv) {
  const char *fixtures = argc > 2 ? argv[2] : "/tmp";

  if (argc < 2) {
    fprintf(stderr, "usage: %s <libquiver.so> [fixtures dir]\n", argv[0]);
    return 2;
  }
  if (!open_api(argv[1], &api)) return 1;

  null_handles();
  bad_json();
  missing_files(fixtures);
  message_lifetime();
  thread_local_messages();

  /* No dlclose: the runtime's worker threads live until the process exits. */
  return test_summary("error_paths");
}
