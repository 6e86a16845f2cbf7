// What the CUDA backend keeps per device for the whole process: a caching pool of its memory, a pool
// of its streams and the thread that reports its invocations' completion. Arrays, workspaces,
// uploaded parameters and executions all draw on these.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "backends/cuda/runtime/block_pool.h"
#include "backends/cuda/runtime/completion_poller.h"
#include "backends/cuda/runtime/stream_pool.h"

namespace qv::cuda {

struct DeviceResources {
  explicit DeviceResources(int id);
  BlockPool memory;
  StreamPool streams;
  CompletionPoller completions;
};

// Made on first use, never destroyed (see device_memory_cuda.cc).
DeviceResources& ResourcesOf(int id);

// Pinned host memory, shared by every device: it stages copies between host and device.
BlockPool& PinnedHostMemory();

}  // namespace qv::cuda
