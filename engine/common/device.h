// A device: MXNet's (type, id) pair.
#pragma once

#include <string>

namespace qv {

// MXNet's device type codes (the C API's QvDeviceType uses the same numbers).
enum class DeviceType { kCpu = 1, kGpu = 2 };

struct Device {
  DeviceType type = DeviceType::kCpu;
  int id = 0;
  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == DeviceType::kCpu; }
  std::string ToString() const { return (is_cpu() ? "cpu(" : "gpu(") + std::to_string(id) + ")"; }
};

// Parses "cpu", "cpu(0)", "gpu(1)"; throws Error(Status::kInvalidArgument) naming the text otherwise.
Device ParseDevice(const std::string& text);

}  // namespace qv
