#include "backends/cuda/runtime/completion_poller.h"

#include <utility>

namespace qv::cuda {

CompletionPoller::CompletionPoller() : thread_([this] { Loop(); }) {}

CompletionPoller::~CompletionPoller() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  added_.notify_one();
  thread_.join();
}

void CompletionPoller::Add(Pending pending) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(pending));
  }
  added_.notify_one();
}

void CompletionPoller::Loop() {
  for (;;) {
    Pending oldest;
    {
      std::unique_lock<std::mutex> lock(mu_);
      added_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      oldest = std::move(queue_.front());
      queue_.pop_front();
    }
    // Outside the lock: `done` may add work (it ends an engine operation, which may start the next).
    oldest.done(oldest.wait());
    oldest = Pending();  // what the work held is released before later work is reported
    for (;;) {
      Pending finished;
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto it = queue_.begin(); it != queue_.end(); ++it) {
          if (it->ready()) {
            finished = std::move(*it);
            queue_.erase(it);
            break;
          }
        }
      }
      if (!finished.done) break;
      finished.done(finished.wait());
    }
  }
}

}  // namespace qv::cuda
