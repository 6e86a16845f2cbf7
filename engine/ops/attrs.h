// Typed access to a node's string attributes, with errors naming the node and the attribute.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace qv {

struct PostOp;

// A tuple as MXNet writes attribute values: "(2, 2)", "(7,)" for one value, "()" for none.
std::string TupleString(const std::vector<int64_t>& values);

class Attrs {
 public:
  // `post_ops`: what graph passes fused into the node (may be null: none).
  Attrs(const std::map<std::string, std::string>& values, std::string op, std::string node,
        const std::vector<PostOp>* post_ops = nullptr)
      : values_(&values), post_ops_(post_ops), op_(std::move(op)), node_(std::move(node)) {}

  bool Has(const std::string& key) const { return values_->count(key) != 0; }
  std::string GetString(const std::string& key, const std::string& fallback) const;
  // Like GetString but fails naming the attribute when it is absent.
  std::string Require(const std::string& key) const;
  int64_t GetInt(const std::string& key, int64_t fallback) const;
  int64_t RequireInt(const std::string& key) const;
  double GetFloat(const std::string& key, double fallback) const;
  bool GetBool(const std::string& key, bool fallback) const;
  // "(3, 3)", "[3,3]", "3" (one value), "()" (empty); "None" gives the fallback.
  std::vector<int64_t> GetTuple(const std::string& key, const std::vector<int64_t>& fallback) const;
  // The same spellings with numbers: "(0.1, 0.1, 0.2, 0.2)", "0.5".
  std::vector<double> GetFloatTuple(const std::string& key, const std::vector<double>& fallback) const;
  // GetFloatTuple rounded to float, as MXNet's Tuple<float> attributes hold them.
  std::vector<float> GetFloat32Tuple(const std::string& key, const std::vector<double>& fallback) const;
  // A tuple whose entries may be "None" (slice's begin/end/step): "(0, None)"; absent gives {}.
  std::vector<std::optional<int64_t>> GetOptionalTuple(const std::string& key) const;

  // Operations fused into this node, in execution order (empty when none).
  const std::vector<PostOp>& post_ops() const;
  const std::string& op() const { return op_; }
  const std::string& node() const { return node_; }
  // "node 'conv0' (Convolution): " prefix for messages.
  std::string Where() const { return "node '" + node_ + "' (" + op_ + "): "; }

 private:
  // The trimmed, non-empty items of a tuple attribute (at most 16); `expected` names the form in errors.
  std::vector<std::string> TupleItems(const std::string& key, const char* expected) const;
  [[noreturn]] void Bad(const std::string& key, const std::string& value, const char* expected) const;

  const std::map<std::string, std::string>* values_;
  const std::vector<PostOp>* post_ops_;
  std::string op_;
  std::string node_;
};

}  // namespace qv
