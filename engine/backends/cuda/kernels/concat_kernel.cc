// Concat as one strided copy per input: the output viewed as (outer, total * inner) rows, each input
// (outer, its size * inner) copied into its column range of every row.
#include <vector>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/concat.h"

namespace qv::cuda {
namespace {

class ConcatKernel : public CudaKernel {
 public:
  ConcatKernel(int64_t outer, std::vector<size_t> row_bytes, size_t out_row_bytes)
      : outer_(outer), row_bytes_(std::move(row_bytes)), out_row_bytes_(out_row_bytes) {}

  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    char* out = static_cast<char*>(args.outputs[0]);
    size_t column = 0;
    for (size_t i = 0; i < row_bytes_.size(); ++i) {
      CheckCuda(cudaMemcpy2DAsync(out + column, out_row_bytes_, args.inputs[i], row_bytes_[i], row_bytes_[i],
                                  static_cast<size_t>(outer_), cudaMemcpyDeviceToDevice, on.stream),
                "concatenating input " + std::to_string(i));
      column += row_bytes_[i];
    }
  }

 private:
  int64_t outer_;
  std::vector<size_t> row_bytes_;
  size_t out_row_bytes_;
};

KernelBuild BuildConcat(const KernelRequest& req, DeviceConstantStore&) {
  const Shape& out = req.outputs[0].shape;
  const int ndim = static_cast<int>(out.size());
  const int dim = ConcatAxis(req.attrs, out);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= out[d];
  for (int d = dim + 1; d < ndim; ++d) inner *= out[d];
  std::vector<size_t> row_bytes;
  std::vector<int> runtime_inputs;
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    row_bytes.push_back(static_cast<size_t>(req.inputs[i].type.shape[dim] * inner) * sizeof(float));
    runtime_inputs.push_back(static_cast<int>(i));
  }
  const size_t out_row_bytes = static_cast<size_t>(out[dim] * inner) * sizeof(float);
  return RowMajorBuild(req, runtime_inputs, std::make_unique<ConcatKernel>(outer, std::move(row_bytes), out_row_bytes));
}

const CudaKernelRegistrar kRegister({"Concat"}, BuildConcat);

}  // namespace
}  // namespace qv::cuda
