#include "ops/attrs.h"

#include <cerrno>
#include <cstdlib>

#include "common/error.h"
#include "ops/post_ops.h"

namespace qv {
namespace {

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

bool ParseInt(const std::string& text, int64_t* out) {
  const std::string t = Trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') {
    // MXNet writes some integers as "3L" (Python 2 longs).
    if (errno != 0 || !(end[0] == 'L' && end[1] == '\0')) return false;
  }
  *out = v;
  return true;
}

}  // namespace

void Attrs::Bad(const std::string& key, const std::string& value, const char* expected) const {
  throw Error(Status::kParse, Where() + "attribute '" + key + "' = '" + value + "' is not " + expected);
}

std::string Attrs::GetString(const std::string& key, const std::string& fallback) const {
  auto it = values_->find(key);
  return it == values_->end() ? fallback : it->second;
}

std::string Attrs::Require(const std::string& key) const {
  auto it = values_->find(key);
  if (it == values_->end()) throw Error(Status::kParse, Where() + "required attribute '" + key + "' is missing");
  return it->second;
}

int64_t Attrs::GetInt(const std::string& key, int64_t fallback) const {
  if (!Has(key) || Trim(GetString(key, "")) == "None") return fallback;
  return RequireInt(key);
}

int64_t Attrs::RequireInt(const std::string& key) const {
  const std::string v = Require(key);
  int64_t out = 0;
  if (!ParseInt(v, &out)) Bad(key, v, "an integer");
  return out;
}

double Attrs::GetFloat(const std::string& key, double fallback) const {
  if (!Has(key)) return fallback;
  const std::string v = Trim(GetString(key, ""));
  if (v == "None") return fallback;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') Bad(key, v, "a number");
  return d;
}

bool Attrs::GetBool(const std::string& key, bool fallback) const {
  if (!Has(key)) return fallback;
  const std::string v = Trim(GetString(key, ""));
  if (v == "True" || v == "true" || v == "1") return true;
  if (v == "False" || v == "false" || v == "0") return false;
  Bad(key, v, "a boolean");
}

std::vector<std::string> Attrs::TupleItems(const std::string& key, const char* expected) const {
  std::string v = Trim(GetString(key, ""));
  if (!v.empty() && (v.front() == '(' || v.front() == '[')) {
    if (v.size() < 2 || (v.back() != ')' && v.back() != ']')) Bad(key, v, "a tuple");
    v = v.substr(1, v.size() - 2);
  }
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= v.size()) {
    const size_t comma = v.find(',', start);
    const std::string item = Trim(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!item.empty()) {
      if (items.size() >= 16) Bad(key, GetString(key, ""), expected);
      items.push_back(item);
    } else if (comma != std::string::npos && !items.empty() && v.find_first_not_of(" ", comma + 1) != std::string::npos) {
      Bad(key, GetString(key, ""), expected);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::string TupleString(const std::vector<int64_t>& values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> Attrs::GetTuple(const std::string& key, const std::vector<int64_t>& fallback) const {
  if (!Has(key) || Trim(GetString(key, "")) == "None") return fallback;
  std::vector<int64_t> out;
  for (const std::string& item : TupleItems(key, "a tuple of integers")) {
    int64_t x = 0;
    if (!ParseInt(item, &x)) Bad(key, GetString(key, ""), "a tuple of integers");
    out.push_back(x);
  }
  return out;
}

std::vector<double> Attrs::GetFloatTuple(const std::string& key, const std::vector<double>& fallback) const {
  if (!Has(key) || Trim(GetString(key, "")) == "None") return fallback;
  std::vector<double> out;
  for (const std::string& item : TupleItems(key, "a tuple of numbers")) {
    char* end = nullptr;
    const double d = std::strtod(item.c_str(), &end);
    if (*end != '\0') Bad(key, GetString(key, ""), "a tuple of numbers");
    out.push_back(d);
  }
  return out;
}

std::vector<float> Attrs::GetFloat32Tuple(const std::string& key, const std::vector<double>& fallback) const {
  std::vector<float> out;
  for (double v : GetFloatTuple(key, fallback)) out.push_back(static_cast<float>(v));
  return out;
}

std::vector<std::optional<int64_t>> Attrs::GetOptionalTuple(const std::string& key) const {
  std::vector<std::optional<int64_t>> out;
  if (!Has(key)) return out;
  const std::string original = GetString(key, "");
  std::string v = Trim(original);
  if (v.size() < 2 || (v.front() != '(' && v.front() != '[') || (v.back() != ')' && v.back() != ']'))
    Bad(key, original, "a tuple");
  v = v.substr(1, v.size() - 2);
  if (Trim(v).empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = v.find(',', start);
    const std::string item = Trim(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    const bool last = comma == std::string::npos;
    int64_t x = 0;
    if (item == "None") out.push_back(std::nullopt);
    else if (ParseInt(item, &x)) out.push_back(x);
    else if (!(item.empty() && last && !out.empty())) Bad(key, original, "a tuple of integers or None");  // "(1,)"
    if (last || out.size() > 16) break;
    start = comma + 1;
  }
  if (out.size() > 16) Bad(key, original, "a tuple of at most 16 entries");
  return out;
}

const std::vector<PostOp>& Attrs::post_ops() const {
  static const std::vector<PostOp> none;
  return post_ops_ ? *post_ops_ : none;
}

}  // namespace qv
