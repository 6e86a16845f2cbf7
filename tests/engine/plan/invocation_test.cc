// StartInvocation, the one path every invocation takes: a request ends once, after the run; a request
// cancelled while the run is in flight is reported when the run is over, not before (its outputs are
// still being written); a run whose requests have all ended does not start; a failure ends every
// request with it; and the batch's requests each get their own rows.
#include "plan/invocation.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "graph/bound_graph.h"
#include "graph/symbol_json.h"
#include "support/late_backend.h"
#include "support/times_two_model.h"

using namespace qv;

namespace {

// What the requests' ends and the run's end reported, waited for across threads.
struct Ends {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<Failure> requests;
  bool done = false;

  InvocationControl::Finisher Recorder() {
    return [this](const Failure& f) {
      std::lock_guard<std::mutex> lock(mu);
      requests.push_back(f);
      changed.notify_all();
    };
  }
  std::function<void()> Done() {
    return [this] {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      changed.notify_all();
    };
  }
  void WaitForDone() {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return done; }));
  }
};

InvocationRequest Rows(int64_t rows, float first, Ends* ends) {
  NDArrayPtr in = NDArray::Create({rows, 4}, DType::kFloat32);
  for (int64_t i = 0; i < rows * 4; ++i) in->data_as<float>()[i] = first + static_cast<float>(i);
  return {{in}, {NDArray::Create({rows, 4}, DType::kFloat32)}, std::make_shared<InvocationControl>(), ends->Recorder()};
}

std::shared_ptr<const Plan> TimesTwo(const Backend& backend, int64_t rows) {
  static const BoundGraph graph = BindParameters(ParseSymbolJson(quiver_test::kTimesTwoJson), {});
  const auto store = backend.NewConstantStore();
  return Plan::Compile(graph, {}, {{{rows, 4}, DType::kFloat32}}, backend, Device{}, Precision::kFloat32, *store);
}

}  // namespace

TEST_CASE("a batch's requests each get their own rows, then end once with ok, then done runs", "[plan][invocation]") {
  Ends ends;
  std::vector<InvocationRequest> requests = {Rows(1, 10, &ends), Rows(2, 100, &ends)};
  const NDArrayPtr a = requests[0].outputs[0], b = requests[1].outputs[0];
  StartInvocation(TimesTwo(FindBackend(Device{}), 4), Device{}, std::move(requests), ends.Done());
  REQUIRE(ends.done);  // the CPU completes before StartInvocation returns
  REQUIRE(ends.requests.size() == 2);
  for (const Failure& f : ends.requests) REQUIRE(f.ok());
  for (int i = 0; i < 4; ++i) REQUIRE(a->data_as<float>()[i] == 2 * (10 + i));
  for (int i = 0; i < 8; ++i) REQUIRE(b->data_as<float>()[i] == 2 * (100 + i));
}

TEST_CASE("a run whose requests have all ended does not start; each reports its own end", "[plan][invocation]") {
  Ends ends;
  std::vector<InvocationRequest> requests = {Rows(1, 1, &ends), Rows(1, 2, &ends)};
  const NDArrayPtr out = requests[0].outputs[0];
  REQUIRE(requests[0].control->Cancel());
  requests[1].control = std::make_shared<InvocationControl>(1);  // 1 us: passed by the time it starts
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  StartInvocation(TimesTwo(FindBackend(Device{}), 2), Device{}, std::move(requests), ends.Done());
  REQUIRE(ends.done);
  REQUIRE(ends.requests.size() == 2);
  CHECK(ends.requests[0].status == Status::kCancelled);
  CHECK(ends.requests[1].status == Status::kDeadlineExceeded);
  CHECK(out->data_as<float>()[0] == 0);  // never written
}

TEST_CASE("a request cancelled while its run is in flight is reported when the run is over", "[plan][invocation]") {
  quiver_test::LateBackend late(FindBackend(Device{}));
  Ends ends;
  std::vector<InvocationRequest> requests = {Rows(1, 1, &ends), Rows(1, 2, &ends)};
  const std::shared_ptr<InvocationControl> cancelled = requests[0].control;
  StartInvocation(TimesTwo(late, 2), Device{}, std::move(requests), ends.Done());
  // Returned before the (late) completion: the cancel takes, but nothing is reported yet.
  REQUIRE(cancelled->Cancel());
  {
    std::lock_guard<std::mutex> lock(ends.mu);
    CHECK(ends.requests.empty());
    CHECK_FALSE(ends.done);
  }
  ends.WaitForDone();
  for (auto& t : late.threads) t.join();
  REQUIRE(ends.requests.size() == 2);
  CHECK(ends.requests[0].status == Status::kCancelled);
  CHECK(ends.requests[1].ok());
  CHECK_FALSE(cancelled->Cancel());  // ended
}

TEST_CASE("a run that fails ends every request with its failure", "[plan][invocation]") {
  Ends ends;
  std::vector<InvocationRequest> requests = {Rows(1, 1, &ends), Rows(2, 2, &ends)};
  // Rows of 3 bound to a plan of 2 rows: refused before anything runs.
  StartInvocation(TimesTwo(FindBackend(Device{}), 2), Device{}, std::move(requests), ends.Done());
  REQUIRE(ends.done);
  REQUIRE(ends.requests.size() == 2);
  for (const Failure& f : ends.requests) {
    CHECK(f.status == Status::kInternal);
    CHECK(f.message.find("more than its") != std::string::npos);
  }
}
