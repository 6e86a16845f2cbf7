// Plan::RunAsync and Execution::FinishAsync's default on the CPU, a synchronous backend: `done` runs
// once, on the calling thread, before RunAsync returns, with what Run computes; a failure before the
// hand-over throws and never calls `done`. On a backend that completes later (the CPU posing as one),
// RunAsync returns first and `done` runs once, elsewhere, and may drop the plan.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "plan/plan.h"
#include "graph/bound_graph.h"
#include "graph/symbol_json.h"
#include "support/times_two_model.h"

using namespace qv;

namespace {

// An execution whose Finish fails or not; counts calls.
class FakeExecution : public Execution {
 public:
  explicit FakeExecution(bool fail) : fail_(fail) {}
  void Run(const Kernel&, ExecArgs&, int, const std::string&) override {}
  void Finish() override {
    ++finished;
    if (fail_) throw Error(Status::kDevice, "the device fell over");
  }
  int finished = 0;

 private:
  bool fail_;
};

}  // namespace

TEST_CASE("Execution::FinishAsync's default finishes, then calls done once on the calling thread", "[plan]") {
  for (bool fail : {false, true}) {
    FakeExecution execution(fail);
    int calls = 0;
    std::exception_ptr seen;
    std::thread::id thread;
    execution.FinishAsync([&](std::exception_ptr failure) {
      ++calls;
      seen = failure;
      thread = std::this_thread::get_id();
    });
    CHECK(execution.finished == 1);
    CHECK(calls == 1);
    CHECK(thread == std::this_thread::get_id());
    CHECK((seen != nullptr) == fail);
    if (fail) {
      const Failure f = [&] {
        try {
          std::rethrow_exception(seen);
        } catch (...) {
          return FailureFromCurrentException();
        }
      }();
      CHECK(f.status == Status::kDevice);
    }
    int dummy = 0;
    CHECK(execution.StageHostInput(&dummy, sizeof(dummy)) == &dummy);  // host memory is the CPU's own
  }
}

TEST_CASE("Plan::RunAsync on the CPU computes what Run does and calls done before returning", "[plan]") {
  const BoundGraph graph = BindParameters(ParseSymbolJson(quiver_test::kTimesTwoJson), {});
  const Backend& cpu = FindBackend(Device{});
  CHECK_FALSE(cpu.completes_asynchronously());
  const auto store = cpu.NewConstantStore();
  const std::unique_ptr<Plan> plan =
      Plan::Compile(graph, {}, {{{3, 4}, DType::kFloat32}}, cpu, Device{}, Precision::kFloat32, *store);
  std::vector<float> in(12), sync_out(12, -1), async_out(12, -1);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) - 5.5f;
  plan->Run({in.data()}, {sync_out.data()});
  int calls = 0;
  std::exception_ptr seen;
  plan->RunAsync({in.data()}, {true}, {async_out.data()}, nullptr, [&](std::exception_ptr failure) {
    ++calls;
    seen = failure;
  });
  CHECK(calls == 1);
  CHECK(seen == nullptr);
  CHECK(async_out == sync_out);
  CHECK(async_out[1] == 2 * in[1]);

  // A step refused before the hand-over: RunAsync throws and `done` never runs.
  calls = 0;
  CHECK_THROWS_AS(plan->RunAsync({in.data()}, {}, {async_out.data()},
                                 [] { throw Error(Status::kCancelled, "stopped"); },
                                 [&](std::exception_ptr) { ++calls; }),
                  Error);
  CHECK(calls == 0);
}

namespace {

// The CPU backend posing as one that completes asynchronously: its executions finish on a thread of
// their own, later, as a GPU's completion thread would.
class LateExecution : public Execution {
 public:
  LateExecution(std::unique_ptr<Execution> inner, std::vector<std::thread>* threads)
      : inner_(std::move(inner)), threads_(threads) {}
  void Run(const Kernel& kernel, ExecArgs& args, int parallelism, const std::string& node) override {
    inner_->Run(kernel, args, parallelism, node);
  }
  void Finish() override { inner_->Finish(); }
  void FinishAsync(Done done) override {
    threads_->emplace_back([done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      done(nullptr);
    });
  }

 private:
  std::unique_ptr<Execution> inner_;
  std::vector<std::thread>* threads_;
};

class LateBackend : public Backend {
 public:
  explicit LateBackend(const Backend& cpu) : cpu_(cpu) {}
  DeviceType device_type() const override { return cpu_.device_type(); }
  void RequireDevice(const Device& device) const override { cpu_.RequireDevice(device); }
  const DeviceMemory& memory() const override { return cpu_.memory(); }
  bool Supports(const std::string& op) const override { return cpu_.Supports(op); }
  std::vector<std::string> SupportedOps() const override { return cpu_.SupportedOps(); }
  const FusionRules& fusions() const override { return cpu_.fusions(); }
  Precision ResolvePrecision(Precision requested, const Device& device) const override {
    return cpu_.ResolvePrecision(requested, device);
  }
  std::unique_ptr<ConstantStore> NewConstantStore() const override { return cpu_.NewConstantStore(); }
  KernelBuild BuildKernel(const KernelRequest& request) const override { return cpu_.BuildKernel(request); }
  LayoutPtr PlainLayout(const TensorType& type) const override { return cpu_.PlainLayout(type); }
  std::unique_ptr<Kernel> MakeConversion(const LayoutPtr& from, const LayoutPtr& to) const override {
    return cpu_.MakeConversion(from, to);
  }
  int StepParallelism(double flops, double bytes) const override { return cpu_.StepParallelism(flops, bytes); }
  std::unique_ptr<Execution> StartExecution(const Device& device) const override {
    return std::make_unique<LateExecution>(cpu_.StartExecution(device), &threads);
  }
  bool completes_asynchronously() const override { return true; }

  mutable std::vector<std::thread> threads;

 private:
  const Backend& cpu_;
};

}  // namespace

TEST_CASE("Plan::RunAsync on a backend that completes later returns first, then done runs once elsewhere", "[plan]") {
  const BoundGraph graph = BindParameters(ParseSymbolJson(quiver_test::kTimesTwoJson), {});
  LateBackend late(FindBackend(Device{}));
  const auto store = late.NewConstantStore();
  std::shared_ptr<const Plan> plan =
      Plan::Compile(graph, {}, {{{2, 8}, DType::kFloat32}}, late, Device{}, Precision::kFloat32, *store,
                    StepRecording::kPreferred);
  std::vector<float> in(16, 1.5f), out(16, 0);
  std::mutex mu;
  std::condition_variable finished;
  int calls = 0;
  bool failed = false;
  std::thread::id thread;
  plan->RunAsync({in.data()}, {}, {out.data()}, nullptr, [&, plan](std::exception_ptr failure) mutable {
    plan.reset();  // the completion may drop the plan: its workspace went back first
    std::lock_guard<std::mutex> lock(mu);
    failed = failure != nullptr;
    ++calls;
    thread = std::this_thread::get_id();
    finished.notify_all();
  });
  {
    std::lock_guard<std::mutex> lock(mu);
    CHECK(calls == 0);  // returned before the completion
  }
  plan.reset();  // the completion holds the last reference now
  {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(finished.wait_for(lock, std::chrono::seconds(10), [&] { return calls == 1; }));
    CHECK(thread != std::this_thread::get_id());
  }
  for (auto& t : late.threads) t.join();
  CHECK(calls == 1);
  CHECK_FALSE(failed);
  CHECK(out[15] == 3.0f);
}
