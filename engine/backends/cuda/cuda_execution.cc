#include "backends/cuda/cuda_execution.h"

#include "backends/cuda/cuda_devices.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_kernel.h"
#include "backends/cuda/device_resources.h"
#include "common/error.h"

namespace qv::cuda {

CudaExecution::CudaExecution(const Device& device) : device_(device), stream_(ResourcesOf(device.id).streams) {
  CurrentDevice current(device_.id);
  // Timing off: the event only marks completion, which makes recording and waiting cheaper.
  CheckCuda(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "creating an event on " + device_.ToString());
}

CudaExecution::~CudaExecution() {
  // Nothing here may throw (CurrentDevice does): errors were reported by the step or Finish that met them.
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(device_.id);
  cudaStreamSynchronize(stream_.get());
  cudaEventDestroy(done_);
  cudaGetLastError();
  cudaSetDevice(previous);
}

void CudaExecution::Run(const Kernel& kernel, ExecArgs& args, int, const std::string& node) {
  const auto* cuda_kernel = dynamic_cast<const CudaKernel*>(&kernel);
  Check(cuda_kernel != nullptr, Status::kInternal, "node '" + node + "': not a CUDA kernel");
  CurrentDevice current(device_.id);
  try {
    cuda_kernel->Enqueue(args, stream_.context());
  } catch (const Error& e) {
    throw Error(e.status(), "node '" + node + "' on " + device_.ToString() + ": " + e.what());
  }
}

void CudaExecution::Finish() {
  CurrentDevice current(device_.id);
  const std::string where = " on " + device_.ToString();
  CheckCuda(cudaEventRecord(done_, stream_.get()), "recording completion" + where);
  // Errors of asynchronous work (a kernel that faulted) surface here.
  CheckCuda(cudaEventSynchronize(done_), "running the invocation" + where);
}

}  // namespace qv::cuda
