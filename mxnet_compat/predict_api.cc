// MXNet's c_predict_api.h functions over Predictor (predictor.h).
#include <memory>

#include "errors.h"
#include "mx_abi.h"
#include "predictor.h"

namespace mxc {
namespace {

std::map<std::string, std::vector<int64_t>> InputShapes(uint32_t num_input_nodes, const char** input_keys,
                                                         const uint32_t* indptr, const uint32_t* data) {
  Require(num_input_nodes == 0 || (input_keys && indptr && data), "input_keys or the shape arrays are NULL");
  std::map<std::string, std::vector<int64_t>> shapes;
  for (uint32_t i = 0; i < num_input_nodes; ++i) {
    Require(input_keys[i] != nullptr, "input key " + std::to_string(i) + " is NULL");
    Require(indptr[i] <= indptr[i + 1], "input_shape_indptr is not ascending at " + std::to_string(i));
    shapes[input_keys[i]] = std::vector<int64_t>(data + indptr[i], data + indptr[i + 1]);
  }
  return shapes;
}

Predictor* PredFromHandle(void* handle) {
  Require(handle != nullptr, "Predictor handle is NULL");
  return static_cast<Predictor*>(handle);
}

// Every create call: one model, `count` handles on it.
void Create(PredictorSpec& spec, uint32_t num_input_nodes, const char** input_keys, const uint32_t* indptr,
            const uint32_t* data, int count, PredictorHandle* out) {
  Require(out != nullptr, "out is NULL");
  Require(count >= 1, "num_threads must be at least 1, got " + std::to_string(count));
  spec.input_shapes = InputShapes(num_input_nodes, input_keys, indptr, data);
  auto model = Predictor::Compile(spec);
  std::vector<std::unique_ptr<Predictor>> made;
  for (int i = 0; i < count; ++i) made.push_back(std::make_unique<Predictor>(model, spec.input_shapes));
  for (int i = 0; i < count; ++i) out[i] = made[i].release();
}

}  // namespace
}  // namespace mxc

using mxc::Guarded;
using mxc::PredictorSpec;
using mxc::Require;

int MXPredCreateEx(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type, int dev_id,
                   const uint32_t num_input_nodes, const char** input_keys, const uint32_t* input_shape_indptr,
                   const uint32_t* input_shape_data, const uint32_t num_provided_arg_dtypes,
                   const char** provided_arg_dtype_names, const int* provided_arg_dtypes, PredictorHandle* out) {
  return Guarded(__func__, [&] {
    PredictorSpec spec{symbol_json_str, param_bytes, param_size, dev_type, dev_id, {}, {}, {}, false};
    Require(num_provided_arg_dtypes == 0 || (provided_arg_dtype_names && provided_arg_dtypes),
            "provided_arg_dtype_names or provided_arg_dtypes is NULL");
    for (uint32_t i = 0; i < num_provided_arg_dtypes; ++i) {
      Require(provided_arg_dtype_names[i] != nullptr, "provided_arg_dtype_names[" + std::to_string(i) + "] is NULL");
      spec.arg_dtypes[provided_arg_dtype_names[i]] = provided_arg_dtypes[i];
    }
    mxc::Create(spec, num_input_nodes, input_keys, input_shape_indptr, input_shape_data, 1, out);
  });
}

int MXPredCreate(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type, int dev_id,
                 uint32_t num_input_nodes, const char** input_keys, const uint32_t* input_shape_indptr,
                 const uint32_t* input_shape_data, PredictorHandle* out) {
  return MXPredCreateEx(symbol_json_str, param_bytes, param_size, dev_type, dev_id, num_input_nodes, input_keys,
                        input_shape_indptr, input_shape_data, 0, nullptr, nullptr, out);
}

int MXPredCreatePartialOut(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type,
                           int dev_id, uint32_t num_input_nodes, const char** input_keys,
                           const uint32_t* input_shape_indptr, const uint32_t* input_shape_data,
                           uint32_t num_output_nodes, const char** output_keys, PredictorHandle* out) {
  return Guarded(__func__, [&] {
    PredictorSpec spec{symbol_json_str, param_bytes, param_size, dev_type, dev_id, {}, {}, {}, false};
    Require(num_output_nodes == 0 || output_keys != nullptr, "output_keys is NULL");
    for (uint32_t i = 0; i < num_output_nodes; ++i) {
      Require(output_keys[i] != nullptr, "output_keys[" + std::to_string(i) + "] is NULL");
      spec.output_keys.push_back(output_keys[i]);
    }
    mxc::Create(spec, num_input_nodes, input_keys, input_shape_indptr, input_shape_data, 1, out);
  });
}

// MXNet insists on MXNET_ENGINE_TYPE=NaiveEngine here; Quiver's op is thread-safe under any setting,
// so the handles share one set of parameters and run in parallel.
int MXPredCreateMultiThread(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type,
                            int dev_id, uint32_t num_input_nodes, const char** input_keys,
                            const uint32_t* input_shape_indptr, const uint32_t* input_shape_data, int num_threads,
                            PredictorHandle* out) {
  return Guarded(__func__, [&] {
    PredictorSpec spec{symbol_json_str, param_bytes, param_size, dev_type, dev_id, {}, {}, {}, true};
    mxc::Create(spec, num_input_nodes, input_keys, input_shape_indptr, input_shape_data, num_threads, out);
  });
}

int MXPredReshape(uint32_t num_input_nodes, const char** input_keys, const uint32_t* input_shape_indptr,
                  const uint32_t* input_shape_data, PredictorHandle handle, PredictorHandle* out) {
  return Guarded(__func__, [&] {
    Require(out != nullptr, "out is NULL");
    auto changes = mxc::InputShapes(num_input_nodes, input_keys, input_shape_indptr, input_shape_data);
    *out = mxc::PredFromHandle(handle)->Reshape(changes).release();
  });
}

int MXPredGetOutputShape(PredictorHandle handle, uint32_t index, uint32_t** shape_data, uint32_t* shape_ndim) {
  return Guarded(__func__, [&] {
    Require(shape_data && shape_ndim, "a pointer argument is NULL");
    // The handle owns the buffer (valid while it lives); MXNet's is valid until the next call.
    auto& shape = const_cast<std::vector<uint32_t>&>(mxc::PredFromHandle(handle)->OutputShape(index));
    *shape_data = shape.data();
    *shape_ndim = static_cast<uint32_t>(shape.size());
  });
}

// MXNet 1.9.1 stores the type at out_dtype[out_index], not *out_dtype; programs written against it
// pass an array, so the drop-in writes the same element.
int MXPredGetOutputType(PredictorHandle handle, uint32_t out_index, int* out_dtype) {
  return Guarded(__func__, [&] {
    Require(out_dtype != nullptr, "out_dtype is NULL");
    out_dtype[out_index] = mxc::PredFromHandle(handle)->OutputType(out_index);
  });
}

int MXPredSetInput(PredictorHandle handle, const char* key, const float* data, uint32_t size) {
  return Guarded(__func__, [&] {
    Require(key != nullptr, "key is NULL");
    mxc::PredFromHandle(handle)->SetInput(key, data, size);
  });
}

int MXPredForward(PredictorHandle handle) {
  return Guarded(__func__, [&] { mxc::PredFromHandle(handle)->Forward(); });
}

// Quiver runs a graph as one step: step 0 runs all of it and no step is left, so MXNet's loop
// "for (step = 0; step_left > 0; ++step)" ends after the first call with the outputs ready.
int MXPredPartialForward(PredictorHandle handle, int step, int* step_left) {
  return Guarded(__func__, [&] {
    Require(step_left != nullptr, "step_left is NULL");
    Require(step >= 0, "step must not be negative, got " + std::to_string(step));
    if (step == 0) mxc::PredFromHandle(handle)->Forward();
    *step_left = 0;
  });
}

int MXPredGetOutput(PredictorHandle handle, uint32_t index, float* data, uint32_t size) {
  return Guarded(__func__, [&] { mxc::PredFromHandle(handle)->GetOutput(index, data, size); });
}

int MXPredFree(PredictorHandle handle) {
  return Guarded(__func__, [&] { delete mxc::PredFromHandle(handle); });
}
