#include "batching/request_queue.h"

#include <algorithm>

namespace qv {

RequestQueue::Clock::time_point RequestQueue::Group::oldest() const {
  Clock::time_point t = requests.front()->arrived;
  for (const auto& r : requests) t = std::min(t, r->arrived);
  return t;
}

void RequestQueue::Add(RequestPtr request, Clock::time_point now) {
  request->sequence = next_sequence_++;
  request->arrived = now;
  Group& g = groups_[request->group];
  g.rows += request->rows;
  const auto after = [](const RequestPtr& a, const RequestPtr& b) {
    return a->priority != b->priority ? a->priority > b->priority : a->sequence < b->sequence;
  };
  g.requests.insert(std::upper_bound(g.requests.begin(), g.requests.end(), request, after), std::move(request));
}

size_t RequestQueue::size() const {
  size_t n = 0;
  for (const auto& [key, g] : groups_) n += g.requests.size();
  return n;
}

std::vector<RequestPtr> RequestQueue::TakeEnded(Clock::time_point now) {
  std::vector<RequestPtr> ended;
  for (auto it = groups_.begin(); it != groups_.end();) {
    Group& g = it->second;
    for (auto r = g.requests.begin(); r != g.requests.end();) {
      if ((*r)->control->Alive(now)) {
        ++r;
        continue;
      }
      g.rows -= (*r)->rows;
      ended.push_back(std::move(*r));
      r = g.requests.erase(r);
    }
    EraseIfIdle(it++);
  }
  return ended;
}

void RequestQueue::EraseIfIdle(std::map<std::vector<Shape>, Group>::iterator it) {
  if (it->second.requests.empty() && it->second.running == 0) groups_.erase(it);
}

bool RequestQueue::Ready(const Group& g, Clock::time_point now, bool flush) const {
  if (g.requests.empty()) return false;
  if (flush || g.rows >= options_.max_batch_size) return true;
  return g.running == 0 && now - g.waiting_since() >= std::chrono::microseconds(options_.batch_timeout_us);
}

std::vector<RequestPtr> RequestQueue::TakeBatch(Clock::time_point now, bool flush) {
  auto best = groups_.end();
  for (auto it = groups_.begin(); it != groups_.end(); ++it) {
    if (!Ready(it->second, now, flush)) continue;
    if (best == groups_.end()) {
      best = it;
      continue;
    }
    const Request& a = *it->second.requests.front();
    const Request& b = *best->second.requests.front();
    if (a.priority > b.priority || (a.priority == b.priority && it->second.oldest() < best->second.oldest())) best = it;
  }
  std::vector<RequestPtr> batch;
  if (best == groups_.end()) return batch;
  Group& g = best->second;
  int64_t rows = 0;
  auto r = g.requests.begin();
  while (r != g.requests.end() && (batch.empty() || rows + (*r)->rows <= options_.max_batch_size)) {
    rows += (*r)->rows;
    batch.push_back(std::move(*r));
    r = g.requests.erase(r);
  }
  g.rows -= rows;
  ++g.running;
  return batch;
}

void RequestQueue::RunEnded(const std::vector<Shape>& group, Clock::time_point now) {
  const auto it = groups_.find(group);
  if (it == groups_.end()) return;
  --it->second.running;
  it->second.last_run_end = now;
  EraseIfIdle(it);
}

bool RequestQueue::NextEvent(bool runs_free, Clock::time_point* when) const {
  bool any = false;
  const auto consider = [&](Clock::time_point t) {
    if (!any || t < *when) *when = t;
    any = true;
  };
  for (const auto& [key, g] : groups_) {
    if (g.requests.empty()) continue;
    // A group whose run goes is woken by that run's end (BatchScheduler pokes the dispatcher then).
    if (runs_free && g.rows >= options_.max_batch_size) consider(Clock::time_point::min());
    else if (runs_free && g.running == 0)
      consider(g.waiting_since() + std::chrono::microseconds(options_.batch_timeout_us));
    for (const auto& r : g.requests)
      if (r->control->has_deadline()) consider(r->control->deadline());
  }
  return any;
}

}  // namespace qv
