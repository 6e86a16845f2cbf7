#include "cached_op_flags.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "quiver/c_api.h"

namespace mxc {
namespace {

bool ParseBool(const std::string& key, const std::string& value) {
  std::string v;
  for (char c : value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  throw Error("flag '" + key + "': expected true or false, got '" + value + "'");
}

void ParseInt(const std::string& key, const std::string& value) {
  size_t used = 0;
  try {
    (void)std::stoll(value, &used);  // parsed for `used` only
  } catch (const std::exception&) {
    used = 0;
  }
  Require(used == value.size() && !value.empty(), "flag '" + key + "': expected an integer, got '" + value + "'");
}

// "[0, 2]", "(0,2)", "0,2", "[]" (MXNet's Tuple syntax).
std::vector<size_t> ParseIndices(const std::string& key, const std::string& value, size_t num_inputs) {
  std::vector<size_t> out;
  std::string digits;
  auto flush = [&] {
    if (digits.empty()) return;
    const size_t i = std::stoul(digits);
    Require(i < num_inputs, "flag '" + key + "': index " + digits + " is out of range: the symbol has " +
                                std::to_string(num_inputs) + " inputs");
    out.push_back(i);
    digits.clear();
  };
  for (char c : value) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (c == ',' || c == ']' || c == ')' || c == 'L' || std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else if (!((c == '[' || c == '(') && out.empty() && digits.empty())) {
      throw Error("flag '" + key + "': expected a list of input indices like [0, 1], got '" + value + "'");
    }
  }
  flush();
  return out;
}

// The names of Quiver's cached-op flags, from the runtime's own table.
const std::vector<std::string>& QuiverFlagNames() {
  static const std::vector<std::string> names = [] {
    const char* json = nullptr;
    CheckQv(QvListCachedOpFlags(&json), "listing Quiver's cached-op flags");
    std::vector<std::string> out;
    for (const auto& flag : nlohmann::json::parse(json)) out.push_back(flag.at("name").get<std::string>());
    return out;
  }();
  return names;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

CachedOpFlags ParseCachedOpFlags(int num_flags, const char** keys, const char** vals, size_t num_inputs) {
  Require(num_flags >= 0, "num_flags is negative");
  Require(num_flags == 0 || (keys && vals), "keys or vals is NULL");
  CachedOpFlags flags;
  bool have_data = false;
  for (int i = 0; i < num_flags; ++i) {
    Require(keys[i] && vals[i], "flag " + std::to_string(i) + " has a NULL key or value");
    const std::string key = keys[i], value = vals[i];
    if (key == "static_shape") {
      flags.static_shape = ParseBool(key, value);
    } else if (key == "static_alloc" || key == "is_dynamic") {
      // Quiver plans memory per input shape and reuses it always, so static_alloc changes nothing;
      // is_dynamic concerns ops with data-dependent shapes, which Quiver plans per call anyway.
      ParseBool(key, value);
    } else if (key == "inline_limit" || key == "forward_bulk_size" || key == "backward_bulk_size") {
      // Tuning knobs of MXNet's executor (inlining for autograd, engine bulking): no counterpart.
      ParseInt(key, value);
    } else if (key == "data_indices") {
      flags.data_indices = ParseIndices(key, value, num_inputs);
      have_data = true;
    } else if (key == "param_indices") {
      flags.param_indices = ParseIndices(key, value, num_inputs);
    } else if (key == "subgraph") {
      // MXNet's subgraph backends (MKLDNN fusion, TensorRT) are replaced by Quiver's own passes.
      Require(value.empty() || value == "NONE" || value == "MKLDNN" || value == "ONEDNN",
              "flag 'subgraph': backend '" + value + "' is not available (Quiver fuses operators itself)");
    } else if (key == "device") {
      throw Error("flag 'device': a cached op runs where its inputs are (their context), not where a flag says");
    } else if (std::count(QuiverFlagNames().begin(), QuiverFlagNames().end(), key)) {
      flags.quiver.emplace_back(key, value);
    } else {
      throw Error("Cannot find argument '" + key + "'. Valid flags: static_alloc, static_shape, inline_limit, "
                  "forward_bulk_size, backward_bulk_size, data_indices, param_indices, subgraph, is_dynamic; "
                  "and Quiver's own: " + Joined(QuiverFlagNames()));
    }
  }
  const std::set<size_t> params(flags.param_indices.begin(), flags.param_indices.end());
  if (!have_data) {
    // MXNet's default: every input that is not a parameter is data.
    for (size_t i = 0; i < num_inputs; ++i)
      if (!params.count(i)) flags.data_indices.push_back(i);
  }
  for (size_t i : flags.data_indices)
    Require(!params.count(i), "input " + std::to_string(i) + " is in both data_indices and param_indices");
  return flags;
}

}  // namespace mxc
