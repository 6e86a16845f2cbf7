// One implementation of an interface per device type (a backend, its memory), registered at
// static-initialisation time and looked up on every array creation and copy: reads take no lock.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>

#include "common/device.h"

namespace qv {

template <typename T>
class DeviceTypeRegistry {
 public:
  void Register(DeviceType type, const T* item) { slots_.at(Index(type)).store(item, std::memory_order_release); }
  // Null when nothing is registered for `type`.
  const T* Find(DeviceType type) const {
    const size_t i = Index(type);
    return i < slots_.size() ? slots_[i].load(std::memory_order_acquire) : nullptr;
  }

 private:
  static size_t Index(DeviceType type) { return static_cast<size_t>(type); }

  std::array<std::atomic<const T*>, 3> slots_{};  // indexed by DeviceType's codes (1, 2)
};

}  // namespace qv
