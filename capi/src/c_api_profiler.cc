// The profiler's C API: on and off, and the spans it keeps (common/profiler.h) written as a Chrome
// trace and as aggregate statistics.
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "common/profiler.h"
#include "handles.h"

using namespace qv;

namespace {

double Microseconds(profiler::Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

std::string TraceJson() {
  uint64_t dropped = 0;
  const std::vector<profiler::Span> spans = profiler::Snapshot(&dropped);
  const profiler::Clock::time_point origin = profiler::Origin();
  nlohmann::json events = nlohmann::json::array();
  std::set<int> named;  // the device tracks named so far (threads keep their numbers)
  for (const profiler::Span& s : spans) {
    if (named.insert(s.thread).second) {
      const std::string track = profiler::TrackName(s.thread);
      if (!track.empty())
        events.push_back({{"name", "thread_name"}, {"cat", "metadata"}, {"ph", "M"}, {"pid", 1}, {"tid", s.thread},
                          {"args", {{"name", track}}}});
    }
    const profiler::Label& label = *s.label;
    nlohmann::json args = nlohmann::json::object();
    if (!label.op.empty()) args["op"] = label.op;
    if (!label.detail.empty()) args["detail"] = label.detail;
    if (!label.kernel.empty()) args["kernel"] = label.kernel;
    if (label.category == "invocation") args["requests"] = s.count;
    if (label.category == "queue") args["priority"] = s.count;
    events.push_back({{"name", label.name},
                      {"cat", label.category},
                      {"ph", "X"},
                      {"ts", Microseconds(s.start - origin)},
                      {"dur", Microseconds(s.duration)},
                      {"pid", 1},
                      {"tid", s.thread},
                      {"args", args}});
  }
  const nlohmann::json trace = {
      {"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", {{"dropped", dropped}}}};
  return trace.dump();
}

struct Total {
  std::string op;
  std::string kernel;  // a node's: what computed it (Kernel::Implementation)
  uint64_t count = 0;
  double total_us = 0;
  void Add(const profiler::Span& s) {
    ++count;
    total_us += Microseconds(s.duration);
  }
  nlohmann::json Summary() const {
    return {{"count", count}, {"total_us", total_us}, {"mean_us", count ? total_us / static_cast<double>(count) : 0.0}};
  }
  // The summary with this total's share of `all_steps_us`.
  nlohmann::json Json(double all_steps_us) const {
    nlohmann::json row = Summary();
    row["share"] = all_steps_us > 0 ? total_us / all_steps_us : 0.0;
    return row;
  }
};

// `totals` as a list, longest total first, each with its key under `key`.
nlohmann::json Ranked(const std::map<std::string, Total>& totals, const char* key, double all_steps_us,
                      bool with_op) {
  std::vector<std::pair<std::string, Total>> sorted(totals.begin(), totals.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.total_us > b.second.total_us; });
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [name, total] : sorted) {
    nlohmann::json row = {{key, name}};
    if (with_op) {
      row["op"] = total.op;
      row["kernel"] = total.kernel;
    }
    row.update(total.Json(all_steps_us));
    rows.push_back(row);
  }
  return rows;
}

std::string AggregateJson() {
  uint64_t dropped = 0;
  const std::vector<profiler::Span> spans = profiler::Snapshot(&dropped);
  std::map<std::string, Total> by_op, by_node;
  Total invocations, queue;
  double all_steps_us = 0;
  for (const profiler::Span& s : spans) {
    const profiler::Label& label = *s.label;
    if (label.category == "invocation") {
      invocations.Add(s);
    } else if (label.category == "queue") {
      queue.Add(s);
    } else {
      const std::string op = label.category == "conversion" ? "(layout conversion)" : label.op;
      by_op[op].op = op;
      by_op[op].Add(s);
      // A conversion carries the name of the node it feeds; it gets a row of its own.
      const std::string node = label.category == "conversion" ? label.name + " (layout conversion)" : label.name;
      by_node[node].op = op;
      by_node[node].kernel = label.kernel;
      by_node[node].Add(s);
      all_steps_us += Microseconds(s.duration);
    }
  }
  const nlohmann::json aggregate = {{"operators", Ranked(by_op, "op", all_steps_us, false)},
                                    {"nodes", Ranked(by_node, "node", all_steps_us, true)},
                                    {"invocations", invocations.Summary()},
                                    {"queue", queue.Summary()},
                                    {"dropped", dropped}};
  return aggregate.dump();
}

}  // namespace

extern "C" {

int QvProfilerStart(void) {
  return capi::Guard([] { profiler::Start(); });
}

int QvProfilerStop(void) {
  return capi::Guard([] { profiler::Stop(); });
}

int QvProfilerClear(void) {
  return capi::Guard([] { profiler::Clear(); });
}

int QvProfilerGetTrace(const char** json) {
  return capi::Guard([&] {
    capi::Require(json, "json");
    thread_local std::string text;
    text = TraceJson();
    *json = text.c_str();
  });
}

int QvProfilerDumpTrace(const char* path) {
  return capi::Guard([&] {
    capi::Require(path, "path");
    const std::string text = TraceJson();
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    Check(static_cast<bool>(out), Status::kInvalidArgument, std::string("cannot write the trace to '") + path + "'");
  });
}

int QvProfilerGetAggregate(const char** json) {
  return capi::Guard([&] {
    capi::Require(json, "json");
    thread_local std::string text;
    text = AggregateJson();
    *json = text.c_str();
  });
}

}  // extern "C"
