/* The public header compiles as C99 and the library, loaded with dlopen, answers the basic calls.
 * Usage: header_c99_test <path to libquiver.so> <fixtures dir> */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "c_test_support.h"
#include "qv_api_table.h"
#include "quiver/c_api.h"

/* Compile-time checks of the contract's constants (C99 has no static_assert: a negative array size fails). */
typedef char check_api_version[QV_API_VERSION == 1 ? 1 : -1];
typedef char check_ok_is_zero[QV_OK == 0 ? 1 : -1];
typedef char check_last_status[QV_ERR_INTERNAL == 9 ? 1 : -1];
typedef char check_appended_statuses[(QV_ERR_CANCELLED == 10 && QV_ERR_DEADLINE_EXCEEDED == 11) ? 1 : -1];
typedef char check_invoke_options_starts_with_size[offsetof(QvInvokeOptions, struct_size) == 0 ? 1 : -1];
typedef char check_devices[(QV_CPU == 1 && QV_GPU == 2) ? 1 : -1];
typedef char check_dtypes[(QV_FLOAT32 == 0 && QV_FLOAT16 == 2 && QV_UINT8 == 3 && QV_INT64 == 6) ? 1 : -1];
typedef char check_handles_are_pointers[sizeof(QvNDArrayHandle) == sizeof(void *) ? 1 : -1];

static Api api;

int main(int argc, char **argv) {
  int major = -1, minor = -1, patch = -1;
  const char *message;
  QvSymbolHandle sym = NULL;
  QvNDArrayHandle array = NULL;
  const int64_t bad_shape[2] = {3, -1};
  const int64_t shape[3] = {2, 3, 4};
  const int64_t *got_shape = NULL;
  uint32_t ndim = 0;
  int dtype = -1, dev_type = -1, dev_id = -1, status;
  uint64_t bytes = 0, arrays = 0;

  if (argc < 2) {
    fprintf(stderr, "usage: %s <libquiver.so> [fixtures dir]\n", argv[0]);
    return 2;
  }
  if (!open_api(argv[1], &api)) return 1;

  EXPECT(api.GetVersion(&major, &minor, &patch) == QV_OK, "QvGetVersion failed");
  EXPECT(major == QV_API_VERSION, "major version %d, header says %d", major, QV_API_VERSION);
  EXPECT(minor >= 0 && patch >= 0, "version %d.%d.%d", major, minor, patch);
  EXPECT(api.GetVersion(NULL, NULL, NULL) == QV_OK, "QvGetVersion with NULL out-pointers must succeed");

  message = api.GetLastError();
  EXPECT(message != NULL, "QvGetLastError returned NULL");
  EXPECT(message != NULL && message[0] == '\0', "no call failed yet, but the message is \"%s\"", message);

  EXPECT(api.GetMemoryStats(&bytes, &arrays) == QV_OK, "QvGetMemoryStats failed: %s", api.GetLastError());

  /* An error path: the status, then a message naming the problem. */
  status = api.SymbolCreateFromJSON("{\"nodes\": [", &sym);
  message = api.GetLastError();
  EXPECT(status == QV_ERR_PARSE, "truncated JSON gave status %d", status);
  EXPECT(sym == NULL, "a failed call set its out-pointer");
  EXPECT(message != NULL && strstr(message, "JSON") != NULL, "message \"%s\" does not mention JSON",
         message ? message : "(null)");

  status = api.NDArrayCreate(bad_shape, 2, QV_CPU, 0, QV_FLOAT32, &array);
  message = api.GetLastError();
  EXPECT(status == QV_ERR_SHAPE, "a negative dimension gave status %d", status);
  EXPECT(strstr(message, "-1") != NULL, "message \"%s\" does not show the bad dimension", message);

  /* A working path: an array's shape, dtype and device read back as created. */
  status = api.NDArrayCreate(shape, 3, QV_CPU, 0, QV_INT32, &array);
  EXPECT(status == QV_OK, "QvNDArrayCreate failed: %s", api.GetLastError());
  if (status == QV_OK) {
    EXPECT(api.NDArrayGetShape(array, &ndim, &got_shape) == QV_OK, "%s", api.GetLastError());
    EXPECT(ndim == 3 && got_shape[0] == 2 && got_shape[1] == 3 && got_shape[2] == 4, "shape read back wrong");
    EXPECT(api.NDArrayGetDType(array, &dtype) == QV_OK && dtype == QV_INT32, "dtype %d", dtype);
    EXPECT(api.NDArrayGetDevice(array, &dev_type, &dev_id) == QV_OK && dev_type == QV_CPU && dev_id == 0,
           "device %d(%d)", dev_type, dev_id);
    /* An array no invocation wrote: QvCancel has nothing to cancel. */
    int cancelled = -1;
    EXPECT(api.Cancel(array, &cancelled) == QV_OK && cancelled == 0, "QvCancel gave cancelled = %d", cancelled);
    EXPECT(api.NDArrayFree(array) == QV_OK, "%s", api.GetLastError());
  }

  /* No dlclose: the runtime's worker threads live until the process exits. */
  return test_summary("header_c99");
}
