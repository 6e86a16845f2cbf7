// A plan's steps replayed as a CUDA graph. A graph bakes in every address its kernels use, so each
// recording is bound to a slot of its own: a workspace arena, a buffer per input and per output, and
// a stream (with its cuDNN handle and kernel workspace), held while the plan may replay them. An
// invocation takes a free slot (or makes a new one, up to kMaxSlots), copies its inputs into the
// slot's buffers, launches the graph and copies the outputs out, all on the slot's stream; completion
// goes through the device's CompletionPoller like an eager run, and gives the slot back.
//
// A slot's first invocation launches the steps one by one on the slot's stream and buffers, and
// captures the graph only after that: a library's set-up on first use (cuDNN, cuBLASLt) and the lazy
// loading of kernels (CUDA's default since 12.2) then happen outside any capture, and the eager run
// gives that invocation its results, so nothing is computed twice.
//
// The plan runs its steps eagerly instead while every slot is busy or another one does not fit in
// memory, and for good once the steps cannot be captured (a kernel that synchronises with the host, a
// copy from pageable memory): that is said once per plan (a Notice naming the step and CUDA's error),
// or, when the capture is required, every invocation fails with that message.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace qv::cuda {

class CudaGraphReplay : public StepReplay {
 public:
  static constexpr size_t kMaxSlots = 4;

  // `required`: steps that cannot be captured fail the invocations (StepRecording::kRequired).
  CudaGraphReplay(const StepSequence& steps, const Device& device, bool required);
  ~CudaGraphReplay() override;

  bool TryRun(const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs,
              Execution::Done& done) override;

 private:
  struct Slot;
  // A free slot, a new one, or null: every slot in use, no memory for another (it may fit later), or
  // steps that cannot be captured. Throws Error for other failures, and when the steps cannot be
  // captured but must be.
  Slot* Acquire();
  // Makes `slot` free again, or frees it once the steps cannot be captured.
  void Return(Slot* slot);
  // Frees a slot that runs nothing: its memory and stream go back now, not with the plan.
  void DropLocked(Slot* slot);
  // Enqueues the steps on the slot's stream and buffers (recorded, not run, while it is captured).
  void EnqueueSteps(Slot& slot, bool capturing) const;
  // Captures the steps into slot.exec. Returns why that failed (the step, CUDA's error), or "".
  std::string Capture(Slot& slot) const;
  // The steps cannot be captured, for `why`: frees the idle slots and says so once, or throws Error
  // when the capture is required.
  void GiveUpCapture(const std::string& why);
  std::string RequiredCaptureFailed(const std::string& why) const;

  const StepSequence& steps_;
  const Device device_;
  const bool required_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Slot>> slots_;  // guarded by mu_
  std::vector<Slot*> free_;                   // guarded by mu_
  std::string uncapturable_;                  // why the steps cannot be captured, or ""; guarded by mu_
};

}  // namespace qv::cuda
