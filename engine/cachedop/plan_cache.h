// The compiled plans of one cached op, by input shapes. At most `capacity` are kept: the least recently
// used goes first, but never one an invocation still holds (the cache then keeps more for a while).
// A service fed images of many sizes keeps a bounded number of plans, and their workspaces, instead
// of one per size ever seen. Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "plan/plan.h"

namespace qv {

class PlanCache {
 public:
  explicit PlanCache(size_t capacity) : capacity_(capacity) {}

  // The plan for these shapes (now the most recently used), or null.
  std::shared_ptr<const Plan> Find(const std::vector<Shape>& key);
  // Keeps `plan` for `key`, evicting as above.
  void Insert(const std::vector<Shape>& key, std::shared_ptr<const Plan> plan);
  // Some kept plan's shapes, if any (a static_shape op keeps one).
  std::optional<std::vector<Shape>> AnyKey() const;
  size_t size() const;
  uint64_t evictions() const;

 private:
  struct Entry {
    std::vector<Shape> key;
    std::shared_ptr<const Plan> plan;
  };
  const size_t capacity_;
  mutable std::mutex mu_;
  std::list<Entry> entries_;  // most recently used first
  std::map<std::vector<Shape>, std::list<Entry>::iterator> index_;
  uint64_t evictions_ = 0;
};

}  // namespace qv
