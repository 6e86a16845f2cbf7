#include "common/profiler.h"

#include <atomic>
#include <map>
#include <mutex>

namespace qv::profiler {
namespace {

struct State {
  std::atomic<bool> on{false};
  std::mutex mu;
  std::vector<Span> spans;  // guarded by mu
  uint64_t dropped = 0;     // guarded by mu
  Clock::time_point origin = Clock::now();
  bool started_once = false;  // guarded by mu
};

State& TheState() {
  static State* state = new State;  // never destroyed: threads may record while the process exits
  return *state;
}

std::atomic<int>& NextNumber() {
  static std::atomic<int> next{1};
  return next;
}

struct Tracks {
  std::mutex mu;
  std::map<int, std::string> names;  // guarded by mu
};

Tracks& TheTracks() {
  static Tracks* tracks = new Tracks;  // never destroyed, as TheState()
  return *tracks;
}

}  // namespace

const LabelPtr& InvocationLabel() {
  static const LabelPtr label = std::make_shared<const Label>(Label{"invocation", "invocation", "", "", ""});
  return label;
}

const LabelPtr& QueueLabel() {
  static const LabelPtr label = std::make_shared<const Label>(Label{"queue", "queue", "", "", ""});
  return label;
}

bool Enabled() { return TheState().on.load(std::memory_order_relaxed); }

void Start() {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.started_once) s.origin = Clock::now();
  s.started_once = true;
  s.on.store(true);
}

void Stop() {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.on.store(false);
}

void Clear() {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.spans.clear();
  s.spans.shrink_to_fit();
  s.dropped = 0;
}

void Record(Span span) {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.on.load(std::memory_order_relaxed)) return;
  if (s.spans.size() >= kMaxSpans) {
    ++s.dropped;
    return;
  }
  s.spans.push_back(std::move(span));
}

std::vector<Span> Snapshot(uint64_t* dropped) {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (dropped) *dropped = s.dropped;
  return s.spans;
}

int ThreadNumber() {
  thread_local const int number = NextNumber().fetch_add(1);
  return number;
}

int NewTrack(const std::string& name) {
  const int number = NextNumber().fetch_add(1);
  Tracks& t = TheTracks();
  std::lock_guard<std::mutex> lock(t.mu);
  t.names[number] = name;
  return number;
}

std::string TrackName(int number) {
  Tracks& t = TheTracks();
  std::lock_guard<std::mutex> lock(t.mu);
  const auto found = t.names.find(number);
  return found == t.names.end() ? std::string() : found->second;
}

Clock::time_point Origin() {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.origin;
}

}  // namespace qv::profiler
