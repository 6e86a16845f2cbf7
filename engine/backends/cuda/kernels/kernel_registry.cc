#include <map>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/row_major_layout.h"
#include "common/error.h"

namespace qv::cuda {
namespace {

std::map<std::string, KernelFactory>& Registry() {
  static auto* registry = new std::map<std::string, KernelFactory>();
  return *registry;
}

}  // namespace

void CudaKernel::Execute(const ExecArgs&) const {
  throw Error(Status::kInternal, "a CUDA kernel was run outside a CUDA execution");
}

CudaKernelRegistrar::CudaKernelRegistrar(const std::vector<std::string>& ops, KernelFactory factory) {
  for (const std::string& op : ops) Registry()[op] = factory;
}

KernelFactory FindCudaKernel(const std::string& op) {
  auto it = Registry().find(op);
  return it == Registry().end() ? nullptr : it->second;
}

std::vector<std::string> ListCudaKernels() {
  std::vector<std::string> ops;
  for (const auto& kv : Registry()) ops.push_back(kv.first);
  return ops;
}

KernelBuild RowMajorBuild(const KernelRequest& request, std::vector<int> runtime_inputs,
                          std::unique_ptr<CudaKernel> kernel) {
  KernelBuild build;
  for (int i : runtime_inputs) build.input_layouts.push_back(RowMajorLayout(request.inputs[i].type));
  for (const TensorType& out : request.outputs) build.output_layouts.push_back(RowMajorLayout(out));
  build.runtime_inputs = std::move(runtime_inputs);
  build.kernel = std::move(kernel);
  return build;
}

const CudaKernel& AsCudaKernel(const Kernel& kernel, const std::string& node) {
  const auto* cuda_kernel = dynamic_cast<const CudaKernel*>(&kernel);
  Check(cuda_kernel != nullptr, Status::kInternal, "node '" + node + "': not a CUDA kernel");
  return *cuda_kernel;
}

void CheckLaunch(const char* what) { CheckCuda(cudaGetLastError(), std::string("launching ") + what); }

}  // namespace qv::cuda
