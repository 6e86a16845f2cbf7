// QvCalibrator*: calibrating the tiny model for int8 through the C API, the written files loading back
// at precision int8, and refusals that name the problem. Calibration against MXNet's own is checked in
// tests/int8/test_calibrate_mxnet.py.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/failure_checks.h"
#include "support/tiny_model.h"

using namespace quiver_test;

namespace {

QvCalibratorHandle CreateTinyCalibrator(TinyParams& params, const Flags& flags = {}) {
  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromJSON(TinyModelJson().c_str(), &sym) == QV_OK);
  std::vector<const char*> keys, vals;
  for (const auto& [k, v] : flags) {
    keys.push_back(k.c_str());
    vals.push_back(v.c_str());
  }
  QvCalibratorHandle c = nullptr;
  const int status = QvCalibratorCreate(sym, params.size(), params.names(), params.arrays(),
                                        static_cast<int>(keys.size()), keys.data(), vals.data(), &c);
  QvSymbolFree(sym);
  INFO(QvGetLastError());
  REQUIRE(status == QV_OK);
  return c;
}

std::string TempPrefix(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("quiver_calibrator_test_") + name)).string();
}

struct CalibRange {
  double min, max;
};

// The tiny model calibrated in `mode` on three seeded batches: each calibrated node's range.
std::map<std::string, CalibRange> CalibrateTiny(const std::string& mode) {
  TinyParams params = MakeTinyParams();
  QvCalibratorHandle c = CreateTinyCalibrator(params, {{"calib_mode", mode}});
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    QvNDArrayHandle x = MakeRandomArray({2, kTinyInChannels, 9, 9}, seed);
    REQUIRE(QvCalibratorAddBatch(c, 1, &x) == QV_OK);
    QvNDArrayFree(x);
  }
  const std::string prefix = TempPrefix(mode.c_str());
  REQUIRE(QvCalibratorSave(c, (prefix + "-symbol.json").c_str(), (prefix + "-0000.params").c_str()) == QV_OK);
  REQUIRE(QvCalibratorFree(c) == QV_OK);
  std::stringstream text;
  text << std::ifstream(prefix + "-symbol.json").rdbuf();
  const nlohmann::json symbol = nlohmann::json::parse(text.str());
  std::map<std::string, CalibRange> ranges;
  for (const auto& node : symbol.at("nodes")) {
    if (!node.contains("attrs") || !node["attrs"].contains("min_calib_range")) continue;
    ranges[node["name"].get<std::string>()] = {std::stod(node["attrs"]["min_calib_range"].get<std::string>()),
                                               std::stod(node["attrs"]["max_calib_range"].get<std::string>())};
  }
  std::filesystem::remove(prefix + "-symbol.json");
  std::filesystem::remove(prefix + "-0000.params");
  return ranges;
}

}  // namespace

TEST_CASE("a calibrated tiny model loads back and runs at precision int8", "[capi][calibration]") {
  TinyParams params = MakeTinyParams();
  QvCalibratorHandle c = CreateTinyCalibrator(params, {{"calib_mode", "naive"}});
  uint32_t n = 0;
  const char** names = nullptr;
  REQUIRE(QvCalibratorListInputs(c, &n, &names) == QV_OK);
  REQUIRE(n == 1);
  CHECK(std::string(names[0]) == "data");
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    QvNDArrayHandle x = MakeRandomArray({2, kTinyInChannels, 9, 9}, seed);
    CHECK(QvCalibratorAddBatch(c, 1, &x) == QV_OK);
    QvNDArrayFree(x);
  }
  const std::string prefix = TempPrefix("ok");
  REQUIRE(QvCalibratorSave(c, (prefix + "-symbol.json").c_str(), (prefix + "-0000.params").c_str()) == QV_OK);
  REQUIRE(QvCalibratorFree(c) == QV_OK);

  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromFile((prefix + "-symbol.json").c_str(), &sym) == QV_OK);
  uint32_t count = 0, name_count = 0;
  QvNDArrayHandle* arrays = nullptr;
  const char** param_names = nullptr;
  REQUIRE(QvNDArrayLoad((prefix + "-0000.params").c_str(), &count, &arrays, &name_count, &param_names) == QV_OK);
  REQUIRE(count == name_count);
  std::vector<QvNDArrayHandle> loaded(arrays, arrays + count);
  const char* key = "precision";
  const char* value = "int8";
  QvCachedOpHandle op = nullptr;
  const int status = QvCreateCachedOpEx(sym, count, param_names, loaded.data(), 1, &key, &value, &op, 1);
  if (status == QV_ERR_UNSUPPORTED && ContainsNoCase(QvGetLastError(), "precision 'int8' needs AVX2")) {
    WARN("int8 part not run: " << QvGetLastError());  // a CPU without AVX2; any other refusal fails below
  } else {
    INFO(QvGetLastError());
    REQUIRE(status == QV_OK);
    const QvCachedOpHandle f32 = CreateTinyModel(1);
    QvNDArrayHandle x = MakeRandomArray({2, kTinyInChannels, 9, 9}, 2);
    const std::vector<float> q = RunSync(op, x), f = RunSync(f32, x);
    REQUIRE(q.size() == f.size());
    // int8, not float32, yet close to it: within a tenth of the logits' scale on a 3-layer model.
    float scale = 0, diff = 0;
    for (size_t i = 0; i < f.size(); ++i) {
      scale = std::max(scale, std::fabs(f[i]));
      diff = std::max(diff, std::fabs(q[i] - f[i]));
    }
    CHECK(diff > 0);
    CHECK(diff < 0.1f * scale);
    QvNDArrayFree(x);
    FreeTinyModel(f32);
    QvFreeCachedOp(op);
  }
  FreeArrays(loaded);
  QvSymbolFree(sym);
  std::filesystem::remove(prefix + "-symbol.json");
  std::filesystem::remove(prefix + "-0000.params");
}

TEST_CASE("entropy calibration picks ranges within the values' reach, symmetric or from zero", "[capi][calibration]") {
  const std::map<std::string, CalibRange> naive = CalibrateTiny("naive"), entropy = CalibrateTiny("entropy");
  REQUIRE(!naive.empty());
  REQUIRE(naive.size() == entropy.size());
  bool narrower = false;
  for (const auto& [name, n] : naive) {
    INFO(name << ": naive [" << n.min << ", " << n.max << "]");
    REQUIRE(entropy.count(name) == 1);
    const CalibRange e = entropy.at(name);
    INFO("entropy [" << e.min << ", " << e.max << "]");
    // [0, t] for a tensor never negative (MXNet's uint8), else [-t, t].
    if (n.min >= 0) {
      CHECK(e.min == 0);
    } else {
      CHECK(e.min == -e.max);
    }
    // t is a bin edge of a histogram over [-max|x|, max|x|], widened by whole bins (2 max|x| / 8001
    // at most) when a later batch reaches further: never more than a bin beyond the values seen.
    CHECK(e.max > 0);
    CHECK(e.max <= std::max(-n.min, n.max) * (1 + 2.0 / 8001) + 1e-6);
    narrower = narrower || e.max < std::max(-n.min, n.max) * 0.999;
  }
  CHECK(narrower);  // on random data the KL threshold clips some tail somewhere
}

TEST_CASE("the calibrator refuses bad calls naming the problem", "[capi][calibration]") {
  TinyParams params = MakeTinyParams();
  EXPECT_QV_FAILURE(QvCalibratorAddBatch(nullptr, 0, nullptr), {QV_ERR_INVALID_ARGUMENT}, "calibrator");
  QvCalibratorHandle c = CreateTinyCalibrator(params);
  const std::string prefix = TempPrefix("bad");
  const std::string symbol = prefix + "-symbol.json", weights = prefix + "-0000.params";
  EXPECT_QV_FAILURE(QvCalibratorSave(c, symbol.c_str(), weights.c_str()), {QV_ERR_INVALID_ARGUMENT},
                    "no calibration batch");
  EXPECT_QV_FAILURE(QvCalibratorAddBatch(c, 0, nullptr), {QV_ERR_INVALID_ARGUMENT}, "0 inputs", "takes 1");
  QvNDArrayHandle wrong = MakeRandomArray({2, kTinyInChannels + 1, 9, 9}, 1);
  EXPECT_QV_FAILURE(QvCalibratorAddBatch(c, 1, &wrong), {QV_ERR_SHAPE}, "");
  QvNDArrayFree(wrong);
  EXPECT_QV_FAILURE(QvCalibratorSave(c, nullptr, weights.c_str()), {QV_ERR_INVALID_ARGUMENT}, "symbol_path");
  REQUIRE(QvCalibratorFree(c) == QV_OK);
  EXPECT_QV_FAILURE(QvCalibratorFree(c), {QV_ERR_INVALID_ARGUMENT}, "calibrator");

  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromJSON(TinyModelJson().c_str(), &sym) == QV_OK);
  const char* key = "calib_mode";
  const char* value = "kl";
  EXPECT_QV_FAILURE(QvCalibratorCreate(sym, params.size(), params.names(), params.arrays(), 1, &key, &value, &c),
                    {QV_ERR_INVALID_ARGUMENT}, "calib_mode 'kl'", "naive, entropy");
  EXPECT_QV_FAILURE(QvCalibratorCreate(sym, params.size(), params.names(), params.arrays(), 0, nullptr, nullptr,
                                       nullptr),
                    {QV_ERR_INVALID_ARGUMENT}, "out");
  params.Remove(TinyParamSpecs()[0].name);
  EXPECT_QV_FAILURE(QvCalibratorCreate(sym, params.size(), params.names(), params.arrays(), 0, nullptr, nullptr, &c),
                    {QV_ERR_NOT_FOUND}, "missing parameter");
  QvSymbolFree(sym);
}
