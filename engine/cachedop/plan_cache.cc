#include "cachedop/plan_cache.h"

namespace qv {

std::shared_ptr<const Plan> PlanCache::Find(const std::vector<Shape>& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->plan;
}

void PlanCache::Insert(const std::vector<Shape>& key, std::shared_ptr<const Plan> plan) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    it->second->plan = std::move(plan);
    entries_.splice(entries_.begin(), entries_, it->second);
    return;
  }
  entries_.push_front({key, std::move(plan)});
  index_[key] = entries_.begin();
  // Oldest first, never the plan just kept; a plan whose only owner is this cache is in no invocation.
  for (auto it = std::prev(entries_.end()); entries_.size() > capacity_ && it != entries_.begin();) {
    const auto newer = std::prev(it);
    if (it->plan.use_count() == 1) {
      index_.erase(it->key);
      entries_.erase(it);
      ++evictions_;
    }
    it = newer;
  }
}

std::optional<std::vector<Shape>> PlanCache::AnyKey() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.empty()) return std::nullopt;
  return entries_.front().key;
}

size_t PlanCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

uint64_t PlanCache::evictions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return evictions_;
}

}  // namespace qv
