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
#include "support/late_backend.h"
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
  }
}

TEST_CASE("Execution's default gather and scatter copy pieces in order and zero the padding", "[plan]") {
  FakeExecution execution(false);
  const std::vector<float> a{1, 2}, b{3, 4, 5, 6};
  std::vector<float> merged(8, -1);
  execution.Gather(merged.data(), merged.size() * sizeof(float),
                   {{a.data(), a.size() * sizeof(float), false}, {b.data(), b.size() * sizeof(float), false}});
  CHECK(merged == std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0});
  std::vector<float> first(2, -1), second(4, -1);
  execution.Scatter(merged.data(), {{first.data(), first.size() * sizeof(float)},
                                    {second.data(), second.size() * sizeof(float)}});
  CHECK(first == a);
  CHECK(second == b);
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
  plan->RunAsync({{{in.data(), 48, false}}}, {{{async_out.data(), 48}}}, nullptr, [&](std::exception_ptr failure) {
    ++calls;
    seen = failure;
  });
  CHECK(calls == 1);
  CHECK(seen == nullptr);
  CHECK(async_out == sync_out);
  CHECK(async_out[1] == 2 * in[1]);

  // Pieces: two requests' rows (1 and 1 of 3), gathered with a zero row after them, scattered back.
  std::vector<float> row_a(4, -1), row_b(4, -1);
  calls = 0;
  plan->RunAsync({{{in.data(), 16, false}, {in.data() + 8, 16, false}}}, {{{row_a.data(), 16}, {row_b.data(), 16}}},
                 nullptr, [&](std::exception_ptr failure) {
                   ++calls;
                   seen = failure;
                 });
  CHECK(calls == 1);
  CHECK(seen == nullptr);
  CHECK(row_a == std::vector<float>(sync_out.begin(), sync_out.begin() + 4));
  CHECK(row_b == std::vector<float>(sync_out.begin() + 8, sync_out.end()));
  // More bytes than the tensor holds is refused before anything runs.
  CHECK_THROWS_AS(plan->RunAsync({{{in.data(), 52, false}}}, {{{async_out.data(), 48}}}, nullptr,
                                 [&](std::exception_ptr) { ++calls; }),
                  Error);
  CHECK(calls == 1);

  // A step refused before the hand-over: RunAsync throws and `done` never runs.
  calls = 0;
  CHECK_THROWS_AS(plan->RunAsync({{{in.data(), 48, false}}}, {{{async_out.data(), 48}}},
                                 [] { throw Error(Status::kCancelled, "stopped"); },
                                 [&](std::exception_ptr) { ++calls; }),
                  Error);
  CHECK(calls == 0);
}


TEST_CASE("Plan::RunAsync on a backend that completes later returns first, then done runs once elsewhere", "[plan]") {
  const BoundGraph graph = BindParameters(ParseSymbolJson(quiver_test::kTimesTwoJson), {});
  quiver_test::LateBackend late(FindBackend(Device{}));
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
  plan->RunAsync({{{in.data(), 64, false}}}, {{{out.data(), 64}}}, nullptr, [&, plan](std::exception_ptr failure) mutable {
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
