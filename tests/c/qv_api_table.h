/* The C API as the C99 test programs in this directory call it: they load libquiver.so with dlopen, as
 * users' C programs do, and never link against it. Api holds a pointer to every function of
 * quiver/c_api.h, named without the "Qv" prefix (api.GetLastError, api.NDArrayCreate, ...); load_api
 * fills it from a dlopen handle. Each field's type is checked at compile time against the function's
 * prototype in c_api.h (see API_RESOLVE), so a table that drifts from the header does not build.
 * Everything here is static, so a program includes it once and pays only for what it uses. */
#ifndef QUIVER_TESTS_C_QV_API_TABLE_H_
#define QUIVER_TESTS_C_QV_API_TABLE_H_

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "quiver/c_api.h"

/* One field per function of c_api.h, in the header's order. */
typedef struct {
  /* Library */
  const char *(*GetLastError)(void);
  int (*GetVersion)(int *, int *, int *);
  int (*GetMemoryStats)(uint64_t *, uint64_t *);
  int (*SetNumThreads)(int);
  int (*GetNumThreads)(int *);
  /* Symbols */
  int (*SymbolCreateFromFile)(const char *, QvSymbolHandle *);
  int (*SymbolCreateFromJSON)(const char *, QvSymbolHandle *);
  int (*SymbolListInputs)(QvSymbolHandle, uint32_t *, const char ***);
  int (*SymbolListOutputs)(QvSymbolHandle, uint32_t *, const char ***);
  int (*SymbolFree)(QvSymbolHandle);
  /* Arrays */
  int (*NDArrayCreate)(const int64_t *, uint32_t, int, int, int, QvNDArrayHandle *);
  int (*NDArrayCreateFromBuffer)(void *, const int64_t *, uint32_t, int, void (*)(void *), void *,
                                 QvNDArrayHandle *);
  int (*NDArrayLoad)(const char *, uint32_t *, QvNDArrayHandle **, uint32_t *, const char ***);
  int (*NDArrayLoadFromBuffer)(const void *, size_t, uint32_t *, QvNDArrayHandle **, uint32_t *, const char ***);
  int (*NDArrayGetShape)(QvNDArrayHandle, uint32_t *, const int64_t **);
  int (*NDArrayGetDType)(QvNDArrayHandle, int *);
  int (*NDArrayGetDevice)(QvNDArrayHandle, int *, int *);
  int (*NDArrayGetData)(QvNDArrayHandle, void **);
  int (*NDArraySyncCopyFromCPU)(QvNDArrayHandle, const void *, size_t);
  int (*NDArraySyncCopyToCPU)(QvNDArrayHandle, void *, size_t);
  int (*NDArrayCanRead)(QvNDArrayHandle, int *);
  int (*NDArrayWaitToRead)(QvNDArrayHandle);
  int (*NDArrayOnReady)(QvNDArrayHandle, void (*)(QvNDArrayHandle, int, void *), void *);
  int (*NDArrayFree)(QvNDArrayHandle);
  int (*WaitAll)(void);
  /* Cached ops */
  int (*CreateCachedOpEx)(QvSymbolHandle, uint32_t, const char **, QvNDArrayHandle *, int, const char **,
                          const char **, QvCachedOpHandle *, int);
  int (*CachedOpListInputs)(QvCachedOpHandle, uint32_t *, const char ***);
  int (*CachedOpListOutputs)(QvCachedOpHandle, uint32_t *, const char ***);
  int (*CachedOpGetInputDType)(QvCachedOpHandle, uint32_t, int *);
  int (*InvokeAsync)(QvCachedOpHandle, uint32_t, QvNDArrayHandle *, uint32_t *, QvNDArrayHandle **);
  int (*FreeCachedOp)(QvCachedOpHandle);
  int (*InvokeAsyncEx)(QvCachedOpHandle, uint32_t, QvNDArrayHandle *, uint32_t *, QvNDArrayHandle **,
                       const QvInvokeOptions *);
  int (*Cancel)(QvNDArrayHandle, int *);
  int (*CachedOpDescribe)(QvCachedOpHandle, const char **);
  int (*CachedOpGetPrecision)(QvCachedOpHandle, const char **);
  int (*ListCachedOpFlags)(const char **);
  int (*CachedOpGetStats)(QvCachedOpHandle, const char **);
  int (*CalibratorCreate)(QvSymbolHandle, uint32_t, const char **, QvNDArrayHandle *, int, const char **,
                          const char **, QvCalibratorHandle *);
  int (*CalibratorListInputs)(QvCalibratorHandle, uint32_t *, const char ***);
  int (*CalibratorAddBatch)(QvCalibratorHandle, uint32_t, QvNDArrayHandle *);
  int (*CalibratorSave)(QvCalibratorHandle, const char *, const char *);
  int (*CalibratorFree)(QvCalibratorHandle);
  /* Profiler */
  int (*ProfilerStart)(void);
  int (*ProfilerStop)(void);
  int (*ProfilerClear)(void);
  int (*ProfilerGetTrace)(const char **);
  int (*ProfilerDumpTrace)(const char *);
  int (*ProfilerGetAggregate)(const char **);
  /* Device memory without copies */
  int (*NDArrayCreateFromDevicePointer)(void *, const int64_t *, uint32_t, int, int, int, void *, void (*)(void *),
                                        void *, QvNDArrayHandle *);
  int (*NDArrayGetDevicePointer)(QvNDArrayHandle, void **);
} Api;

/* Looks `name` up in `lib` and stores it in a function-pointer slot. dlsym returns an object pointer;
 * copying its bytes into the function pointer keeps -Wpedantic quiet. Returns 0, with a message, if the
 * symbol is missing or the slot is not pointer-sized. */
static inline int resolve(void *lib, const char *name, void *slot, size_t slot_size) {
  void *sym = dlsym(lib, name);
  if (sym == NULL || slot_size != sizeof sym) {
    fprintf(stderr, "cannot resolve %s: %s\n", name, sym == NULL ? dlerror() : "pointer size mismatch");
    return 0;
  }
  memcpy(slot, &sym, sizeof sym);
  return 1;
}

/* Fills api->field with the function "Qv<field>". The comparison inside sizeof is never evaluated (so
 * nothing is linked), but it must compile: comparing pointers to functions of different types is a
 * diagnostic (an error under the project's -Werror), so a field whose type differs from the prototype
 * in c_api.h, or that names no function of it, breaks the build. Expects in scope `void *lib`,
 * `Api *api` and `int ok`, which turns 0 if a lookup fails. */
#define API_RESOLVE(field)                                           \
  do {                                                               \
    (void)sizeof(api->field == &Qv##field);                          \
    ok &= resolve(lib, "Qv" #field, &api->field, sizeof api->field); \
  } while (0)

/* Fills *api from `lib`, a handle from dlopen. Returns 1, or 0 after printing the name of each missing
 * symbol. */
static inline int load_api(void *lib, Api *api) {
  int ok = 1;
  API_RESOLVE(GetLastError);
  API_RESOLVE(GetVersion);
  API_RESOLVE(GetMemoryStats);
  API_RESOLVE(SetNumThreads);
  API_RESOLVE(GetNumThreads);
  API_RESOLVE(SymbolCreateFromFile);
  API_RESOLVE(SymbolCreateFromJSON);
  API_RESOLVE(SymbolListInputs);
  API_RESOLVE(SymbolListOutputs);
  API_RESOLVE(SymbolFree);
  API_RESOLVE(NDArrayCreate);
  API_RESOLVE(NDArrayCreateFromBuffer);
  API_RESOLVE(NDArrayLoad);
  API_RESOLVE(NDArrayLoadFromBuffer);
  API_RESOLVE(NDArrayGetShape);
  API_RESOLVE(NDArrayGetDType);
  API_RESOLVE(NDArrayGetDevice);
  API_RESOLVE(NDArrayGetData);
  API_RESOLVE(NDArraySyncCopyFromCPU);
  API_RESOLVE(NDArraySyncCopyToCPU);
  API_RESOLVE(NDArrayCanRead);
  API_RESOLVE(NDArrayWaitToRead);
  API_RESOLVE(NDArrayOnReady);
  API_RESOLVE(NDArrayFree);
  API_RESOLVE(WaitAll);
  API_RESOLVE(CreateCachedOpEx);
  API_RESOLVE(CachedOpListInputs);
  API_RESOLVE(CachedOpGetInputDType);
  API_RESOLVE(CachedOpListOutputs);
  API_RESOLVE(InvokeAsync);
  API_RESOLVE(FreeCachedOp);
  API_RESOLVE(InvokeAsyncEx);
  API_RESOLVE(Cancel);
  API_RESOLVE(CachedOpDescribe);
  API_RESOLVE(CachedOpGetPrecision);
  API_RESOLVE(ListCachedOpFlags);
  API_RESOLVE(CachedOpGetStats);
  API_RESOLVE(CalibratorCreate);
  API_RESOLVE(CalibratorListInputs);
  API_RESOLVE(CalibratorAddBatch);
  API_RESOLVE(CalibratorSave);
  API_RESOLVE(CalibratorFree);
  API_RESOLVE(ProfilerStart);
  API_RESOLVE(ProfilerStop);
  API_RESOLVE(ProfilerClear);
  API_RESOLVE(ProfilerGetTrace);
  API_RESOLVE(ProfilerDumpTrace);
  API_RESOLVE(ProfilerGetAggregate);
  API_RESOLVE(NDArrayCreateFromDevicePointer);
  API_RESOLVE(NDArrayGetDevicePointer);
  return ok;
}

/* Loads the library at `path` with dlopen, as users' C programs do, and fills `api` from it. Returns 0,
 * with a message, on failure. There is no dlclose: the runtime's threads live until the process exits. */
static inline int open_api(const char *path, Api *api) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen(%s) failed: %s\n", path, dlerror());
    return 0;
  }
  return load_api(lib, api);
}

#endif /* QUIVER_TESTS_C_QV_API_TABLE_H_ */
