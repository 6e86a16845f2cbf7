#include "backends/cuda/runtime/row_copies.h"

#include <cstring>
#include <string>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/runtime/device_resources.h"

namespace qv::cuda {

void EnqueueGather(void* dst, size_t bytes, const InputBinding& pieces, cudaStream_t stream, int device,
                   std::vector<void*>* pinned) {
  const std::string where = " on gpu(" + std::to_string(device) + ")";
  char* at = static_cast<char*>(dst);
  for (size_t p = 0; p < pieces.size();) {
    if (!pieces[p].host) {
      if (pieces[p].bytes != 0)
        CheckCuda(cudaMemcpyAsync(at, pieces[p].data, pieces[p].bytes, cudaMemcpyDeviceToDevice, stream),
                  "gathering an input's rows" + where);
      at += pieces[p++].bytes;
      continue;
    }
    // A run of host pieces crosses to the device as one copy from one pinned block.
    size_t run = 0, end = p;
    for (; end < pieces.size() && pieces[end].host; ++end) run += pieces[end].bytes;
    if (run != 0) {
      char* staging = static_cast<char*>(PinnedHostMemory().Acquire(run));
      pinned->push_back(staging);
      for (; p < end; ++p) {
        if (pieces[p].bytes != 0) std::memcpy(staging, pieces[p].data, pieces[p].bytes);
        staging += pieces[p].bytes;
      }
      CheckCuda(cudaMemcpyAsync(at, pinned->back(), run, cudaMemcpyHostToDevice, stream),
                "copying an input to the device" + where);
      at += run;
    }
    p = end;
  }
  const size_t rest = bytes - static_cast<size_t>(at - static_cast<char*>(dst));
  if (rest != 0) CheckCuda(cudaMemsetAsync(at, 0, rest, stream), "zeroing an input's padding rows" + where);
}

void EnqueueScatter(const void* src, const OutputBinding& pieces, cudaStream_t stream, int device) {
  const char* at = static_cast<const char*>(src);
  for (const OutputPiece& piece : pieces) {
    if (piece.bytes != 0)
      CheckCuda(cudaMemcpyAsync(piece.data, at, piece.bytes, cudaMemcpyDeviceToDevice, stream),
                "scattering an output's rows on gpu(" + std::to_string(device) + ")");
    at += piece.bytes;
  }
}

}  // namespace qv::cuda
