/*
 * The MXNet 1.9.1 C functions that libmxnet.so (Quiver's drop-in) exports, declared here in Quiver's
 * own words with the same C types as MXNet's c_api.h, c_predict_api.h and nnvm/c_api.h, so that
 * programs compiled against MXNet's headers link and run unchanged. Every function returns 0 on
 * success and -1 on failure, with the message in MXGetLastError() (thread-local, as in MXNet).
 * tests/mxnet_compat compiles programs against MXNet's real headers to hold these signatures to them.
 */
#ifndef QUIVER_MXNET_COMPAT_MX_ABI_H_
#define QUIVER_MXNET_COMPAT_MX_ABI_H_

#include <stddef.h>
#include <stdint.h>

#define MX_EXPORT extern "C" __attribute__((visibility("default")))

/* MXNet hands out untyped pointers; each points at one of the structs of this library. */
typedef void *PredictorHandle;
typedef void *NDListHandle;
typedef void *NDArrayHandle;
typedef void *SymbolHandle;
typedef void *CachedOpHandle;

/* Errors and version (errors.cc). */
MX_EXPORT const char *MXGetLastError();
MX_EXPORT const char *NNGetLastError();
MX_EXPORT int MXGetVersion(int *out);

/* Predict API (predict_api.cc, nd_list.cc). */
MX_EXPORT int MXPredCreate(const char *symbol_json_str, const void *param_bytes, int param_size, int dev_type,
                           int dev_id, uint32_t num_input_nodes, const char **input_keys,
                           const uint32_t *input_shape_indptr, const uint32_t *input_shape_data,
                           PredictorHandle *out);
MX_EXPORT int MXPredCreateEx(const char *symbol_json_str, const void *param_bytes, int param_size, int dev_type,
                             int dev_id, const uint32_t num_input_nodes, const char **input_keys,
                             const uint32_t *input_shape_indptr, const uint32_t *input_shape_data,
                             const uint32_t num_provided_arg_dtypes, const char **provided_arg_dtype_names,
                             const int *provided_arg_dtypes, PredictorHandle *out);
MX_EXPORT int MXPredCreatePartialOut(const char *symbol_json_str, const void *param_bytes, int param_size,
                                     int dev_type, int dev_id, uint32_t num_input_nodes, const char **input_keys,
                                     const uint32_t *input_shape_indptr, const uint32_t *input_shape_data,
                                     uint32_t num_output_nodes, const char **output_keys, PredictorHandle *out);
MX_EXPORT int MXPredCreateMultiThread(const char *symbol_json_str, const void *param_bytes, int param_size,
                                      int dev_type, int dev_id, uint32_t num_input_nodes, const char **input_keys,
                                      const uint32_t *input_shape_indptr, const uint32_t *input_shape_data,
                                      int num_threads, PredictorHandle *out);
MX_EXPORT int MXPredReshape(uint32_t num_input_nodes, const char **input_keys, const uint32_t *input_shape_indptr,
                            const uint32_t *input_shape_data, PredictorHandle handle, PredictorHandle *out);
MX_EXPORT int MXPredGetOutputShape(PredictorHandle handle, uint32_t index, uint32_t **shape_data,
                                   uint32_t *shape_ndim);
MX_EXPORT int MXPredGetOutputType(PredictorHandle handle, uint32_t out_index, int *out_dtype);
MX_EXPORT int MXPredSetInput(PredictorHandle handle, const char *key, const float *data, uint32_t size);
MX_EXPORT int MXPredForward(PredictorHandle handle);
MX_EXPORT int MXPredPartialForward(PredictorHandle handle, int step, int *step_left);
MX_EXPORT int MXPredGetOutput(PredictorHandle handle, uint32_t index, float *data, uint32_t size);
MX_EXPORT int MXPredFree(PredictorHandle handle);
MX_EXPORT int MXNDListCreate(const char *nd_file_bytes, int nd_file_size, NDListHandle *out, uint32_t *out_length);
MX_EXPORT int MXNDListGet(NDListHandle handle, uint32_t index, const char **out_key, const float **out_data,
                          const uint32_t **out_shape, uint32_t *out_ndim);
MX_EXPORT int MXNDListFree(NDListHandle handle);

/* Symbols (symbol_api.cc). */
MX_EXPORT int MXSymbolCreateFromFile(const char *fname, SymbolHandle *out);
MX_EXPORT int MXSymbolCreateFromJSON(const char *json, SymbolHandle *out);
MX_EXPORT int MXSymbolListArguments(SymbolHandle symbol, uint32_t *out_size, const char ***out_str_array);
MX_EXPORT int MXSymbolListAuxiliaryStates(SymbolHandle symbol, uint32_t *out_size, const char ***out_str_array);
MX_EXPORT int MXSymbolListOutputs(SymbolHandle symbol, uint32_t *out_size, const char ***out_str_array);
MX_EXPORT int MXSymbolGetInternals(SymbolHandle symbol, SymbolHandle *out);
MX_EXPORT int MXSymbolFree(SymbolHandle symbol);
MX_EXPORT int NNSymbolListInputNames(SymbolHandle symbol, int option, uint32_t *out_size,
                                     const char ***out_str_array);

/* NDArrays (ndarray_api.cc). */
MX_EXPORT int MXNDArrayCreate(const uint32_t *shape, uint32_t ndim, int dev_type, int dev_id, int delay_alloc,
                              NDArrayHandle *out);
MX_EXPORT int MXNDArrayCreateEx(const uint32_t *shape, uint32_t ndim, int dev_type, int dev_id, int delay_alloc,
                                int dtype, NDArrayHandle *out);
MX_EXPORT int MXNDArrayLoad(const char *fname, uint32_t *out_size, NDArrayHandle **out_arr, uint32_t *out_name_size,
                            const char ***out_names);
MX_EXPORT int MXNDArrayLoadFromBuffer(const void *ndarray_buffer, size_t size, uint32_t *out_size,
                                      NDArrayHandle **out_arr, uint32_t *out_name_size, const char ***out_names);
MX_EXPORT int MXNDArraySyncCopyFromCPU(NDArrayHandle handle, const void *data, size_t size);
MX_EXPORT int MXNDArraySyncCopyToCPU(NDArrayHandle handle, void *data, size_t size);
MX_EXPORT int MXNDArrayWaitToRead(NDArrayHandle handle);
MX_EXPORT int MXNDArrayWaitToWrite(NDArrayHandle handle);
MX_EXPORT int MXNDArrayWaitAll();
MX_EXPORT int MXNDArrayGetShape(NDArrayHandle handle, uint32_t *out_dim, const uint32_t **out_pdata);
MX_EXPORT int MXNDArrayGetShapeEx(NDArrayHandle handle, int *out_dim, const int **out_pdata);
MX_EXPORT int MXNDArrayGetDType(NDArrayHandle handle, int *out_dtype);
MX_EXPORT int MXNDArrayGetContext(NDArrayHandle handle, int *out_dev_type, int *out_dev_id);
MX_EXPORT int MXNDArrayFree(NDArrayHandle handle);

/* Cached ops (cached_op_api.cc). */
MX_EXPORT int MXCreateCachedOp(SymbolHandle handle, CachedOpHandle *out);
MX_EXPORT int MXCreateCachedOpEx(SymbolHandle handle, int num_flags, const char **keys, const char **vals,
                                 CachedOpHandle *out);
MX_EXPORT int MXCreateCachedOpEX(SymbolHandle handle, int num_flags, const char **keys, const char **vals,
                                 CachedOpHandle *out, bool thread_safe);
MX_EXPORT int MXInvokeCachedOp(CachedOpHandle handle, int num_inputs, NDArrayHandle *inputs, int *num_outputs,
                               NDArrayHandle **outputs);
MX_EXPORT int MXInvokeCachedOpEx(CachedOpHandle handle, int num_inputs, NDArrayHandle *inputs, int *num_outputs,
                                 NDArrayHandle **outputs, const int **out_stypes);
MX_EXPORT int MXFreeCachedOp(CachedOpHandle handle);

#endif  // QUIVER_MXNET_COMPAT_MX_ABI_H_
