// The profiler (QvProfilerStart ... QvProfilerGetAggregate): a valid Chrome trace, one span per plan
// step of every invocation, nested in its invocation's span on the same thread and named after the
// nodes QvCachedOpDescribe lists; aggregate statistics that add up; queue spans for batched requests;
// nothing recorded while off; exact counts under concurrent clients.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "support/scheduling_helpers.h"

using namespace quiver_test;

namespace {

nlohmann::json Trace() {
  const char* text = nullptr;
  REQUIRE(QvProfilerGetTrace(&text) == QV_OK);
  return nlohmann::json::parse(text);
}

nlohmann::json Aggregate() {
  const char* text = nullptr;
  REQUIRE(QvProfilerGetAggregate(&text) == QV_OK);
  return nlohmann::json::parse(text);
}

std::vector<nlohmann::json> Events(const nlohmann::json& trace, const std::string& category) {
  std::vector<nlohmann::json> events;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("cat") == category) events.push_back(e);
  return events;
}

void RunAndWait(QvCachedOpHandle op, QvNDArrayHandle input) {
  QvNDArrayHandle out = Submit(op, input);
  REQUIRE(QvNDArrayWaitToRead(out) == QV_OK);
  QvNDArrayFree(out);
}

// Profiles `runs` invocations of a fresh tiny model; the profiler is stopped afterwards.
nlohmann::json ProfileRuns(QvCachedOpHandle op, QvNDArrayHandle input, int runs) {
  RunAndWait(op, input);  // compiles outside the profile
  REQUIRE(QvProfilerClear() == QV_OK);
  REQUIRE(QvProfilerStart() == QV_OK);
  for (int i = 0; i < runs; ++i) RunAndWait(op, input);
  REQUIRE(QvProfilerStop() == QV_OK);
  return Trace();
}

}  // namespace

TEST_CASE("the trace has every step of every invocation, nested in it and named after the op's nodes",
          "[capi][profiler]") {
  QvCachedOpHandle op = CreateTinyModel(1);
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 3);
  const nlohmann::json trace = ProfileRuns(op, input, 5);
  const auto invocations = Events(trace, "invocation");
  const auto operators = Events(trace, "operator");
  REQUIRE(invocations.size() == 5);
  REQUIRE(trace.at("otherData").at("dropped") == 0);

  const char* described = nullptr;
  REQUIRE(QvCachedOpDescribe(op, &described) == QV_OK);
  const nlohmann::json description = nlohmann::json::parse(described);
  std::set<std::string> nodes;
  for (const auto& n : description.at("nodes")) nodes.insert(n.at("name").get<std::string>());
  // Every operator node runs once per invocation (conversions come on top).
  REQUIRE(operators.size() == 5 * nodes.size());
  std::map<std::string, int> per_node;
  for (const auto& e : operators) {
    const std::string name = e.at("name");
    INFO(name);
    REQUIRE(nodes.count(name) == 1);
    ++per_node[name];
    REQUIRE_FALSE(e.at("args").at("op").get<std::string>().empty());
    REQUIRE(e.at("args").at("detail").get<std::string>().find('(') != std::string::npos);  // input shapes
    // Inside exactly one invocation, on its thread.
    int around = 0;
    for (const auto& inv : invocations) {
      const double start = inv.at("ts"), end = start + inv.at("dur").get<double>();
      if (inv.at("tid") == e.at("tid") && e.at("ts").get<double>() >= start &&
          e.at("ts").get<double>() + e.at("dur").get<double>() <= end)
        ++around;
    }
    REQUIRE(around == 1);
  }
  for (const auto& [name, count] : per_node) REQUIRE(count == 5);

  // The aggregate counts the same spans; shares of the step time add up to 1.
  const nlohmann::json stats = Aggregate();
  REQUIRE(stats.at("invocations").at("count") == 5);
  uint64_t steps = 0;
  double share = 0;
  for (const auto& row : stats.at("nodes")) {
    steps += row.at("count").get<uint64_t>();
    share += row.at("share").get<double>();
  }
  REQUIRE(steps == operators.size() + Events(trace, "conversion").size());
  REQUIRE(share == Approx(1.0).epsilon(1e-9));
  double previous = 1e300;
  for (const auto& row : stats.at("operators")) {
    REQUIRE(row.at("total_us").get<double>() <= previous);  // longest first
    previous = row.at("total_us");
  }

  // Off, nothing more is recorded; cleared, nothing is left.
  RunAndWait(op, input);
  REQUIRE(Events(Trace(), "invocation").size() == 5);
  REQUIRE(QvProfilerClear() == QV_OK);
  REQUIRE(Trace().at("traceEvents").empty());
  QvNDArrayFree(input);
  FreeTinyModel(op);
}

TEST_CASE("concurrent clients get exact counts; batched requests get queue spans", "[capi][profiler]") {
  QvCachedOpHandle op = CreateTinyModel(1, {{"max_batch_size", "4"}, {"batch_timeout_us", "500"}});
  QvNDArrayHandle input = MakeRandomArray({1, 3, 16, 16}, 4);
  RunAndWait(op, input);
  REQUIRE(QvProfilerClear() == QV_OK);
  REQUIRE(QvProfilerStart() == QV_OK);
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t)
    clients.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        QvNDArrayHandle out = Submit(op, input);
        QvNDArrayWaitToRead(out);
        QvNDArrayFree(out);
      }
    });
  for (auto& c : clients) c.join();
  REQUIRE(QvProfilerStop() == QV_OK);
  const nlohmann::json stats = Aggregate();
  REQUIRE(stats.at("queue").at("count") == 100);  // one wait per request
  const auto invocations = stats.at("invocations").at("count").get<uint64_t>();
  REQUIRE(invocations >= 25);  // batches of up to 4 requests
  REQUIRE(invocations <= 100);
  QvNDArrayFree(input);
  FreeTinyModel(op);
  REQUIRE(QvProfilerClear() == QV_OK);
}

TEST_CASE("the trace file is written where asked, and a path that cannot be written is refused",
          "[capi][profiler]") {
  REQUIRE(QvProfilerGetTrace(nullptr) == QV_ERR_INVALID_ARGUMENT);
  REQUIRE(QvProfilerGetAggregate(nullptr) == QV_ERR_INVALID_ARGUMENT);
  REQUIRE(QvProfilerDumpTrace(nullptr) == QV_ERR_INVALID_ARGUMENT);
  REQUIRE(QvProfilerDumpTrace("/no/such/dir/trace.json") == QV_ERR_INVALID_ARGUMENT);
  REQUIRE(std::string(QvGetLastError()).find("/no/such/dir/trace.json") != std::string::npos);
  const std::string path = "profiler_test_trace.json";
  REQUIRE(QvProfilerDumpTrace(path.c_str()) == QV_OK);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  std::remove(path.c_str());
  REQUIRE(nlohmann::json::parse(text).contains("traceEvents"));
}
