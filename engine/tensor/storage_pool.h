// Storage kept for reuse on one device: a run borrows blocks of the sizes it needs and gives them back
// when done, so steady-state runs neither allocate nor zero-fill. The pool keeps at most as many blocks
// of a size as were borrowed at once, and frees them with itself.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "common/device.h"
#include "tensor/storage.h"

namespace qv {

class StoragePool {
 public:
  explicit StoragePool(Device device = Device{}) : device_(device) {}

  // A borrowed block; back to its pool when the lease is destroyed. The pool must outlive it.
  class Lease {
   public:
    Lease(StoragePool* pool, std::shared_ptr<Storage> block, size_t bytes)
        : pool_(pool), block_(std::move(block)), bytes_(bytes) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (block_) pool_->Return(bytes_, std::move(block_));
    }
    void* data() const { return block_->data(); }

   private:
    StoragePool* pool_;
    std::shared_ptr<Storage> block_;
    size_t bytes_;
  };

  // A block of exactly `bytes`: a reused one holds what its last borrower left, a new one is zero-filled.
  // Throws Error(Status::kOutOfMemory) as DeviceMemory::Allocate does.
  Lease Borrow(size_t bytes);

 private:
  void Return(size_t bytes, std::shared_ptr<Storage> block);

  const Device device_;
  std::mutex mu_;
  std::map<size_t, std::vector<std::shared_ptr<Storage>>> free_;  // by size
};

}  // namespace qv
