// Plan::RunAsync and Execution::FinishAsync's default on the CPU, a synchronous backend: `done` runs
// once, on the calling thread, before RunAsync returns, with what Run computes; a failure before the
// hand-over throws and never calls `done`.
#include <catch2/catch.hpp>

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
