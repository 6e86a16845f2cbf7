// Offsets for a plan's intermediate buffers in one workspace, reusing memory whose contents are dead.
#pragma once

#include <cstddef>
#include <vector>

namespace qv {

struct BufferLifetime {
  size_t bytes = 0;
  int first_step = 0;  // written by this step
  int last_step = 0;   // last read by this step
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // per buffer, 64-byte aligned
  size_t total_bytes = 0;
};

// Greedy best-fit in step order. A buffer written by step s never overlaps one still read at s.
MemoryPlan PlanMemory(const std::vector<BufferLifetime>& buffers);

}  // namespace qv
