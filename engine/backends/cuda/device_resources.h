// What the CUDA backend keeps per device for the whole process: a caching pool of its memory and a
// pool of its streams. Arrays, workspaces, uploaded parameters and executions all draw on these.
#pragma once

#include "backends/cuda/block_pool.h"
#include "backends/cuda/stream_pool.h"

namespace qv::cuda {

struct DeviceResources {
  explicit DeviceResources(int id);
  BlockPool memory;
  StreamPool streams;
};

// Made on first use, never destroyed (see device_memory_cuda.cc).
DeviceResources& ResourcesOf(int id);

}  // namespace qv::cuda
