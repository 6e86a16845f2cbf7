// A device: MXNet's (type, id) pair.
#pragma once

#include <string>

#include "quiver/c_api.h"

namespace qv {

struct Device {
  int type = QV_CPU;
  int id = 0;
  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string ToString() const { return (type == QV_GPU ? "gpu(" : "cpu(") + std::to_string(id) + ")"; }
};

// Parses "cpu", "cpu(0)", "gpu(1)"; throws Error(QV_ERR_INVALID_ARGUMENT) naming the text otherwise.
Device ParseDevice(const std::string& text);

}  // namespace qv
