/*
 * Quiver C API, version 1.
 *
 * The one stable ABI of libquiver.so. Every binding (Python, Java, Scala) and every C program builds on
 * this header alone.
 *
 * Conventions that hold for every function below:
 *  - Each function returns an int: QV_OK (0) on success, otherwise a QvStatus code.
 *  - On failure QvGetLastError() returns a human-readable message naming what was wrong; the message is
 *    thread-local and stays valid until the next failing call on the same thread.
 *  - No function aborts the process, lets an exception escape, or prints anything (unless asked:
 *    see Notices below).
 *  - Every function may be called from any thread. Handles are opaque; passing NULL where a handle is
 *    expected, a handle that was already freed (freeing it twice included), or any value Quiver did not
 *    return fails with QV_ERR_INVALID_ARGUMENT. Handle values are never reused. A handle freed by one
 *    thread while another thread's call uses it stays valid until that call returns.
 *  - "Blocks" below means the call may wait for asynchronous work; every other call returns promptly.
 *  - Out-parameters marked "owned by the caller" must be released with the stated function; every
 *    other returned pointer is owned by the runtime and stays valid as stated.
 *
 * Threading: the runtime runs computations on its own worker threads. By default it never keeps more
 * compute threads busy than the CPUs this process may use (its affinity mask and cgroup CPU quota);
 * the environment variable QUIVER_NUM_THREADS, read when the library first runs work, sets another
 * budget. OnReady callbacks run on one dedicated callback thread, never on a compute thread. An op
 * with a request queue (the scheduling flags of QvCreateCachedOpEx) has one thread of its own that
 * forms batches and never computes; its batches run on the runtime's workers.
 *
 * Memory: sizes are checked before anything is allocated. The runtime never holds more array storage,
 * parameters and workspaces at once than physical memory, this process's cgroup memory limit, or the
 * environment variable QUIVER_MEMORY_LIMIT (bytes, or with a K, M or G suffix; read once), whichever
 * is smallest; beyond it calls fail with QV_ERR_OUT_OF_MEMORY, and a plan holding a tensor larger
 * than the limit is refused when it is compiled.
 *
 * Notices: with the environment variable QUIVER_VERBOSE set (to anything but "" or "0"; read once),
 * the runtime writes a line to stderr, starting "quiver: ", where it does something otherwise than
 * asked (a plan of a gpu(N) op that cannot be captured as a CUDA graph, and why). Unset, it prints
 * nothing.
 */
#ifndef QUIVER_C_API_H_
#define QUIVER_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define QV_EXPORT __attribute__((visibility("default")))
#else
#define QV_EXPORT
#endif

#define QV_API_VERSION 1

/* Status codes. Append only. */
typedef enum {
  QV_OK = 0,
  QV_ERR_INVALID_ARGUMENT, /* a NULL handle, a bad flag, a wrong count */
  QV_ERR_NOT_FOUND,        /* a missing file, parameter or name */
  QV_ERR_PARSE,            /* malformed symbol JSON or .params bytes */
  QV_ERR_SHAPE,            /* shapes or dtypes that do not fit the graph */
  QV_ERR_UNSUPPORTED,      /* an operator, dtype, device or file version Quiver does not run */
  QV_ERR_BUSY,             /* max_inflight invocations already admitted, or max_queue queued */
  QV_ERR_OUT_OF_MEMORY,    /* an allocation failed or a size exceeds what can be allocated */
  QV_ERR_DEVICE,           /* a device that is missing or failed */
  QV_ERR_INTERNAL,         /* a bug in Quiver: please report it with the message */
  QV_ERR_CANCELLED,        /* the invocation was cancelled with QvCancel */
  QV_ERR_DEADLINE_EXCEEDED /* the invocation's deadline passed before it finished (QvInvokeAsyncEx) */
} QvStatus;

/* Device codes follow MXNet's. */
typedef enum { QV_CPU = 1, QV_GPU = 2 } QvDeviceType;

/* Element types follow MXNet's type flags. */
typedef enum {
  QV_FLOAT32 = 0,
  QV_FLOAT64 = 1,
  QV_FLOAT16 = 2,
  QV_UINT8 = 3,
  QV_INT32 = 4,
  QV_INT8 = 5,
  QV_INT64 = 6
} QvDType;

typedef struct QvSymbol_ *QvSymbolHandle;
typedef struct QvNDArray_ *QvNDArrayHandle;
typedef struct QvCachedOp_ *QvCachedOpHandle;
typedef struct QvCalibrator_ *QvCalibratorHandle;

/* ---------------------------------------------------------------------------------------------------
 * Library
 * ------------------------------------------------------------------------------------------------- */

/* The message of the last failing call on this thread ("" if none failed yet). Never NULL. The string
 * is owned by the runtime and valid until the next failing call on this thread. Never blocks. */
QV_EXPORT const char *QvGetLastError(void);

/* The library's version (major is QV_API_VERSION). Any out-pointer may be NULL. Never blocks. */
QV_EXPORT int QvGetVersion(int *major, int *minor, int *patch);

/* Native memory currently held by the runtime: bytes of array storage, parameters and workspaces, and
 * the number of arrays alive (including those held by the runtime for work in flight). Meant for leak
 * tests in every binding. Either out-pointer may be NULL. Never blocks. */
QV_EXPORT int QvGetMemoryStats(uint64_t *bytes_in_use, uint64_t *arrays_alive);

/* The process's compute-thread budget: how many threads may compute at once across every op and
 * invocation. It starts as the smallest of the CPUs the process may use (affinity mask, cgroup quota),
 * QUIVER_NUM_THREADS and OMP_NUM_THREADS (Quiver uses no OpenMP; Spark and Ray set it to the CPUs
 * they gave the worker). QvSetNumThreads changes it at any time (1 to 4096, else
 * QV_ERR_INVALID_ARGUMENT): kernels started afterwards share the new budget, running ones keep their
 * threads. How many invocations run at once stays what the starting budget allowed. Never blocks. */
QV_EXPORT int QvSetNumThreads(int threads);

/* The compute-thread budget (QvSetNumThreads). Never blocks. */
QV_EXPORT int QvGetNumThreads(int *threads);

/* ---------------------------------------------------------------------------------------------------
 * Symbols (graphs)
 * ------------------------------------------------------------------------------------------------- */

/* Reads an MXNet symbol JSON file (any 1.x layout, including the older "param"/"attr" keys).
 * On success *out is owned by the caller: release it with QvSymbolFree. Fails with QV_ERR_NOT_FOUND
 * for a missing file, QV_ERR_PARSE for malformed JSON or graph structure, QV_ERR_UNSUPPORTED for an
 * operator Quiver lacks (the message names the operator and the node). */
QV_EXPORT int QvSymbolCreateFromFile(const char *path, QvSymbolHandle *out);

/* As QvSymbolCreateFromFile, from a NUL-terminated JSON string (copied; the caller keeps `json`). */
QV_EXPORT int QvSymbolCreateFromJSON(const char *json, QvSymbolHandle *out);

/* Every variable of the graph (data inputs and parameters), in MXNet's list_inputs order (depth-first
 * from the outputs). *names points to an array owned by the symbol, valid while it lives. */
QV_EXPORT int QvSymbolListInputs(QvSymbolHandle s, uint32_t *n, const char ***names);

/* The graph's outputs, named as MXNet names them ("<node>_output", or "<node>_output<i>" for a
 * node with several outputs). *names is owned by the symbol, valid while it lives. */
QV_EXPORT int QvSymbolListOutputs(QvSymbolHandle s, uint32_t *n, const char ***names);

/* Releases a symbol. Cached ops created from it stay valid. */
QV_EXPORT int QvSymbolFree(QvSymbolHandle s);

/* ---------------------------------------------------------------------------------------------------
 * Arrays
 *
 * An array is a dense, row-major tensor on a device. Work that reads or writes an array runs
 * asynchronously; CanRead / WaitToRead / OnReady observe its completion.
 * ------------------------------------------------------------------------------------------------- */

/* A new zero-filled array. *out is owned by the caller (QvNDArrayFree). Fails with QV_ERR_SHAPE for
 * negative dimensions, QV_ERR_OUT_OF_MEMORY for sizes that cannot be allocated, QV_ERR_DEVICE for a
 * device this build or machine lacks. ndim may be 0 (a scalar). */
QV_EXPORT int QvNDArrayCreate(const int64_t *shape, uint32_t ndim, int dev_type, int dev_id, int dtype,
                              QvNDArrayHandle *out);

/* Wraps caller memory (CPU, dense, row-major) without copying. `release(ctx)` (may be NULL) is called
 * exactly once, on any thread, when no pending or future work uses the memory: after QvNDArrayFree and
 * after every operation reading or writing it has finished. If this call fails, release is not called
 * and the caller keeps the memory. *out is owned by the caller (QvNDArrayFree). */
QV_EXPORT int QvNDArrayCreateFromBuffer(void *data, const int64_t *shape, uint32_t ndim, int dtype,
                                        void (*release)(void *ctx), void *ctx, QvNDArrayHandle *out);

/* Loads an MXNet .params file (an NDArray list). On success *arrays is an array of *n handles, each
 * owned by the caller (QvNDArrayFree); the array of handles itself, and *names (*n_names entries, as
 * stored, with their "arg:"/"aux:" prefixes; 0 when the file stores no names), are owned by the runtime
 * and valid until the next QvNDArrayLoad / QvNDArrayLoadFromBuffer on this thread. On failure
 * (QV_ERR_NOT_FOUND, QV_ERR_PARSE with the byte offset, QV_ERR_UNSUPPORTED) nothing is returned. */
QV_EXPORT int QvNDArrayLoad(const char *path, uint32_t *n, QvNDArrayHandle **arrays, uint32_t *n_names,
                            const char ***names);

/* As QvNDArrayLoad, from `size` bytes in memory (not retained after the call). */
QV_EXPORT int QvNDArrayLoadFromBuffer(const void *buf, size_t size, uint32_t *n, QvNDArrayHandle **arrays,
                                      uint32_t *n_names, const char ***names);

/* The array's shape; *shape is owned by the array, valid while it lives. Never blocks. */
QV_EXPORT int QvNDArrayGetShape(QvNDArrayHandle a, uint32_t *ndim, const int64_t **shape);

/* The array's QvDType code. Never blocks. */
QV_EXPORT int QvNDArrayGetDType(QvNDArrayHandle a, int *dtype);

/* The array's QvDeviceType code and device id. Never blocks. */
QV_EXPORT int QvNDArrayGetDevice(QvNDArrayHandle a, int *dev_type, int *dev_id);

/* The address of a CPU array's first element, for reading results in place (bindings hand it to numpy
 * or a direct ByteBuffer). Valid while the handle lives. The memory holds the result of the work that
 * writes the array only once the array is readable (CanRead / WaitToRead / OnReady); writing to it
 * while work reads the array is the caller's race. Fails with QV_ERR_DEVICE for an array on another
 * device. Never blocks. */
QV_EXPORT int QvNDArrayGetData(QvNDArrayHandle a, void **data);

/* Copies nbytes (which must equal the array's size in bytes) from `data` into the array. Blocks until
 * pending reads and writes of the array have finished, then copies. */
QV_EXPORT int QvNDArraySyncCopyFromCPU(QvNDArrayHandle a, const void *data, size_t nbytes);

/* Copies the array into `data` (nbytes must equal its size in bytes). Blocks like QvNDArrayWaitToRead,
 * and fails with the producing work's status and message if that work failed. */
QV_EXPORT int QvNDArraySyncCopyToCPU(QvNDArrayHandle a, void *data, size_t nbytes);

/* Never blocks. *ready = 1 exactly when QvNDArrayWaitToRead would return at once (with success or with
 * the failure of the work that produced the array), else 0. */
QV_EXPORT int QvNDArrayCanRead(QvNDArrayHandle a, int *ready);

/* Blocks until every write to the array pushed before this call has finished. Returns QV_OK, or the
 * status of the work that produced the array if it failed (its message via QvGetLastError). Must not be
 * called from an OnReady callback. */
QV_EXPORT int QvNDArrayWaitToRead(QvNDArrayHandle a);

/* Calls callback(a, status, user) exactly once when the array becomes readable; status is QV_OK or the
 * failure code of the work that produced it. If the array is readable already, the callback runs at
 * once on the calling thread; otherwise on the runtime's callback thread, never on a compute thread.
 * When status is not QV_OK, QvGetLastError() called inside the callback returns the failure's message.
 * Callbacks run one at a time, must not block, and may call any Qv* function except QvWaitAll and
 * QvNDArrayWaitToRead. The callback receives the handle it was registered on, which stays valid until
 * the callback returns even if the caller freed it meanwhile. */
QV_EXPORT int QvNDArrayOnReady(QvNDArrayHandle a, void (*callback)(QvNDArrayHandle a, int status, void *user),
                               void *user);

/* Releases the handle. Safe while work on the array is pending: storage is released when that work
 * ends. Never blocks. */
QV_EXPORT int QvNDArrayFree(QvNDArrayHandle a);

/* Blocks until all work pushed before the call, by any thread, has finished and the OnReady callbacks
 * it triggered have returned. Returns QV_OK even if some of that work failed (each failure is reported
 * by the arrays it affected). Must not be called from an OnReady callback. */
QV_EXPORT int QvWaitAll(void);

/* ---------------------------------------------------------------------------------------------------
 * Cached ops (compiled, shareable graphs)
 * ------------------------------------------------------------------------------------------------- */

/* Compiles `sym` for a device and binds its parameters once. Parameter names may carry "arg:"/"aux:"
 * prefixes or not; every symbol input that is not a parameter is a data input. The op keeps its own
 * (folded, reordered) copy: the caller may free `params` afterwards. Missing or mis-shaped parameters
 * fail with QV_ERR_NOT_FOUND / QV_ERR_SHAPE naming them.
 *
 * Flags (string keys and values; unknown keys fail with QV_ERR_INVALID_ARGUMENT):
 *   device        "cpu", "cpu(0)", "gpu(N)"                                   default "cpu"
 *   static_shape  "true": input shapes are fixed by the first invocation;
 *                 "false": any batch size / input shape, one compiled plan per shape   default "false"
 *   max_inflight  invocations admitted at once; one more fails with QV_ERR_BUSY   default 64
 *   max_plans     compiled plans kept (one per input shape, each with its workspaces); past it the
 *                 least recently used is dropped, never one an invocation holds, and compiled
 *                 again if its shape comes back                                    default 64
 *   data_shapes   optional, "name:(1,3,224,224);other:(...)": compile these plans now; with
 *                 max_batch_size, also every batch size a queued run can be padded to
 *   buckets       optional, "32,64,128": sequence lengths plans are compiled for. A request whose
 *                 inputs have another length on bucket_axis runs padded with zeros to the next bucket
 *                 (in host memory), and its outputs come back cut to what the unpadded run returns
 *                 (their shapes by shape inference at the request's length); requests of one bucket
 *                 share dynamic batches. Every input with that axis must have the same length there;
 *                 one longer than the largest bucket fails with QV_ERR_SHAPE. Only for models that
 *                 ignore padded positions (a valid-length input, as BERT's; causal layers). With
 *                 data_shapes, the buckets' plans are compiled at creation. Not with static_shape
 *   bucket_axis   the axis buckets pad (0 only without max_batch_size above 1)         default 1
 *   data_types    optional, "tokens:int32;valid_length:int32": the element type a data input takes
 *                 (float32, float64, float16, uint8, int8, int32, int64). Without it, an input takes
 *                 what its symbol variable declares (MXNet's "__dtype__", as mx.sym.var(name,
 *                 dtype=...) writes it), else float32. An invocation must pass exactly that type:
 *                 another fails with QV_ERR_SHAPE naming the input, both types and where the expected
 *                 one came from. Operators that cannot take the type fail creation with
 *                 QV_ERR_SHAPE or QV_ERR_UNSUPPORTED naming the node (QvCachedOpGetInputDType)
 *   precision     what the op computes in; inputs and outputs stay float32 in every precision:
 *                 "float32"  exact to MXNet's float32 results                        (the default)
 *                 "bfloat16" convolutions, fully connected layers and the pooling, batch norm,
 *                            activations and sums between them in bfloat16, accumulating in
 *                            float32 (about 3 significant digits; see docs/precision.rst)
 *                 "int8"     for models carrying int8 calibration (MXNet's quantize_net exports):
 *                            their quantized layers in int8 with the model's ranges; a model
 *                            without calibration fails with QV_ERR_INVALID_ARGUMENT
 *                 "auto"     the fastest the device runs natively (int8 for a calibrated model on a
 *                            CPU with AVX2, else bfloat16 where the CPU has avx512_bf16, else
 *                            float32); QvCachedOpGetPrecision says which
 *                 A precision the device cannot run natively fails with QV_ERR_UNSUPPORTED naming the
 *                 missing instructions; it never falls back silently.
 *   cuda_graphs   "true"/"false": a gpu(N) op replays each plan as a CUDA graph recorded on first
 *                 use, where its kernels allow capture (else, and with "false", it launches them
 *                 one by one; results are the same bits; QUIVER_VERBOSE, above, says which plans
 *                 could not be captured and why). "required": as "true", but the invocations of a
 *                 plan that cannot be captured fail with QV_ERR_UNSUPPORTED naming the operator and
 *                 CUDA's error (for tests). Ignored on the CPU.                    default "true"
 *
 * Scheduling flags (any of them gives the op a request queue; without them invocations go straight
 * to the runtime's workers, as above):
 *   max_batch_size    rows merged along axis 0 into one run; requests whose inputs differ beyond
 *                     axis 0 never share a run. Runs are padded with zero rows to a power of two or
 *                     max_batch_size, so at most log2(max_batch_size) + 2 plans are compiled per
 *                     input shape. Above 1, every input and output must have the batch on axis 0.
 *                     "static_shape" "true" allows only 1.                                 default 1
 *   batch_timeout_us  how long the oldest queued request waits for others before its batch runs
 *                     anyway (a full batch runs at once)                                    default 1000
 *   instances         batches of this op that run at once (on the CPU they share the thread
 *                     budget); "auto": 1 on the CPU, 2 on a GPU, where the next batch forms and
 *                     gathers its inputs while the device runs one                      default "auto"
 *   max_queue         requests queued and not yet running; one more fails with QV_ERR_BUSY default 1024
 * With a queue, priorities order the queue (QvInvokeAsyncEx), a deadline also ends a request while it
 * waits, and QvCancel drops a queued request at once. A failed run fails exactly the requests in it.
 * max_inflight still bounds the requests admitted and not yet finished.
 *
 * thread_safe = 1: any number of threads may invoke at once, each in-flight invocation gets its own
 * workspace while parameters are shared. thread_safe = 0: one workspace; invocations run one after
 * another (still correct from many threads, never in parallel).
 *
 * Blocks while compiling. *out is owned by the caller (QvFreeCachedOp). */
QV_EXPORT int QvCreateCachedOpEx(QvSymbolHandle sym, uint32_t num_params, const char **param_names,
                                 QvNDArrayHandle *params, int num_flags, const char **keys, const char **vals,
                                 QvCachedOpHandle *out, int thread_safe);

/* The data inputs, in the order QvInvokeAsync takes them. *names is owned by the op, valid while it
 * lives. Never blocks. */
QV_EXPORT int QvCachedOpListInputs(QvCachedOpHandle op, uint32_t *n, const char ***names);

/* The outputs, in the order QvInvokeAsync returns them. *names is owned by the op. Never blocks. */
QV_EXPORT int QvCachedOpListOutputs(QvCachedOpHandle op, uint32_t *n, const char ***names);

/* The element type (a QvDType) that data input `index` (QvCachedOpListInputs' order) takes: flag
 * "data_types", else the symbol's declaration, else QV_FLOAT32. An index past the inputs fails with
 * QV_ERR_INVALID_ARGUMENT. Never blocks. */
QV_EXPORT int QvCachedOpGetInputDType(QvCachedOpHandle op, uint32_t index, int *dtype);

/* Validates the inputs (count, dtype, shape), schedules the computation and returns without waiting
 * for it. Inputs are read after pending writes to them finish; writing to an input before the outputs
 * are readable waits for this invocation's read. Inputs of an op on gpu(N) may be on that GPU or on
 * the CPU (copied to the GPU as part of the invocation); its outputs are on the GPU.
 *
 * Outputs: if *outputs is non-NULL on entry and holds *num_outputs arrays of the right shapes and
 * dtype, results are written into them (caller memory stays the caller's). Passing back the array
 * this thread received from the previous call counts as NULL. Otherwise the runtime
 * allocates the outputs, sets *num_outputs and points *outputs at a thread-local array valid until the
 * next QvInvokeAsync on this thread; each handle in it is owned by the caller (QvNDArrayFree).
 *
 * Fails fast, without blocking, with QV_ERR_BUSY when max_inflight invocations are in flight (or
 * max_queue requests are queued, on an op with a request queue), and with
 * QV_ERR_SHAPE / QV_ERR_INVALID_ARGUMENT for wrong inputs. Failures during the computation are reported
 * by the output arrays (WaitToRead, OnReady) and affect no other invocation. Compiling a plan for a new
 * input shape happens in this call (it blocks for that time, once per shape). */
QV_EXPORT int QvInvokeAsync(QvCachedOpHandle op, uint32_t num_inputs, QvNDArrayHandle *inputs,
                            uint32_t *num_outputs, QvNDArrayHandle **outputs);

/* Releases the op. Safe while invocations are in flight: they finish, then the op is released. Requests
 * waiting in its queue run at once, without waiting for batch_timeout_us. Never blocks. */
QV_EXPORT int QvFreeCachedOp(QvCachedOpHandle op);

/* Per-invocation options of QvInvokeAsyncEx. Set struct_size to sizeof(QvInvokeOptions) and zero
 * the rest (memset) before setting fields: later versions append fields, and a library older than
 * the caller's header accepts the larger struct as long as the fields it does not know are zero. */
typedef struct QvInvokeOptions {
  size_t struct_size;  /* sizeof(QvInvokeOptions) */
  int64_t deadline_us; /* > 0: fail with QV_ERR_DEADLINE_EXCEEDED unless finished this many
                          microseconds after submission; 0: no deadline */
  int32_t priority;    /* higher runs first among requests queued on the same op; default 0 */
} QvInvokeOptions;

/* As QvInvokeAsync, with options (NULL: the defaults, exactly QvInvokeAsync). A request past its
 * deadline is never run late: it ends with QV_ERR_DEADLINE_EXCEEDED while queued, between two
 * operators of its run, or instead of delivering its results; its outputs report that status. On an
 * op without a request queue (no scheduling flags) priority has no effect and a deadline is checked
 * when the invocation starts, between operators and at its end. Fails with QV_ERR_INVALID_ARGUMENT for
 * a struct_size smaller than version 1's, a negative deadline, or unknown fields that are set. */
QV_EXPORT int QvInvokeAsyncEx(QvCachedOpHandle op, uint32_t num_inputs, QvNDArrayHandle *inputs,
                              uint32_t *num_outputs, QvNDArrayHandle **outputs, const QvInvokeOptions *options);

/* Cancels the invocation that last wrote `output` (any of its outputs). A request still queued is
 * dropped at once; one running alone stops at its next operator boundary; one sharing a batch with
 * others leaves it at once (the others go on). Its outputs then report QV_ERR_CANCELLED to
 * WaitToRead / OnReady. *cancelled (may be NULL) is 1 if the invocation had not finished, else 0 (it
 * finished, or delivers its results already, or the array was never written by an invocation): then
 * nothing changes. Never blocks. */
QV_EXPORT int QvCancel(QvNDArrayHandle output, int *cancelled);

/* What `op` runs, after the runtime's inference passes, as a JSON object (UTF-8):
 *   {"nodes": [{"name": "...", "op": "...", "fused": [{"name": "...", "op": "..."}, ...]}, ...]}
 * one entry per operator node, in execution order ("op" is the operator's canonical name); "fused"
 * lists the model file's nodes merged into that node, in the order they were merged: a BatchNorm
 * folded into the convolution before it, activations and residual additions run as the node's
 * post-operations. Nodes the passes dropped outright (Dropout, identity copies) appear nowhere. Keys
 * may be added in later versions, never removed. *json is owned by the op, valid while it lives.
 * Never blocks. */
QV_EXPORT int QvCachedOpDescribe(QvCachedOpHandle op, const char **json);

/* The precision `op` computes in: "float32", "bfloat16" or "int8" (flag "precision" as resolved at
 * creation: "auto" is never returned). *precision is a static string. Never blocks. */
QV_EXPORT int QvCachedOpGetPrecision(QvCachedOpHandle op, const char **precision);

/* Every flag QvCreateCachedOpEx takes, as a JSON array (UTF-8) in the order documented above:
 *   [{"name": "device", "default": "cpu", "help": "..."}, ...]
 * ("default" is "" where a flag has none). The same table parses the flags, so this list is never out of
 * date. Keys may be added in later versions, never removed. *json is a static string. Never blocks. */
QV_EXPORT int QvListCachedOpFlags(const char **json);

/* What `op` has done since it was created, as a JSON object (UTF-8), counted as it happens:
 *   {"requests": {"admitted", "rejected_busy", "completed", "failed", "cancelled", "deadline_exceeded"},
 *    "queue_wait_us": {"count", "p50", "p90", "p99"}, "run_us": {"count", "p50", "p90", "p99"},
 *    "batches": {"count", "rows", "padding_rows", "sizes": {"ROWS": batches, ...}},
 *    "plans": {"compiled", "cached", "evicted"}}
 * Requests are counted when admitted (QvInvokeAsync returned QV_OK) and again, by how they ended, when
 * their outputs become readable; rejected_busy counts max_inflight and max_queue refusals. A request
 * whose input holds a failure of the work that produced it ends with that failure without running,
 * and is counted as admitted only. Queue waits (ops with a request queue) run from submission to the
 * start of the request's batch; run times from the start of a run to its end (a batch counts once).
 * Percentiles are within 12.5% of the true value. Keys may be added in later versions, never removed.
 * *json is valid until the next QvCachedOpGetStats on this thread. Never blocks. */
QV_EXPORT int QvCachedOpGetStats(QvCachedOpHandle op, const char **json);

/* ---------------------------------------------------------------------------------------------------
 * Int8 calibration (for float32 models; see docs/precision.rst)
 * ------------------------------------------------------------------------------------------------- */

/* Starts calibrating a float32 model for precision int8: AddBatch runs it over sample batches and
 * records the range of every tensor an int8 model quantizes; Save writes the calibrated model in
 * MXNet 1.9's quantized format (what `mxnet.contrib.quantization.quantize_net` exports), which
 * QvCreateCachedOpEx runs with precision "int8" and MXNet 1.9 loads too. `sym` and the parameters are
 * as for QvCreateCachedOpEx (the calibrator keeps its own copy).
 *
 * Flags (unknown keys or values fail with QV_ERR_INVALID_ARGUMENT):
 *   calib_mode  "naive": each tensor's range is the smallest and largest value seen   default "naive"
 *               "entropy": MXNet's KL calibration: each tensor's values are counted in a histogram
 *               (8001 bins over [-max|x|, max|x|], widened by whole bins when a later batch reaches
 *               further) and its range is [-t, t], or [0, t] for a tensor never negative, t the bin
 *               edge whose int8 quantization of the histogram has the smallest KL divergence from it
 *               (MXNet 1.9's thresholds, exactly, for the same float32 values). Memory: 8001 counts
 *               per calibrated tensor; QvCalibratorSave searches the thresholds.
 *
 * Convolutions (with the BatchNorm, relu or clip, and residual addition after them), fully connected
 * layers, and the pooling and flatten between them are quantized. Fails with
 * QV_ERR_INVALID_ARGUMENT for a model that already carries int8 calibration or has no convolution or
 * fully connected layer, and as QvCreateCachedOpEx for parameters that do not fit. Blocks while
 * compiling. *out is owned by the caller (QvCalibratorFree). */
QV_EXPORT int QvCalibratorCreate(QvSymbolHandle sym, uint32_t num_params, const char **param_names,
                                 QvNDArrayHandle *params, int num_flags, const char **keys, const char **vals,
                                 QvCalibratorHandle *out);

/* The data inputs, in the order QvCalibratorAddBatch takes them. *names is owned by the calibrator.
 * Never blocks. */
QV_EXPORT int QvCalibratorListInputs(QvCalibratorHandle c, uint32_t *n, const char ***names);

/* Runs the float32 model on one batch (float32 arrays, any batch size) and widens the recorded ranges
 * (entropy: counts the values into each tensor's histogram); blocks until done. Fails as QvInvokeAsync for wrong inputs, and with QV_ERR_INVALID_ARGUMENT naming
 * the tensor when the batch yields NaN or infinity (the ranges then stay as they were). Thread-safe. */
QV_EXPORT int QvCalibratorAddBatch(QvCalibratorHandle c, uint32_t num_inputs, QvNDArrayHandle *inputs);

/* Writes the calibrated model: MXNet symbol JSON to `symbol_path`, its parameters to `params_path`
 * (MXNet's .params format; convolution weights stay float32, fully connected weights and biases are
 * stored in int8 with their ranges, as MXNet stores them). Fails with QV_ERR_INVALID_ARGUMENT before
 * any batch was added or when a file cannot be written. More batches may be added afterwards. Blocks;
 * in entropy mode it searches every histogram's thresholds first (about 0.1 s per tensor). */
QV_EXPORT int QvCalibratorSave(QvCalibratorHandle c, const char *symbol_path, const char *params_path);

/* Releases the calibrator. Never blocks. */
QV_EXPORT int QvCalibratorFree(QvCalibratorHandle c);

/* ---------------------------------------------------------------------------------------------------
 * Profiler
 *
 * While it is on, the runtime records a span per invocation (start to end; a batch is one invocation
 * of several requests), per request that waited in a queue (its wait), and per plan step (the node's
 * name as QvCachedOpDescribe gives it, its operator, input shapes and fused nodes; layout conversions
 * as "conversion"). On a GPU a step's span is timed by CUDA events on its stream and placed on a track
 * of its own, named after the stream ("gpu(0) stream 1"); while the profiler is on, a plan's steps run
 * one by one instead of replaying its CUDA graph. Spans are kept in memory (at most 2^20; more are
 * counted as dropped) for every cached op of the process until QvProfilerClear. Off (the default), it
 * costs one atomic load per step.
 * ------------------------------------------------------------------------------------------------- */

/* Starts recording; spans already kept stay. Never blocks. */
QV_EXPORT int QvProfilerStart(void);

/* Stops recording; the spans stay until QvProfilerClear. A span that ends after the stop (an
 * invocation in flight) is not kept. Never blocks. */
QV_EXPORT int QvProfilerStop(void);

/* Drops every span kept and the dropped count. Never blocks. */
QV_EXPORT int QvProfilerClear(void);

/* The spans as a Chrome trace (chrome://tracing, Perfetto: {"traceEvents": [...]}, complete events in
 * microseconds from the profiler's first start, one "tid" per runtime thread or GPU stream, a GPU
 * stream's named by a "thread_name" metadata event; "otherData" holds the dropped count). A plan
 * step's "args" hold its operator ("op"), input shapes and fused nodes ("detail") and, where the
 * backend chose how to compute it, that implementation ("kernel": oneDNN's name for it, or "winograd
 * F(2x2, 3x3) + " the matrix product's). *json is valid until the next QvProfilerGetTrace on this thread. */
QV_EXPORT int QvProfilerGetTrace(const char **json);

/* Writes QvProfilerGetTrace's JSON to `path`. Fails with QV_ERR_INVALID_ARGUMENT when the file cannot
 * be written, naming it. */
QV_EXPORT int QvProfilerDumpTrace(const char *path);

/* Aggregate statistics of the spans kept, as JSON, like MXNet's aggregate_stats:
 *   {"operators": [{"op", "count", "total_us", "mean_us", "share"}, ...],   per operator type
 *    "nodes": [{"node", "op", "kernel", "count", "total_us", "mean_us", "share"}, ...], per node
 *                                                ("kernel" as in the trace's args, or "")
 *    "invocations": {"count", "total_us", "mean_us"}, "queue": {"count", "total_us", "mean_us"},
 *    "dropped": n}
 * sorted by total time, longest first; "share" is the fraction of all step time. *json is valid until
 * the next QvProfilerGetAggregate on this thread. */
QV_EXPORT int QvProfilerGetAggregate(const char **json);

/* ---------------------------------------------------------------------------------------------------
 * Device memory without copies
 *
 * Tensors another library keeps on a GPU (PyTorch, CuPy, JAX: what DLPack and the CUDA array interface
 * hand out) become inputs without crossing the host, and a GPU array's memory can be handed on the same
 * way. Ordering: the runtime reads a wrapped pointer only after the work queued on the producer's stream
 * (given at wrapping) has completed; the runtime's own writes to an array have completed on the device
 * once the array is readable (CanRead / WaitToRead / OnReady), so any stream may read it from then on.
 * ------------------------------------------------------------------------------------------------- */

/* Wraps device memory the caller owns (dense, row-major, `shape` and `dtype`, on device (dev_type,
 * dev_id): a CUDA device pointer for QV_GPU, host memory for QV_CPU) without copying. `stream` is the
 * stream whose queued work produces the memory (a cudaStream_t; NULL: nothing is pending, and the only
 * value a CPU array takes): every operation on the array is ordered after the work queued on it until
 * this call, without blocking the caller. `release(ctx)` (may be NULL) is called exactly once, on any
 * thread, when no pending or future work uses the memory (after QvNDArrayFree and every operation on the
 * array). Fails with QV_ERR_DEVICE for a device this build or machine lacks, QV_ERR_INVALID_ARGUMENT for
 * a stream on the CPU; on failure release is not called and the caller keeps the memory. *out is owned
 * by the caller (QvNDArrayFree). Never blocks. */
QV_EXPORT int QvNDArrayCreateFromDevicePointer(void *data, const int64_t *shape, uint32_t ndim, int dtype,
                                               int dev_type, int dev_id, void *stream,
                                               void (*release)(void *ctx), void *ctx, QvNDArrayHandle *out);

/* The address of an array's first element on its device (a CUDA device pointer for a GPU array, as
 * QvNDArrayGetData for a CPU array), valid while the handle lives, for handing the memory to another
 * library without a copy. It holds the result of the work that writes the array once the array is
 * readable; reading it on another stream before then, or writing it while work reads the array, is the
 * caller's race. Never blocks. */
QV_EXPORT int QvNDArrayGetDevicePointer(QvNDArrayHandle a, void **data);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QUIVER_C_API_H_ */
