// Prints the versions of the CUDA libraries this build loads at run time (resolved as libquiver.so's
// are: the same link line and run path), beside those its headers were compiled against, and the GPUs
// the driver reports. The GPU check (scripts/gpu_check.sh) puts them in its table, so a failure on a
// GPU machine can be read against what actually ran. Works without a GPU or a driver too.
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdio>

namespace {

// cuDNN 9 and cuBLAS 13 both encode major * 10000 + minor * 100 + patch.
void PrintVersion(const char* library, size_t loaded, size_t built) {
  std::printf("%s %zu.%zu.%zu (headers %zu.%zu.%zu)\n", library, loaded / 10000, loaded / 100 % 100, loaded % 100,
              built / 10000, built / 100 % 100, built % 100);
}

}  // namespace

int main() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);  // 0 without a driver
  std::printf("CUDA runtime %d.%d (headers %d.%d), ", runtime / 1000, runtime % 1000 / 10, CUDART_VERSION / 1000,
              CUDART_VERSION % 1000 / 10);
  if (driver == 0) {
    std::printf("no driver\n");
  } else {
    std::printf("driver for CUDA %d.%d\n", driver / 1000, driver % 1000 / 10);
  }
  PrintVersion("cuDNN", cudnnGetVersion(), CUDNN_VERSION);
  PrintVersion("cuBLASLt", cublasLtGetVersion(), CUBLAS_VERSION);
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    std::printf("no GPU: %s (%s)\n", cudaGetErrorName(status), cudaGetErrorString(status));
    return 0;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p = {};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    std::printf("gpu(%d): %s, sm_%d%d, %d SMs, %.1f GiB\n", i, p.name, p.major, p.minor, p.multiProcessorCount,
                static_cast<double>(p.totalGlobalMem) / (1 << 30));
  }
  return 0;
}
