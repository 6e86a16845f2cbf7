// Data inputs of other element types than float32: the symbol's "__dtype__", flag data_types,
// QvCachedOpGetInputDType, exact-type checking at invocation, and MXNet's integer semantics inside.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "quiver/c_api.h"

namespace {

// tokens (declared int32 unless `declared` is empty) -> Embedding (5 x 2 weight) and -> _div_scalar(2).
std::string TokensJson(const std::string& declared) {
  const std::string attrs = declared.empty() ? "{}" : R"({"__dtype__": ")" + declared + R"("})";
  return R"({"nodes": [
    {"op": "null", "name": "tokens", "attrs": )" + attrs + R"(, "inputs": []},
    {"op": "null", "name": "emb_weight", "inputs": []},
    {"op": "Embedding", "name": "emb", "attrs": {"input_dim": "5", "output_dim": "2"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
    {"op": "_div_scalar", "name": "half", "attrs": {"scalar": "2"}, "inputs": [[0, 0, 0]]}],
    "arg_nodes": [0, 1], "heads": [[2, 0, 0], [3, 0, 0]]})";
}

// A compiled op over TokensJson with weight row r = (10r, 10r + 1); QV_OK or the failing status.
struct TokensOp {
  QvCachedOpHandle op = nullptr;
  int status = QV_OK;
  TokensOp(const std::string& declared, const std::map<std::string, std::string>& flags) {
    QvSymbolHandle sym = nullptr;
    REQUIRE(QvSymbolCreateFromJSON(TokensJson(declared).c_str(), &sym) == QV_OK);
    std::vector<float> weight;
    for (int r = 0; r < 5; ++r) weight.insert(weight.end(), {10.f * r, 10.f * r + 1});
    const int64_t shape[] = {5, 2};
    QvNDArrayHandle w = nullptr;
    REQUIRE(QvNDArrayCreate(shape, 2, QV_CPU, 0, QV_FLOAT32, &w) == QV_OK);
    REQUIRE(QvNDArraySyncCopyFromCPU(w, weight.data(), weight.size() * sizeof(float)) == QV_OK);
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : flags) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
    const char* names[] = {"emb_weight"};
    status = QvCreateCachedOpEx(sym, 1, names, &w, static_cast<int>(keys.size()), keys.data(), values.data(), &op, 1);
    QvNDArrayFree(w);
    QvSymbolFree(sym);
  }
  ~TokensOp() {
    if (op) QvFreeCachedOp(op);
  }
  int InputDType() const {
    int dtype = -1;
    REQUIRE(QvCachedOpGetInputDType(op, 0, &dtype) == QV_OK);
    return dtype;
  }
  // Runs on `ids` of element type T (dtype code `code`); QV_OK with both outputs, or the status.
  template <typename T>
  int Run(const std::vector<T>& ids, int code, std::vector<float>* embedded, std::vector<float>* halves) const {
    const int64_t shape[] = {static_cast<int64_t>(ids.size())};
    QvNDArrayHandle in = nullptr;
    REQUIRE(QvNDArrayCreate(shape, 1, QV_CPU, 0, code, &in) == QV_OK);
    REQUIRE(QvNDArraySyncCopyFromCPU(in, ids.data(), ids.size() * sizeof(T)) == QV_OK);
    uint32_t n = 0;
    QvNDArrayHandle* outs = nullptr;
    const int status = QvInvokeAsync(op, 1, &in, &n, &outs);
    QvNDArrayFree(in);
    if (status != QV_OK) return status;
    REQUIRE(n == 2);
    embedded->assign(ids.size() * 2, -1.f);
    halves->assign(ids.size(), -1.f);
    REQUIRE(QvNDArraySyncCopyToCPU(outs[0], embedded->data(), embedded->size() * sizeof(float)) == QV_OK);
    REQUIRE(QvNDArraySyncCopyToCPU(outs[1], halves->data(), halves->size() * sizeof(float)) == QV_OK);
    QvNDArrayFree(outs[0]);
    QvNDArrayFree(outs[1]);
    return QV_OK;
  }
};

// MXNet 1.9.1: Embedding clips ids into [0, 4]; an int tensor divided by 2 truncates towards zero.
const std::vector<float> kEmbedded = {0, 1, 40, 41, 40, 41, 0, 1, 20, 21, 0, 1};
const std::vector<float> kHalves = {0, 2, 4, 0, 1, -3};

}  // namespace

TEST_CASE("an input the symbol declares int32 takes int32 ids, computes as MXNet does, and refuses float32",
          "[capi]") {
  const TokensOp t("4", {});
  REQUIRE(t.status == QV_OK);
  CHECK(t.InputDType() == QV_INT32);
  std::vector<float> embedded, halves;
  REQUIRE(t.Run<int32_t>({0, 4, 9, -1, 2, -7}, QV_INT32, &embedded, &halves) == QV_OK);
  CHECK(embedded == kEmbedded);
  CHECK(halves == kHalves);

  CHECK(t.Run<float>({0, 4, 9, -1, 2, -7}, QV_FLOAT32, &embedded, &halves) == QV_ERR_SHAPE);
  const std::string error = QvGetLastError();
  CHECK_THAT(error, Catch::Contains("input 'tokens' is float32") && Catch::Contains("int32") &&
                        Catch::Contains("symbol declares"));
  CHECK(t.Run<int64_t>({0}, QV_INT64, &embedded, &halves) == QV_ERR_SHAPE);
}

TEST_CASE("flag data_types sets an input's type over the symbol's and the default", "[capi]") {
  const TokensOp declared("4", {{"data_types", "tokens:int64"}});
  REQUIRE(declared.status == QV_OK);
  CHECK(declared.InputDType() == QV_INT64);
  std::vector<float> embedded, halves;
  REQUIRE(declared.Run<int64_t>({0, 4, 9, -1, 2, -7}, QV_INT64, &embedded, &halves) == QV_OK);
  CHECK(embedded == kEmbedded);
  CHECK(halves == kHalves);
  CHECK(declared.Run<int32_t>({0}, QV_INT32, &embedded, &halves) == QV_ERR_SHAPE);
  CHECK_THAT(std::string(QvGetLastError()), Catch::Contains("as flag 'data_types' says"));

  // Without either, float32 ids as MXNet users feed them, and a float32 tensor divides exactly.
  const TokensOp plain("", {});
  REQUIRE(plain.status == QV_OK);
  CHECK(plain.InputDType() == QV_FLOAT32);
  REQUIRE(plain.Run<float>({0, 4, 9, -1, 2, -7}, QV_FLOAT32, &embedded, &halves) == QV_OK);
  CHECK(embedded == kEmbedded);
  CHECK(halves == std::vector<float>{0, 2, 4.5f, -0.5f, 1, -3.5f});
  CHECK(plain.Run<int32_t>({0}, QV_INT32, &embedded, &halves) == QV_ERR_SHAPE);
  CHECK_THAT(std::string(QvGetLastError()), Catch::Contains("the default; flag 'data_types' sets another"));

  const TokensOp bytes("", {{"data_types", "tokens:uint8"}});
  REQUIRE(bytes.status == QV_OK);
  REQUIRE(bytes.Run<uint8_t>({0, 4, 255, 1, 2, 7}, QV_UINT8, &embedded, &halves) == QV_OK);
  CHECK(halves == std::vector<float>{0, 2, 127, 0, 1, 3});
}

TEST_CASE("bad data_types flags and declarations fail creation naming the problem", "[capi]") {
  const std::vector<std::tuple<std::string, std::map<std::string, std::string>, int, std::string>> cases = {
      {"", {{"data_types", "words:int32"}}, QV_ERR_NOT_FOUND, "'words', which is not a data input"},
      {"", {{"data_types", "tokens:int16"}}, QV_ERR_INVALID_ARGUMENT, "unknown dtype 'int16'"},
      {"", {{"data_types", "tokens"}}, QV_ERR_INVALID_ARGUMENT, "cannot parse 'tokens'"},
      {"", {{"data_types", "tokens:int32;tokens:int64"}}, QV_ERR_INVALID_ARGUMENT, "names 'tokens' twice"},
      {"", {{"data_types", "tokens:float16"}}, QV_ERR_UNSUPPORTED, "takes float16"},
      {"12", {}, QV_ERR_INVALID_ARGUMENT, "__dtype__ '12'"},
  };
  for (const auto& [declared, flags, status, message] : cases) {
    INFO(message);
    const TokensOp t(declared, flags);
    CHECK(t.status == status);
    CHECK_THAT(std::string(QvGetLastError()), Catch::Contains(message));
  }
  const TokensOp t("", {});
  int dtype = -1;
  CHECK(QvCachedOpGetInputDType(t.op, 1, &dtype) == QV_ERR_INVALID_ARGUMENT);
  CHECK(QvCachedOpGetInputDType(t.op, 0, nullptr) == QV_ERR_INVALID_ARGUMENT);
}
