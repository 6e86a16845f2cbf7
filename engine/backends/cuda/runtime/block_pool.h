// A caching allocator for memory that is slow to get (device memory, pinned host memory). Released
// blocks stay in the pool, keyed by their rounded size, and serve later requests of that size: a model
// invoked again and again with the same shapes stops calling the device allocator after its first
// invocations. When the allocator fails, the cached blocks are handed back and it is tried once more.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace qv::cuda {

class BlockPool {
 public:
  struct Allocator {
    std::function<void*(size_t bytes)> allocate;  // null when out of memory
    std::function<void(void* block)> free;
  };
  struct Stats {
    size_t in_use_bytes = 0;
    size_t cached_bytes = 0;
    size_t allocator_calls = 0;  // successful calls to Allocator::allocate
    size_t reuses = 0;           // requests served from the cache
  };

  // `name` ("gpu(0) memory") appears in out-of-memory messages.
  BlockPool(std::string name, Allocator allocator);
  // Hands cached blocks back; blocks still in use are the caller's to return first.
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // A block of at least `bytes` (> 0). Throws Error(Status::kOutOfMemory) naming the pool and size.
  void* Acquire(size_t bytes);
  // Returns a block from Acquire to the cache. Throws Error(Status::kInternal) for any other pointer.
  void Release(void* block);
  // Hands every cached block back to the allocator.
  void Trim();
  Stats stats() const;

  // Sizes are rounded so that nearby requests share blocks: to 512 bytes up to 1 MiB, to 2 MiB above.
  static size_t RoundedSize(size_t bytes);

 private:
  void TrimLocked();

  const std::string name_;
  const Allocator allocator_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> cached_;  // rounded size -> free blocks
  std::unordered_map<void*, size_t> in_use_;     // block -> rounded size
  Stats stats_;
};

// A block borrowed from a pool for a scope. Work enqueued on it must be finished before the scope ends.
class PooledBlock {
 public:
  PooledBlock(BlockPool& pool, size_t bytes) : pool_(pool), data_(pool.Acquire(bytes)) {}
  ~PooledBlock() { pool_.Release(data_); }
  PooledBlock(const PooledBlock&) = delete;
  PooledBlock& operator=(const PooledBlock&) = delete;
  void* data() const { return data_; }

 private:
  BlockPool& pool_;
  void* data_;
};

}  // namespace qv::cuda
