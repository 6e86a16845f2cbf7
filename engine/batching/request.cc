#include "batching/request.h"

#include "common/error.h"

namespace qv {

RequestPtr NewRequest(std::vector<NDArrayPtr> inputs, std::vector<NDArrayPtr> outputs,
                      const std::vector<std::string>& input_names, const std::vector<std::string>& output_names,
                      const std::vector<TensorType>& output_types, bool merge_rows) {
  auto r = std::make_shared<Request>();
  if (!inputs.empty() && !inputs[0]->shape().empty()) r->rows = inputs[0]->shape()[0];
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i]->shape();
    // Every queued request passes here: the messages are built only when a check fails.
    if (merge_rows && (s.empty() || s[0] != r->rows))
      throw Error(Status::kShape, "input '" + input_names[i] + "' has shape " + ShapeToString(s) +
                                    ": with max_batch_size > 1 every input needs the batch on axis 0, of the same "
                                    "length (" + std::to_string(r->rows) + ")");
    r->group.push_back(s.empty() ? s : Shape(s.begin() + 1, s.end()));
  }
  if (merge_rows)
    for (size_t k = 0; k < output_types.size(); ++k) {
      const Shape& s = output_types[k].shape;
      if (s.empty() || s[0] != r->rows)
        throw Error(Status::kShape, "output '" + output_names[k] + "' has shape " + ShapeToString(s) +
                                      " for an input batch of " + std::to_string(r->rows) +
                                      ": max_batch_size > 1 needs outputs with the batch on axis 0");
    }
  r->inputs = std::move(inputs);
  r->outputs = std::move(outputs);
  return r;
}

}  // namespace qv
