#include "fuzz/fuzz_checks.h"
#include "fuzz/fuzz_targets.h"

namespace quiver_fuzz {
namespace {

// Every listed name must be a valid UTF-8 C string.
std::string CheckNames(const char* call, int status, uint32_t n, const char** names) {
  if (status != QV_OK) return std::string(call) + " failed on a loaded symbol: " + QvGetLastError();
  for (uint32_t i = 0; i < n; ++i) {
    if (names[i] == nullptr) return std::string(call) + " returned a NULL name";
    if (!IsValidUtf8(names[i])) return std::string(call) + " returned a name that is not valid UTF-8";
  }
  return "";
}

}  // namespace

std::string FuzzSymbolJson(const uint8_t* data, size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);  // NUL-terminated copy
  QvSymbolHandle sym = nullptr;
  const int status = QvSymbolCreateFromJSON(json.c_str(), &sym);
  if (status != QV_OK)
    return CheckFailure("QvSymbolCreateFromJSON", status, QvGetLastError(), {QV_ERR_PARSE, QV_ERR_UNSUPPORTED});
  uint32_t n = 0;
  const char** names = nullptr;
  std::string problem = CheckNames("QvSymbolListInputs", QvSymbolListInputs(sym, &n, &names), n, names);
  if (problem.empty())
    problem = CheckNames("QvSymbolListOutputs", QvSymbolListOutputs(sym, &n, &names), n, names);
  if (problem.empty() && n == 0) problem = "a loaded symbol has no outputs";
  if (QvSymbolFree(sym) != QV_OK) problem += std::string(" QvSymbolFree failed: ") + QvGetLastError();
  return problem;
}

}  // namespace quiver_fuzz
