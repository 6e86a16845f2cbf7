// A block of host memory: either allocated (aligned, counted in memory stats) or wrapped caller memory
// with a release callback that runs exactly once, when the last reference goes.
#pragma once

#include <cstddef>
#include <memory>

namespace qv {

class Storage {
 public:
  using ReleaseFn = void (*)(void* ctx);

  // Zero-filled, 64-byte aligned. Throws Error(Status::kOutOfMemory) naming the size on failure, and
  // before trying when the runtime's storage would exceed MaxBytes().
  static std::shared_ptr<Storage> Allocate(size_t bytes);
  // The most bytes of storage the runtime holds at once: physical memory, this process's cgroup memory
  // limit, or QUIVER_MEMORY_LIMIT (tensor/memory_limit.h: bytes, K/M/G, or a %), whichever is smallest. Linux
  // overcommits, so a larger allocation may "succeed" and the process be killed when the pages are
  // touched: such sizes are refused up front instead.
  static size_t MaxBytes();
  // Caller memory; `release(ctx)` (may be null) runs when the storage is destroyed.
  static std::shared_ptr<Storage> Wrap(void* data, size_t bytes, ReleaseFn release, void* ctx);

  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  Storage(void* data, size_t size, bool owned, ReleaseFn release, void* ctx)
      : data_(data), size_(size), owned_(owned), release_(release), ctx_(ctx) {}

  void* data_;
  size_t size_;
  bool owned_;
  ReleaseFn release_;
  void* ctx_;
};

}  // namespace qv
