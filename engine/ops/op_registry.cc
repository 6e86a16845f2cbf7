#include <map>

#include "common/error.h"
#include "ops/op.h"

namespace qv {
namespace {

std::map<std::string, const OpDef*>& Registry() {
  static auto* registry = new std::map<std::string, const OpDef*>();
  return *registry;
}

std::map<std::string, std::string>& Aliases() {
  static auto* aliases = new std::map<std::string, std::string>();
  return *aliases;
}

}  // namespace

std::vector<std::string> NamesOf(const std::vector<OpNames>& family) {
  std::vector<std::string> names;
  for (const OpNames& op : family) names.emplace_back(op.name);
  return names;
}

OpRegistrar::OpRegistrar(const std::vector<OpNames>& ops, const OpDef* op) {
  for (const OpNames& names : ops) {
    Registry()[names.name] = op;
    for (const char* alias : names.aliases) Aliases()[alias] = names.name;
  }
}

const OpDef* FindOp(const std::string& name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : it->second;
}

std::string CanonicalOpName(const std::string& name) {
  auto it = Aliases().find(name);
  return it == Aliases().end() ? name : it->second;
}

std::vector<std::string> ListOps() {
  std::vector<std::string> names;
  for (const auto& kv : Registry()) names.push_back(kv.first);
  return names;
}

std::vector<std::pair<std::string, std::string>> ListAliases() {
  return {Aliases().begin(), Aliases().end()};
}

void ExpectInputs(const Attrs& attrs, const std::vector<TensorType>& in, size_t n) {
  Check(in.size() == n, Status::kShape,
        attrs.Where() + "expects " + std::to_string(n) + " inputs, got " + std::to_string(in.size()));
}

void ExpectNdim(const Attrs& attrs, const TensorType& t, const char* input, size_t ndim) {
  Check(t.shape.size() == ndim, Status::kShape,
        attrs.Where() + "expects " + std::to_string(ndim) + "-D " + input + ", got " + ShapeToString(t.shape));
}

void ExpectFloat32(const Attrs& attrs, const std::vector<TensorType>& in) {
  for (size_t i = 0; i < in.size(); ++i)
    Check(in[i].dtype == DType::kFloat32, Status::kShape,
          attrs.Where() + "input " + std::to_string(i) + " is " + DTypeName(in[i].dtype) +
              ", only float32 is supported");
}

void ExpectParamShape(const Attrs& attrs, const char* input, const Shape& actual, const Shape& expected) {
  Check(actual == expected, Status::kShape,
        attrs.Where() + input + " has shape " + ShapeToString(actual) + ", expected " + ShapeToString(expected));
}

}  // namespace qv
