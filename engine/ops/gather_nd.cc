#include "ops/gather_nd.h"

#include "common/error.h"

namespace qv {

GatherNDGeometry GatherNDGeometry::Resolve(const Attrs& attrs, const Shape& data, const Shape& indices) {
  Check(indices.size() >= 2, Status::kShape,
        attrs.Where() + "indices " + ShapeToString(indices) + " must have at least 2 dimensions");
  const int64_t m = indices[0];
  Check(m >= 1 && m <= static_cast<int64_t>(data.size()) && m <= 10, Status::kShape,
        attrs.Where() + "indices " + ShapeToString(indices) + " index " + std::to_string(m) + " axes of data " +
            ShapeToString(data) + "; between 1 and min(10, data's dimensions) are allowed");
  GatherNDGeometry g;
  g.dims.assign(data.begin(), data.begin() + m);
  for (size_t d = 1; d < indices.size(); ++d) g.positions *= indices[d];
  for (size_t d = static_cast<size_t>(m); d < data.size(); ++d) g.slice *= data[d];
  g.strides.assign(static_cast<size_t>(m), 0);
  for (int64_t j = m - 1, stride = g.slice; j >= 0; stride *= data[j], --j) g.strides[j] = stride;
  return g;
}

namespace {

class GatherNDOp : public OpDef {
 public:
  std::vector<std::string> InputNames(const Attrs&) const override { return {"data", "indices"}; }
  std::vector<TensorType> InferShape(const Attrs& attrs, const std::vector<TensorType>& in) const override {
    ExpectInputs(attrs, in, 2);
    ExpectFloat32(attrs, in);
    const Shape& data = in[0].shape;
    const Shape& indices = in[1].shape;
    GatherNDGeometry::Resolve(attrs, data, indices);
    Shape out(indices.begin() + 1, indices.end());
    out.insert(out.end(), data.begin() + indices[0], data.end());
    return {{out, DType::kFloat32}};
  }
  // The data's type, whatever the indices' type.
  OpTraits Traits(const Attrs&) const override { return MovesData(DataMovement::kCompute, OutputDType::kOfFirstInput); }
};

const OpRegistrar kRegister({{"gather_nd"}}, new GatherNDOp);

}  // namespace
}  // namespace qv
