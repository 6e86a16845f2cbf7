// An invocation's bound pieces (InputBinding, OutputBinding) copied into and out of the device buffers
// a plan reads and writes, enqueued on a stream: a batch's requests' rows, and host inputs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "backends/backend.h"

namespace qv::cuda {

// Enqueues on `stream` of gpu(`device`) the copies of `pieces`, one after another, into `dst` (a buffer
// of `bytes`), and zero-fills the rest. Host pieces go through pinned blocks, appended to `pinned`
// (also when this throws): the caller gives them back to PinnedHostMemory() once the stream has
// passed the copies. Throws Error.
void EnqueueGather(void* dst, size_t bytes, const InputBinding& pieces, cudaStream_t stream, int device,
                   std::vector<void*>* pinned);

// Enqueues on `stream` of gpu(`device`) the copies of consecutive stretches of `src`, one per piece,
// into `pieces`. Throws Error.
void EnqueueScatter(const void* src, const OutputBinding& pieces, cudaStream_t stream, int device);

}  // namespace qv::cuda
