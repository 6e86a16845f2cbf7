// Runs the completions of an emulated device's work on one thread of its own, in the order they were
// handed over, as a GPU's completion poller reports its streams' events: so the runtime above it sees
// invocations end on a thread that is neither the caller's nor an engine worker.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace qv::emulated_gpu {

class CompletionThread {
 public:
  // The one thread of the process, started on first use and never stopped (it waits idle at exit).
  static CompletionThread& Get();

  // Thread-safe; returns at once. `done` runs later on the completion thread, exactly once.
  void Post(std::function<void()> done);

 private:
  CompletionThread();
  void Loop();

  std::mutex mu_;
  std::condition_variable posted_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
};

}  // namespace qv::emulated_gpu
