// A tensor's physical layout, as the backend that chose it describes it (oneDNN's blocked formats, for
// example). Code above the backends only sizes layouts and compares them; converting between two is
// the backend's job.
#pragma once

#include <cstddef>
#include <memory>

namespace qv {

class Layout {
 public:
  virtual ~Layout() = default;
  virtual size_t bytes() const = 0;
  // True when both describe the same bytes for the same logical tensor (no conversion needed).
  virtual bool SameAs(const Layout& other) const = 0;
};

using LayoutPtr = std::shared_ptr<const Layout>;

}  // namespace qv
