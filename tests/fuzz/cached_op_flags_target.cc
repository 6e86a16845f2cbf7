#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "fuzz/fuzz_checks.h"
#include "fuzz/fuzz_targets.h"
#include "support/tiny_model.h"

namespace quiver_fuzz {
namespace {

constexpr size_t kMaxFlags = 8;
constexpr int64_t kMaxInputElements = 1 << 14;

// The tiny residual CNN's symbol and parameters, loaded once for every input.
struct Model {
  QvSymbolHandle symbol = nullptr;
  quiver_test::TinyParams params = quiver_test::MakeTinyParams();
  Model() {
    if (QvSymbolCreateFromJSON(quiver_test::TinyModelJson().c_str(), &symbol) != QV_OK) symbol = nullptr;
  }
};

// "key=value" per line; a line without '=' is a key with an empty value.
std::vector<std::pair<std::string, std::string>> ReadFlags(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> flags;
  size_t start = 0;
  while (start <= text.size() && flags.size() < kMaxFlags) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    const size_t eq = line.find('=');
    flags.emplace_back(line.substr(0, eq), eq == std::string::npos ? "" : line.substr(eq + 1));
    start = end + 1;
  }
  return flags;
}

// The value Quiver sees for the (last) flag `key`, up to the first NUL as through the C API; "" if absent.
std::string LastFlag(const std::vector<std::pair<std::string, std::string>>& flags, const std::string& key) {
  std::string value;
  for (const auto& [k, v] : flags)
    if (k == key) value = v.c_str();
  return value;
}

// The input shape the (last) data_shapes flag gave an op that was created, if small enough to run;
// else empty.
std::vector<int64_t> DeclaredShape(const std::vector<std::pair<std::string, std::string>>& flags) {
  const std::string value = LastFlag(flags, "data_shapes");
  const size_t open = value.find('('), close = value.find(')', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<int64_t> shape;
  int64_t elements = 1;
  std::string digits;
  for (size_t i = open + 1; i <= close; ++i) {
    if (value[i] >= '0' && value[i] <= '9') {
      digits += value[i];
      if (digits.size() > 6) return {};
    } else if (!digits.empty()) {
      shape.push_back(std::stoll(digits));
      elements *= shape.back();
      if (elements > kMaxInputElements) return {};
      digits.clear();
    }
  }
  return shape;
}

// Whether the CPU computes bfloat16 natively as oneDNN sees it (ONEDNN_MAX_CPU_ISA=AVX2 hides it, as
// on an AVX2-only CPU): avx512_bf16, or avx_ne_convert on AVX2 cores. Read from oneDNN here, apart
// from the engine's own rule, so that it can judge the engine's refusals.
bool CpuHasBFloat16() {
  const auto isa = static_cast<uint32_t>(dnnl::get_effective_cpu_isa());
  for (const dnnl::cpu_isa level : {dnnl::cpu_isa::avx512_core_bf16, dnnl::cpu_isa::avx2_vnni_2}) {
    const auto bits = static_cast<uint32_t>(level);
    if ((isa & bits) == bits) return true;
  }
  return false;
}

// A creation refused as unsupported is correct only where the flags ask for bfloat16 and the CPU has
// no bfloat16 instructions, and then the message must say so: "" then, else the problem.
std::string CheckUnsupported(const std::vector<std::pair<std::string, std::string>>& flags,
                             const std::string& message) {
  if (LastFlag(flags, "precision") != "bfloat16" || CpuHasBFloat16())
    return "QvCreateCachedOpEx returned status 5 (unsupported), which this input must never cause here: " + message;
  if (message.find("bfloat16 instructions") == std::string::npos)
    return "QvCreateCachedOpEx refused bfloat16 on a CPU without it, but the message does not say why: " + message;
  return CheckFailure("QvCreateCachedOpEx", QV_ERR_UNSUPPORTED, message, {QV_ERR_UNSUPPORTED});
}

// Invokes the op once on `shape`, waits and frees what it made.
std::string InvokeOnce(QvCachedOpHandle op, const std::vector<int64_t>& shape) {
  QvNDArrayHandle input = nullptr;
  int status = QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), QV_CPU, 0, QV_FLOAT32, &input);
  if (status != QV_OK)
    return CheckFailure("QvNDArrayCreate", status, QvGetLastError(), {QV_ERR_SHAPE, QV_ERR_OUT_OF_MEMORY});
  uint32_t n_out = 0;
  QvNDArrayHandle* outs = nullptr;
  status = QvInvokeAsync(op, 1, &input, &n_out, &outs);
  std::string problem;
  if (status != QV_OK) {
    problem = CheckFailure("QvInvokeAsync", status, QvGetLastError(),
                           {QV_ERR_SHAPE, QV_ERR_INVALID_ARGUMENT, QV_ERR_OUT_OF_MEMORY});
  } else {
    for (uint32_t i = 0; i < n_out; ++i) {
      const int wait = QvNDArrayWaitToRead(outs[i]);
      if (wait != QV_OK && problem.empty())
        problem = CheckFailure("QvNDArrayWaitToRead", wait, QvGetLastError(), {QV_ERR_OUT_OF_MEMORY});
      QvNDArrayFree(outs[i]);
    }
  }
  QvNDArrayFree(input);
  return problem;
}

}  // namespace

std::string FuzzCachedOpFlags(const uint8_t* data, size_t size) {
  static Model model;
  if (model.symbol == nullptr) return std::string("the tiny model does not load: ") + QvGetLastError();
  if (size == 0) return "";
  const int thread_safe = data[0] & 1;
  const auto flags = ReadFlags(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  std::vector<const char*> keys, vals;
  for (const auto& [key, value] : flags) {
    keys.push_back(key.c_str());
    vals.push_back(value.c_str());
  }
  QvCachedOpHandle op = nullptr;
  const int status = QvCreateCachedOpEx(model.symbol, model.params.size(), model.params.names(), model.params.arrays(),
                                        static_cast<int>(flags.size()), keys.data(), vals.data(), &op, thread_safe);
  if (status == QV_ERR_UNSUPPORTED) return CheckUnsupported(flags, QvGetLastError());
  if (status != QV_OK)
    return CheckFailure("QvCreateCachedOpEx", status, QvGetLastError(),
                        {QV_ERR_INVALID_ARGUMENT, QV_ERR_DEVICE, QV_ERR_NOT_FOUND, QV_ERR_SHAPE,
                         QV_ERR_OUT_OF_MEMORY});
  const std::vector<int64_t> shape = DeclaredShape(flags);
  std::string problem = shape.empty() ? "" : InvokeOnce(op, shape);
  if (QvFreeCachedOp(op) != QV_OK) problem += std::string(" QvFreeCachedOp failed: ") + QvGetLastError();
  return problem;
}

}  // namespace quiver_fuzz
