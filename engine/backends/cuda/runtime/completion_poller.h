// Reports the completion of a device's asynchronous work (an invocation's stream reaching its event)
// from one thread of its own, so no engine thread waits on the device and no CUDA callback (which may
// not call CUDA) ever runs the caller's code. Work is waited for in the order it was added; each time
// the oldest completes, every later one that has completed meanwhile (another stream) is reported too.
// No CUDA in this interface: the waits are functions, so it is tested without a GPU.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace qv::cuda {

class CompletionPoller {
 public:
  struct Pending {
    std::function<bool()> ready;                 // never blocks: has the work completed?
    std::function<std::exception_ptr()> wait;    // blocks until it has; returns its failure or null
    std::function<void(std::exception_ptr)> done;  // then runs on the poller's thread, exactly once
  };

  CompletionPoller();
  // Waits for every pending piece of work and reports it, then ends the thread.
  ~CompletionPoller();
  CompletionPoller(const CompletionPoller&) = delete;
  CompletionPoller& operator=(const CompletionPoller&) = delete;

  // Thread-safe; never blocks on the work itself.
  void Add(Pending pending);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable added_;
  std::deque<Pending> queue_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  std::thread thread_;
};

}  // namespace qv::cuda
