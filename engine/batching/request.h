// One invocation waiting in, or running from, a cached op's request queue.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/counted_slot.h"
#include "tensor/tensor_type.h"
#include "scheduler/invocation_control.h"
#include "tensor/ndarray.h"

namespace qv {

struct Request {
  using Clock = InvocationControl::Clock;  // deadlines and queue times are compared

  std::vector<NDArrayPtr> inputs, outputs;
  int64_t rows = 1;               // length of axis 0, shared by every input
  std::vector<Shape> group;       // input shapes without axis 0: only equal groups share a run
  int priority = 0;               // higher first
  uint64_t sequence = 0;          // arrival order, set by the queue
  Clock::time_point arrived;      // when it entered the queue
  std::shared_ptr<InvocationControl> control;
  std::shared_ptr<const void> keepalive;  // the op: it lives as long as its requests
  std::shared_ptr<void> admission;        // max_inflight's slot, freed when the request ends
  std::shared_ptr<CountedSlot> queue_slot;  // max_queue's slot, released when it leaves the queue
};

using RequestPtr = std::shared_ptr<Request>;

// A request over validated inputs and outputs. With `merge_rows` (max_batch_size > 1), checks that
// its rows can share a run: every input has the same axis-0 length and every output type
// (`output_types`, as compiled for these inputs) has it too; else Status::kShape naming the array.
RequestPtr NewRequest(std::vector<NDArrayPtr> inputs, std::vector<NDArrayPtr> outputs,
                      const std::vector<std::string>& input_names, const std::vector<std::string>& output_names,
                      const std::vector<TensorType>& output_types, bool merge_rows);

}  // namespace qv
