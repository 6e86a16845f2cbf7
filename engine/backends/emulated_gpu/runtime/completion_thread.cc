#include "backends/emulated_gpu/runtime/completion_thread.h"

#include <utility>

namespace qv::emulated_gpu {

CompletionThread& CompletionThread::Get() {
  // Never destroyed: completions may still be posted while static destructors run at exit.
  static auto* thread = new CompletionThread;
  return *thread;
}

CompletionThread::CompletionThread() { std::thread([this] { Loop(); }).detach(); }

void CompletionThread::Post(std::function<void()> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(done));
  }
  posted_.notify_one();
}

void CompletionThread::Loop() {
  for (;;) {
    std::function<void()> next;
    {
      std::unique_lock<std::mutex> lock(mu_);
      posted_.wait(lock, [&] { return !queue_.empty(); });
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    // Outside the lock: a completion ends an engine operation, which may start work that posts again.
    next();
  }
}

}  // namespace qv::emulated_gpu
