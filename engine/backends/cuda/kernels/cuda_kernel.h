// The CUDA backend's kernels and their registry. A CUDA kernel does not run on the calling thread:
// Enqueue puts its work on the invocation's stream and returns; CudaExecution (cuda_execution.h) owns
// the stream and waits for it. Kernel factories are registered per canonical operator name, one file
// per operator family, and return the device-neutral KernelBuild with row-major layouts throughout.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/runtime/stream_pool.h"

namespace qv::cuda {

class CudaKernel : public Kernel {
 public:
  // Enqueues the work on `on.stream`, whose device is current on the calling thread (with its cuDNN
  // handle and workspace). Thread-safe: any number of invocations enqueue the same kernel on their own
  // streams. Throws Error on failure.
  virtual void Enqueue(const ExecArgs& args, const StreamContext& on) const = 0;
  // Only an execution of this backend may run a CUDA kernel: it has no synchronous form.
  void Execute(const ExecArgs& args) const final;
};

class DeviceConstantStore;

// A factory builds the kernel of one node: `constants` is the op's store (request.constants, typed).
using KernelFactory = KernelBuild (*)(const KernelRequest& request, DeviceConstantStore& constants);

// nullptr when the CUDA backend has no kernel for this operator (a canonical name).
KernelFactory FindCudaKernel(const std::string& op);
// Every operator with a CUDA kernel, sorted.
std::vector<std::string> ListCudaKernels();

struct CudaKernelRegistrar {
  CudaKernelRegistrar(const std::vector<std::string>& ops, KernelFactory factory);
};

// A build reading `runtime_inputs` (node input indices) and writing the node's outputs, all row-major.
KernelBuild RowMajorBuild(const KernelRequest& request, std::vector<int> runtime_inputs,
                          std::unique_ptr<CudaKernel> kernel);

// `kernel` as a CUDA kernel; throws Error(Status::kInternal) naming `node` when it is another backend's.
const CudaKernel& AsCudaKernel(const Kernel& kernel, const std::string& node);

// Throws Error(Status::kDevice) naming `what` if the last kernel launch on this thread failed.
void CheckLaunch(const char* what);

}  // namespace qv::cuda
