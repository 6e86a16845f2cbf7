// The threaded dependency engine. One mutex guards all dependency bookkeeping: work items are whole
// invocations (milliseconds), so the lock is held for microseconds per item and never while work runs.
#include "scheduler/engine.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "scheduler/cpu_budget.h"

namespace qv {

class Var {
 public:
  struct Waiting {
    struct Opr* opr;
    bool write;
  };
  // All fields are guarded by the engine's mutex.
  std::deque<Waiting> queue;  // not yet granted, in push order
  int running_reads = 0;
  bool running_write = false;
  int pending_writes = 0;  // queued or running writes
  Failure failure;         // of the last write; a successful write clears it
  std::vector<Engine::ReadyCallback> callbacks;
  std::condition_variable changed;
};

struct Opr {
  Engine::Work work;
  Engine::AsyncWork async_work;  // instead of `work`, for PushAsync
  std::vector<VarPtr> reads;
  std::vector<VarPtr> writes;
  size_t waiting_for = 0;  // variables that have not granted access yet
};

namespace {

thread_local bool t_on_engine_thread = false;
// The callback thread runs every deferred OnReady callback, one at a time. WaitToRead there is fine (the
// workers finish the work), but WaitAll also waits for the callbacks, the running one included: for ever.
thread_local bool t_on_callback_thread = false;
// Ready callbacks started inline by OnReady on this thread and not yet returned, and the ones that
// they registered on ready variables meanwhile: run one after another, not nested (a chain of them
// would otherwise grow the stack without bound).
thread_local std::deque<std::pair<Engine::ReadyCallback, Failure>>* t_trampoline = nullptr;

const char kWaitAllInCallback[] =
    "cannot wait for all work inside a ready callback: that includes the callbacks, this one among them; "
    "wait for the arrays it needs (QvNDArrayWaitToRead) or register another callback instead";

class ThreadedEngine final : public Engine {
 public:
  explicit ThreadedEngine(int workers) {
    for (int i = 0; i < workers; ++i) std::thread([this] { WorkerLoop(); }).detach();
    std::thread([this] { CallbackLoop(); }).detach();
    num_workers_ = workers;
  }

  VarPtr NewVar() override { return std::make_shared<Var>(); }

  void Push(Work work, const std::vector<VarPtr>& reads, const std::vector<VarPtr>& writes) override {
    Schedule(new Opr{std::move(work), nullptr, {}, {}, 0}, reads, writes);
  }

  void PushAsync(AsyncWork work, const std::vector<VarPtr>& reads, const std::vector<VarPtr>& writes) override {
    Schedule(new Opr{nullptr, std::move(work), {}, {}, 0}, reads, writes);
  }

  bool CanRead(const VarPtr& var) override {
    std::lock_guard<std::mutex> lock(mu_);
    return var->pending_writes == 0;
  }

  Failure WaitToRead(const VarPtr& var) override {
    std::unique_lock<std::mutex> lock(mu_);
    var->changed.wait(lock, [&] { return var->pending_writes == 0; });
    return var->failure;
  }

  void OnReady(const VarPtr& var, ReadyCallback callback) override {
    Failure failure;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (var->pending_writes != 0) {
        var->callbacks.push_back(std::move(callback));
        return;
      }
      failure = var->failure;
    }
    RunNow(std::move(callback), failure);
  }

  void WaitAll() override {
    Check(!t_on_callback_thread, Status::kInvalidArgument, kWaitAllInCallback);
    std::unique_lock<std::mutex> lock(mu_);
    all_done_.wait(lock, [&] { return outstanding_ == 0 && callbacks_.empty() && !callback_running_; });
  }

  int num_workers() const override { return num_workers_; }

  // Called at process exit: stop starting work and let running work finish (bounded), so that no
  // kernel runs while other libraries' static state is destroyed. Queued work is abandoned.
  void Shutdown() {
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    const int self = t_on_engine_thread ? 1 : 0;
    all_done_.wait_for(lock, std::chrono::seconds(30), [&] { return running_ <= self; });
  }

 private:
  static bool Contains(const std::vector<VarPtr>& vs, const VarPtr& v) {
    for (const auto& x : vs)
      if (x == v) return true;
    return false;
  }

  void Schedule(Opr* opr, const std::vector<VarPtr>& reads, const std::vector<VarPtr>& writes) {
    for (const auto& w : writes)
      if (!Contains(opr->writes, w)) opr->writes.push_back(w);
    for (const auto& r : reads)
      if (!Contains(opr->writes, r) && !Contains(opr->reads, r)) opr->reads.push_back(r);
    opr->waiting_for = opr->reads.size() + opr->writes.size();
    bool async_ready = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++outstanding_;
      if (opr->waiting_for == 0) {
        MakeRunnable(opr);
      } else {
        for (const auto& v : opr->reads) Enqueue(v.get(), opr, false);
        for (const auto& v : opr->writes) Enqueue(v.get(), opr, true);
      }
      async_ready = !ready_async_.empty();
    }
    if (async_ready) StartReadyAsync();  // plain Push never takes mu_ a second time
  }

  // The caller holds mu_.
  void Enqueue(Var* var, Opr* opr, bool write) {
    var->queue.push_back({opr, write});
    if (write) ++var->pending_writes;
    Grant(var);
  }

  // Grants access to the queue's head while it is compatible with what runs. The caller holds mu_.
  void Grant(Var* var) {
    while (!var->queue.empty()) {
      const Var::Waiting head = var->queue.front();
      if (head.write) {
        if (var->running_write || var->running_reads > 0) return;
        var->running_write = true;
      } else {
        if (var->running_write) return;
        ++var->running_reads;
      }
      var->queue.pop_front();
      if (--head.opr->waiting_for == 0) MakeRunnable(head.opr);
      if (head.write) return;
    }
  }

  // The caller holds mu_. Asynchronous work is started by the caller once it lets go of mu_.
  void MakeRunnable(Opr* opr) {
    if (opr->async_work) {
      ready_async_.push_back(opr);
      return;
    }
    runnable_.push_back(opr);
    work_available_.notify_one();
  }

  // Starts the asynchronous work that became runnable, on this thread. The caller does not hold mu_.
  void StartReadyAsync() {
    for (;;) {
      Opr* opr = nullptr;
      Failure failure;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (ready_async_.empty()) return;
        opr = ready_async_.front();
        ready_async_.pop_front();
        failure = FirstReadFailure(opr);
      }
      if (!failure.ok()) {
        Complete(opr, failure, false);
        continue;
      }
      // `done` may be called (and the Opr deleted) before `work` returns: the work is moved out first.
      AsyncWork work = std::move(opr->async_work);
      auto once = std::make_shared<std::atomic<bool>>(false);
      Completion done = [this, opr, once](const Failure& f) {
        if (!once->exchange(true)) Complete(opr, f, false);
      };
      try {
        work(done);
      } catch (...) {
        done(FailureFromCurrentException());
      }
    }
  }

  // The caller holds mu_.
  static Failure FirstReadFailure(const Opr* opr) {
    for (const auto& v : opr->reads)
      if (!v->failure.ok()) return v->failure;
    return {};
  }

  void WorkerLoop() {
    t_on_engine_thread = true;
    for (;;) {
      Opr* opr = nullptr;
      Failure failure;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_available_.wait(lock, [&] { return !runnable_.empty() && !stopping_; });
        opr = runnable_.front();
        runnable_.pop_front();
        ++running_;
        failure = FirstReadFailure(opr);
      }
      if (failure.ok()) {
        try {
          opr->work();
        } catch (...) {
          failure = FailureFromCurrentException();
        }
      }
      Complete(opr, failure, true);
    }
  }

  // `on_worker`: the work ran on a worker (counted in running_), not asynchronous work.
  void Complete(Opr* opr, const Failure& failure, bool on_worker) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& v : opr->reads) {
        --v->running_reads;
        Grant(v.get());
      }
      for (const auto& v : opr->writes) {
        v->running_write = false;
        --v->pending_writes;
        v->failure = failure;
        Grant(v.get());
        if (v->pending_writes == 0) {
          for (auto& cb : v->callbacks) callbacks_.push_back({std::move(cb), v->failure, v});
          v->callbacks.clear();
          callback_available_.notify_one();
        }
        v->changed.notify_all();
      }
    }
    // Outside the lock: destroying the work releases what it holds (arrays, caller buffers through
    // their release callbacks, which may call back into the runtime). WaitAll also waits for this.
    delete opr;
    bool async_ready = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (on_worker) --running_;
      --outstanding_;
      all_done_.notify_all();
      async_ready = !ready_async_.empty();
    }
    if (async_ready) StartReadyAsync();
  }

  // A ready variable's callback, run on this thread: at once, or after the inline callback this thread
  // is in returns. The first callback's exception reaches its OnReady caller; later ones are dropped,
  // as on the callback thread.
  static void RunNow(ReadyCallback callback, const Failure& failure) {
    if (t_trampoline != nullptr) {
      t_trampoline->emplace_back(std::move(callback), failure);
      return;
    }
    std::deque<std::pair<ReadyCallback, Failure>> later;
    t_trampoline = &later;
    std::exception_ptr first;
    try {
      callback(failure);
    } catch (...) {
      first = std::current_exception();
    }
    while (!later.empty()) {
      auto next = std::move(later.front());
      later.pop_front();
      try {
        next.first(next.second);
      } catch (...) {
      }
    }
    t_trampoline = nullptr;
    if (first) std::rethrow_exception(first);
  }

  void CallbackLoop() {
    t_on_engine_thread = true;
    t_on_callback_thread = true;
    for (;;) {
      PendingCallback pending;
      {
        std::unique_lock<std::mutex> lock(mu_);
        callback_available_.wait(lock, [&] { return !callbacks_.empty() && !stopping_; });
        pending = std::move(callbacks_.front());
        callbacks_.pop_front();
        callback_running_ = true;
      }
      try {
        RunNow(std::move(pending.callback), pending.failure);
      } catch (...) {
        // A callback that throws is the caller's bug; it must not take the callback thread down.
      }
      pending = PendingCallback();  // release what the callback held before WaitAll can return
      std::lock_guard<std::mutex> lock(mu_);
      callback_running_ = false;
      all_done_.notify_all();
    }
  }

  struct PendingCallback {
    ReadyCallback callback;
    Failure failure;
    VarPtr var;  // keeps the variable alive until its callback has run
  };

  std::mutex mu_;
  std::condition_variable work_available_;
  std::condition_variable callback_available_;
  std::condition_variable all_done_;
  std::deque<Opr*> runnable_;
  std::deque<Opr*> ready_async_;  // asynchronous work whose dependencies are met, not yet started
  std::deque<PendingCallback> callbacks_;
  int64_t outstanding_ = 0;
  int running_ = 0;
  bool callback_running_ = false;
  bool stopping_ = false;
  int num_workers_ = 0;
};

ThreadedEngine* g_engine = nullptr;

void ShutdownAtExit() { g_engine->Shutdown(); }

}  // namespace

Engine& Engine::Get() {
  // Never destroyed: worker threads may still hold it while the process exits.
  static ThreadedEngine* engine = [] {
    auto* e = new ThreadedEngine(CpuBudget::Get().threads());
    g_engine = e;
    std::atexit(ShutdownAtExit);
    return e;
  }();
  return *engine;
}

void Engine::StopWorkersAtExit() {
  Get();
  std::atexit(ShutdownAtExit);  // stopping twice is harmless: the second finds nothing running
}

}  // namespace qv
