#include "backends/cpu/kernels/kernel.h"
#include "common/error.h"

namespace qv::cpu {
namespace {

class DnnlLayout : public Layout {
 public:
  DnnlLayout(const Desc& desc, const Quantization& quant) : desc_(desc), quant_(quant) {}
  size_t bytes() const override { return IsQuantized(desc_) ? ScaleOffset(desc_) + sizeof(float) : desc_.get_size(); }
  bool SameAs(const Layout& other) const override {
    const auto* o = dynamic_cast<const DnnlLayout*>(&other);
    return o != nullptr && o->desc_ == desc_ && (!IsQuantized(desc_) || o->quant_ == quant_);
  }
  const Desc& desc() const { return desc_; }
  const Quantization& quant() const { return quant_; }

 private:
  Desc desc_;
  Quantization quant_;
};

const DnnlLayout& Cast(const Layout& layout) {
  const auto* dnnl_layout = dynamic_cast<const DnnlLayout*>(&layout);
  Check(dnnl_layout != nullptr, Status::kInternal, "the CPU backend was handed another backend's layout");
  return *dnnl_layout;
}

}  // namespace

bool IsQuantized(const Desc& desc) {
  const auto type = desc.get_data_type();
  return type == dnnl::memory::data_type::s8 || type == dnnl::memory::data_type::u8;
}

size_t ScaleOffset(const Desc& desc) { return (desc.get_size() + alignof(float) - 1) / alignof(float) * alignof(float); }

Desc ScaleDesc(int64_t count) { return Desc({count}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a); }

LayoutPtr ToLayout(const Desc& desc, const Quantization& quant) { return std::make_shared<DnnlLayout>(desc, quant); }

const Desc& DescOf(const Layout& layout) { return Cast(layout).desc(); }

Quantization QuantizationOf(const Layout& layout) { return Cast(layout).quant(); }

int AddRuntimeInput(KernelBuild& build, int input, const Desc& desc, const Quantization& quant) {
  build.runtime_inputs.push_back(input);
  build.input_layouts.push_back(ToLayout(desc, quant));
  return static_cast<int>(build.runtime_inputs.size()) - 1;
}

void AddOutput(KernelBuild& build, const Desc& desc, const Quantization& quant) {
  build.output_layouts.push_back(ToLayout(desc, quant));
}

}  // namespace qv::cpu
