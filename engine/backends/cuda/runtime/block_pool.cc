#include "backends/cuda/runtime/block_pool.h"

#include <cstdint>

#include "common/error.h"

namespace qv::cuda {

BlockPool::BlockPool(std::string name, Allocator allocator)
    : name_(std::move(name)), allocator_(std::move(allocator)) {}

BlockPool::~BlockPool() { Trim(); }

size_t BlockPool::RoundedSize(size_t bytes) {
  constexpr size_t kSmallUnit = 512, kLargeUnit = size_t{2} << 20, kSmallLimit = size_t{1} << 20;
  const size_t unit = bytes <= kSmallLimit ? kSmallUnit : kLargeUnit;
  Check(bytes <= SIZE_MAX - unit, Status::kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes");
  return (bytes + unit - 1) / unit * unit;
}

void* BlockPool::Acquire(size_t bytes) {
  Check(bytes > 0, Status::kInternal, name_ + ": empty allocation");
  const size_t size = RoundedSize(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  void* block = nullptr;
  auto it = cached_.find(size);
  if (it != cached_.end() && !it->second.empty()) {
    block = it->second.back();
    it->second.pop_back();
    stats_.cached_bytes -= size;
    ++stats_.reuses;
  } else {
    block = allocator_.allocate(size);
    if (block == nullptr && stats_.cached_bytes > 0) {
      TrimLocked();
      block = allocator_.allocate(size);
    }
    Check(block != nullptr, Status::kOutOfMemory,
          "cannot allocate " + std::to_string(bytes) + " bytes of " + name_ + " (" +
              std::to_string(stats_.in_use_bytes) + " bytes in use)");
    ++stats_.allocator_calls;
  }
  in_use_[block] = size;
  stats_.in_use_bytes += size;
  return block;
}

void BlockPool::Release(void* block) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_use_.find(block);
  Check(it != in_use_.end(), Status::kInternal, name_ + ": released a block it did not hand out");
  const size_t size = it->second;
  in_use_.erase(it);
  stats_.in_use_bytes -= size;
  stats_.cached_bytes += size;
  cached_[size].push_back(block);
}

void BlockPool::Trim() {
  std::lock_guard<std::mutex> lock(mu_);
  TrimLocked();
}

void BlockPool::TrimLocked() {
  for (auto& [size, blocks] : cached_)
    for (void* block : blocks) allocator_.free(block);
  cached_.clear();
  stats_.cached_bytes = 0;
}

BlockPool::Stats BlockPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace qv::cuda
