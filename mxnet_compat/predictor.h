// What an MXNet PredictorHandle points at: one compiled model (a Quiver cached op holding the
// parameters, shared by the handles of MXPredCreateMultiThread and MXPredReshape) and the handle's
// own input and output arrays.
#ifndef QUIVER_MXNET_COMPAT_PREDICTOR_H_
#define QUIVER_MXNET_COMPAT_PREDICTOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "quiver/c_api.h"

namespace mxc {

struct PredictorModel {
  ~PredictorModel();
  QvCachedOpHandle op = nullptr;
  std::vector<std::string> data_names;  // the op's data inputs, in invocation order
  std::map<std::string, int> dtypes;    // per data input
};

// What a create call asks for; the fields mirror MXPredCreate*'s arguments.
struct PredictorSpec {
  const char* symbol_json = nullptr;
  const void* param_bytes = nullptr;
  int param_size = 0;
  int dev_type = 1, dev_id = 0;
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::vector<std::string> output_keys;  // empty: the symbol's own outputs
  std::map<std::string, int> arg_dtypes;
  bool thread_safe = false;
};

class Predictor {
 public:
  Predictor(std::shared_ptr<PredictorModel> model, std::map<std::string, std::vector<int64_t>> shapes);
  ~Predictor();
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;

  static std::shared_ptr<PredictorModel> Compile(const PredictorSpec& spec);

  // A predictor on the same model with some input shapes changed; runs once to check them.
  std::unique_ptr<Predictor> Reshape(const std::map<std::string, std::vector<int64_t>>& changes) const;

  void SetInput(const std::string& key, const float* data, uint32_t size);
  void Forward();  // asynchronous; failures surface in GetOutput, as in MXNet
  const std::vector<uint32_t>& OutputShape(uint32_t index);
  int OutputType(uint32_t index);
  void GetOutput(uint32_t index, float* data, uint32_t size);

 private:
  QvNDArrayHandle Output(uint32_t index);  // runs the model once if it never ran

  std::shared_ptr<PredictorModel> model_;
  std::map<std::string, std::vector<int64_t>> shapes_;
  std::vector<QvNDArrayHandle> inputs_;   // per model_->data_names
  std::vector<QvNDArrayHandle> outputs_;  // empty until the first Forward
  std::vector<std::vector<uint32_t>> output_shapes_;
};

}  // namespace mxc

#endif  // QUIVER_MXNET_COMPAT_PREDICTOR_H_
