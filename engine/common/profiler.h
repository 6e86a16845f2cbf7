// The profiler (QvProfilerStart and the calls beside it): while it is on, every invocation records a
// span from its start to its end, every request that waited in a queue a span for the wait, and every
// plan step a span with its operator, input shapes and fused nodes: timed on the invoking thread where
// the backend runs steps there (the CPU), on the device where it enqueues them (CUDA: events around
// each step, on a track per stream). Spans stay in memory (at most kMaxSpans; more are counted as
// dropped) until cleared; the C API writes them as a Chrome trace and as aggregate statistics. Off,
// the cost is one relaxed atomic load per step and invocation.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qv::profiler {

using Clock = std::chrono::steady_clock;

// What a span is of, made once (a plan makes one per step) and shared by its spans, so that recording
// one copies no string.
struct Label {
  std::string name;      // the node a step runs; "invocation"; "queue"
  std::string category;  // "operator", "conversion", "invocation" or "queue"
  std::string op;        // a step's operator (canonical type); empty for the others
  std::string detail;    // a step's input shapes and fused nodes
  std::string kernel;    // what computed a step (Kernel::Implementation); may be empty
};
using LabelPtr = std::shared_ptr<const Label>;

// The labels of invocation and queue spans.
const LabelPtr& InvocationLabel();
const LabelPtr& QueueLabel();

struct Span {
  LabelPtr label;
  Clock::time_point start;
  Clock::duration duration{};
  int thread = 0;      // ThreadNumber() of the recording thread
  int64_t count = 0;   // an invocation's requests; a queued request's priority
};

inline constexpr size_t kMaxSpans = 1u << 20;

bool Enabled();
void Start();  // records from now on; spans kept so far stay
void Stop();
void Clear();  // drops the spans kept and the dropped count
// Keeps `span` while the profiler is on (checked again here, under the lock).
void Record(Span span);
// The spans kept, in the order they were recorded, and how many were dropped past kMaxSpans.
std::vector<Span> Snapshot(uint64_t* dropped);
// A small number naming the calling thread in traces: 1, 2, ... in order of first use.
int ThreadNumber();
// A number, drawn with the threads', for a track of spans that no host thread runs (a GPU stream's),
// named `name` in traces.
int NewTrack(const std::string& name);
// The name of track `number`; empty for a thread.
std::string TrackName(int number);
// When the profiler was first started: a trace's time 0.
Clock::time_point Origin();

}  // namespace qv::profiler
