// An injected failure (a kernel error or a failed allocation, through the test-only hook in
// engine/common/fault_injection.h) fails exactly the invocation it hits: every other invocation, in
// flight at the same time or later, on the same op or another, returns its bit-exact result, and the
// failed one leaves nothing behind.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <thread>
#include <vector>

#include "common/fault_injection.h"
#include "support/failure_checks.h"
#include "support/tiny_model.h"

using namespace quiver_test;
namespace fault = qv::fault;

namespace {

// Outcome of one asynchronous invocation once it has finished.
struct Outcome {
  int submit_status = QV_OK;  // QvInvokeAsync's own status
  int run_status = QV_OK;     // the output's WaitToRead status
  std::string message;
  std::vector<float> result;
};

std::vector<Outcome> RunBatch(QvCachedOpHandle op, QvNDArrayHandle input, int count) {
  std::vector<QvNDArrayHandle> outputs;
  std::vector<Outcome> outcomes(count);
  for (int i = 0; i < count; ++i) {
    uint32_t n_out = 0;
    QvNDArrayHandle* outs = nullptr;
    outcomes[i].submit_status = QvInvokeAsync(op, 1, &input, &n_out, &outs);
    if (outcomes[i].submit_status != QV_OK) outcomes[i].message = QvGetLastError();
    outputs.push_back(outcomes[i].submit_status == QV_OK ? outs[0] : nullptr);
  }
  for (int i = 0; i < count; ++i) {
    if (!outputs[i]) continue;
    outcomes[i].run_status = QvNDArrayWaitToRead(outputs[i]);
    if (outcomes[i].run_status == QV_OK) outcomes[i].result = ReadFloats(outputs[i]);
    else outcomes[i].message = QvGetLastError();
    QvNDArrayFree(outputs[i]);
  }
  return outcomes;
}

// Exactly one outcome failed, with `status` and the hook's message; all others equal `expected`.
void CheckExactlyOneFailed(const std::vector<Outcome>& outcomes, const std::vector<float>& expected, int status) {
  int failed = 0;
  for (const Outcome& o : outcomes) {
    if (o.submit_status == QV_OK && o.run_status == QV_OK) {
      REQUIRE(o.result.size() == expected.size());
      CHECK(std::memcmp(o.result.data(), expected.data(), expected.size() * sizeof(float)) == 0);
      continue;
    }
    ++failed;
    INFO("failure: " << o.message);
    CHECK((o.submit_status == status || o.run_status == status));
    CHECK(ContainsNoCase(o.message, "injected fault"));
  }
  CHECK(failed == 1);
}

}  // namespace

TEST_CASE("an injected kernel error fails exactly the invocation it hits", "[soak][fault]") {
  // thread_safe=0: the 12 invocations run one after another in submission order, so the fault can be
  // aimed at one of them.
  QvCachedOpHandle op = CreateTinyModel(0);
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 11);
  const std::vector<float> expected = RunSync(op, input);
  const auto before = SettledMemoryStats();
  // Steps per invocation, counted on one clean run, so the fault lands inside invocation 5 of 12.
  fault::Arm(fault::Site::kKernel, UINT64_MAX, qv::Status::kInternal);
  RunSync(op, input);
  const uint64_t steps = fault::Hits(fault::Site::kKernel);
  REQUIRE(steps > 2);
  fault::Arm(fault::Site::kKernel, 4 * steps + steps / 2, qv::Status::kInternal);
  const std::vector<Outcome> outcomes = RunBatch(op, input, 12);
  fault::Disarm();
  CheckExactlyOneFailed(outcomes, expected, QV_ERR_INTERNAL);
  CHECK(outcomes[4].run_status == QV_ERR_INTERNAL);
  CHECK(RunSync(op, input) == expected);
  CHECK(SettledMemoryStats().second == before.second);
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("an injected failure among 8 threads on two models fails one invocation only", "[soak][fault]") {
  LoadedModel first, second;
  constexpr int kThreads = 8, kPerThread = 40;
  for (const fault::Site site : {fault::Site::kKernel, fault::Site::kAllocation}) {
    INFO((site == fault::Site::kKernel ? "kernel error" : "allocation failure"));
    // Aim at a hit around the middle of the run; allocations are fewer than kernel steps.
    fault::Arm(site, site == fault::Site::kKernel ? 900 : 200,
               site == fault::Site::kKernel ? qv::Status::kInternal : qv::Status::kOutOfMemory);
    std::vector<std::vector<Outcome>> per_thread(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        const LoadedModel& m = t % 2 ? second : first;
        for (int i = 0; i < kPerThread / 4; ++i) {
          auto batch = RunBatch(m.op, m.input, 4);
          per_thread[t].insert(per_thread[t].end(), batch.begin(), batch.end());
        }
      });
    for (auto& th : threads) th.join();
    const bool fired = fault::Hits(site) >= (site == fault::Site::kKernel ? 900u : 200u);
    fault::Disarm();
    REQUIRE(fired);
    std::vector<Outcome> all_first, all_second;
    for (int t = 0; t < kThreads; ++t)
      (t % 2 ? all_second : all_first).insert((t % 2 ? all_second : all_first).end(), per_thread[t].begin(),
                                                per_thread[t].end());
    int failures = 0;
    for (const auto* outcomes : {&all_first, &all_second})
      for (const Outcome& o : *outcomes) failures += (o.submit_status != QV_OK || o.run_status != QV_OK);
    CHECK(failures == 1);
    // Whichever model took the hit, each one's successful results are bit-exact.
    for (const auto& [outcomes, model] : {std::pair{&all_first, &first}, std::pair{&all_second, &second}}) {
      std::vector<Outcome> ok;
      for (const Outcome& o : *outcomes)
        if (o.submit_status == QV_OK && o.run_status == QV_OK) ok.push_back(o);
        else CHECK(ContainsNoCase(o.message, "injected fault"));
      for (const Outcome& o : ok)
        CHECK(std::memcmp(o.result.data(), model->expected.data(), model->expected.size() * sizeof(float)) == 0);
    }
  }
  first.CheckStillWorks();
  second.CheckStillWorks();
}

TEST_CASE("an injected allocation failure releases the invocation's slot and memory", "[soak][fault]") {
  LoadedModel model(Flags{{"max_inflight", "1"}});
  const auto before = SettledMemoryStats();
  for (uint64_t countdown : {1, 2}) {  // the output array's storage, then the workspace (if not pooled)
    fault::Arm(fault::Site::kAllocation, countdown, qv::Status::kOutOfMemory);
    const std::vector<Outcome> outcomes = RunBatch(model.op, model.input, 1);
    fault::Disarm();
    const Outcome& o = outcomes[0];
    if (o.submit_status == QV_OK && o.run_status == QV_OK) continue;  // that allocation was not needed
    CHECK((o.submit_status == QV_ERR_OUT_OF_MEMORY || o.run_status == QV_ERR_OUT_OF_MEMORY));
    CHECK(ContainsNoCase(o.message, "injected fault"));
  }
  model.CheckStillWorks();  // max_inflight 1: a leaked slot would make this QV_ERR_BUSY
  CHECK(SettledMemoryStats().second == before.second);
}
