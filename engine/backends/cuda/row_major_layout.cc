#include "backends/cuda/row_major_layout.h"

#include <memory>

namespace qv::cuda {
namespace {

class RowMajor : public Layout {
 public:
  explicit RowMajor(size_t bytes) : bytes_(bytes) {}
  size_t bytes() const override { return bytes_; }
  // Two row-major layouts of the same logical tensor hold the same bytes.
  bool SameAs(const Layout& other) const override {
    const auto* o = dynamic_cast<const RowMajor*>(&other);
    return o != nullptr && o->bytes_ == bytes_;
  }

 private:
  size_t bytes_;
};

}  // namespace

LayoutPtr RowMajorLayout(const TensorType& type) { return std::make_shared<RowMajor>(RowMajorBytes(type)); }

size_t RowMajorBytes(const TensorType& type) {
  return static_cast<size_t>(ElementCount(type.shape)) * DTypeSize(type.dtype);
}

}  // namespace qv::cuda
