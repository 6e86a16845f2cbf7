#include "ops/int8_hints.h"

namespace qv {
namespace {

DType ParseType(const Attrs& attrs, const std::string& key, bool float_allowed) {
  const std::string value = attrs.Require(key);
  if (value == "uint8") return DType::kUInt8;
  if (value == "int8") return DType::kInt8;
  if (value == "float32" && float_allowed) return DType::kFloat32;
  throw Error(Status::kParse, attrs.Where() + "attribute '" + key + "' = '" + value + "' must be " +
                                  (float_allowed ? "uint8, int8 or float32" : "uint8 or int8"));
}

}  // namespace

Int8Hints Int8Hints::Parse(const Attrs& attrs) {
  Int8Hints h;
  if (!attrs.Has(int8_attr::kInType)) return h;
  h.present = true;
  h.in_type = ParseType(attrs, int8_attr::kInType, false);
  if (attrs.Has(int8_attr::kInRange)) h.in_range = static_cast<float>(attrs.GetFloat(int8_attr::kInRange, 0));
  h.in_levels = static_cast<float>(attrs.GetFloat(int8_attr::kInLevels, DataLevels(h.in_type)));
  h.out_type = ParseType(attrs, int8_attr::kOutType, true);
  Check(h.out_type == DType::kFloat32 || attrs.Has(int8_attr::kOutRange), Status::kParse,
        attrs.Where() + "an int8 output needs '" + int8_attr::kOutRange + "'");
  h.out_range = static_cast<float>(attrs.GetFloat(int8_attr::kOutRange, 0));
  h.weight_levels = static_cast<float>(attrs.GetFloat(int8_attr::kWeightLevels, 127.5));
  h.channelwise = attrs.GetBool(int8_attr::kChannelwise, false);
  h.fused_ops = static_cast<int>(attrs.GetInt(int8_attr::kFusedOps, 0));
  return h;
}

}  // namespace qv
