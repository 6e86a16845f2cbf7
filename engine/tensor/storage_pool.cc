#include "tensor/storage_pool.h"

#include "tensor/device_memory.h"

namespace qv {

StoragePool::Lease StoragePool::Borrow(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      std::shared_ptr<Storage> block = std::move(it->second.back());
      it->second.pop_back();
      return Lease(this, std::move(block), bytes);
    }
  }
  return Lease(this, DeviceMemoryOf(device_).Allocate(device_, bytes), bytes);
}

void StoragePool::Return(size_t bytes, std::shared_ptr<Storage> block) {
  std::lock_guard<std::mutex> lock(mu_);
  free_[bytes].push_back(std::move(block));
}

}  // namespace qv
