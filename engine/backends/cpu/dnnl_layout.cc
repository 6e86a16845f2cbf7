#include "backends/cpu/kernel.h"
#include "common/error.h"

namespace qv::cpu {
namespace {

class DnnlLayout : public Layout {
 public:
  explicit DnnlLayout(const Desc& desc) : desc_(desc) {}
  size_t bytes() const override { return desc_.get_size(); }
  bool SameAs(const Layout& other) const override {
    const auto* o = dynamic_cast<const DnnlLayout*>(&other);
    return o != nullptr && o->desc_ == desc_;
  }
  const Desc& desc() const { return desc_; }

 private:
  Desc desc_;
};

}  // namespace

LayoutPtr ToLayout(const Desc& desc) { return std::make_shared<DnnlLayout>(desc); }

const Desc& DescOf(const Layout& layout) {
  const auto* dnnl_layout = dynamic_cast<const DnnlLayout*>(&layout);
  Check(dnnl_layout != nullptr, Status::kInternal, "the CPU backend was handed another backend's layout");
  return dnnl_layout->desc();
}

}  // namespace qv::cpu
