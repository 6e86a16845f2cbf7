// Real models exported by MXNet 1.9.1, run through the C API, compared with MXNet's own outputs.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/fixtures.h"

using quiver_test::FixturesDir;

namespace {

struct LoadedModel {
  QvCachedOpHandle op = nullptr;
  ~LoadedModel() {
    if (op) QvFreeCachedOp(op);
  }
};

void Load(const std::string& prefix, LoadedModel* model) {
  QvSymbolHandle sym = nullptr;
  const int loaded = QvSymbolCreateFromFile((prefix + "-symbol.json").c_str(), &sym);
  INFO(QvGetLastError());
  REQUIRE(loaded == QV_OK);
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle* arrays = nullptr;
  const char** names = nullptr;
  const int read = QvNDArrayLoad((prefix + "-0000.params").c_str(), &n, &arrays, &n_names, &names);
  INFO(QvGetLastError());
  REQUIRE(read == QV_OK);
  REQUIRE(n == n_names);
  std::vector<QvNDArrayHandle> params(arrays, arrays + n);
  const char* keys[] = {"static_shape"};
  const char* vals[] = {"false"};
  const int rc = QvCreateCachedOpEx(sym, n, names, params.data(), 1, keys, vals, &model->op, 1);
  INFO(QvGetLastError());
  REQUIRE(rc == QV_OK);
  for (auto p : params) QvNDArrayFree(p);
  QvSymbolFree(sym);
}

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
  return worst;
}

}  // namespace

TEST_CASE("exported MXNet models match MXNet's outputs", "[oracle]") {
  const auto manifest = quiver_test::LoadManifest();
  if (manifest.is_null()) {
    if (quiver_test::FixturesRequired()) FAIL("fixtures missing in " << FixturesDir() << ": run scripts/make_fixtures.sh");
    WARN("not run: no MXNet fixtures in " << FixturesDir() << " (run scripts/make_fixtures.sh)");
    return;
  }
  for (const auto& [name, model] : manifest["models"].items()) {
    const std::string prefix = FixturesDir() + "/" + model["prefix"].get<std::string>();
    LoadedModel loaded;
    Load(prefix, &loaded);
    for (const auto& c : model["cases"]) {
      SECTION(name + " " + c["name"].get<std::string>()) {
        const auto input = quiver_test::ReadF32(FixturesDir() + "/" + c["input_file"].get<std::string>());
        const auto expected = quiver_test::ReadF32(FixturesDir() + "/" + c["output_file"].get<std::string>());
        const auto shape = c["input_shape"].get<std::vector<int64_t>>();
        QvNDArrayHandle in = nullptr;
        REQUIRE(QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), QV_CPU, 0, QV_FLOAT32, &in) == QV_OK);
        REQUIRE(QvNDArraySyncCopyFromCPU(in, input.data(), input.size() * sizeof(float)) == QV_OK);
        uint32_t n_out = 0;
        QvNDArrayHandle* outs = nullptr;
        const int invoked = QvInvokeAsync(loaded.op, 1, &in, &n_out, &outs);
        INFO(QvGetLastError());
        REQUIRE(invoked == QV_OK);
        REQUIRE(n_out == 1);
        QvNDArrayHandle out = outs[0];
        std::vector<float> got(expected.size());
        REQUIRE(QvNDArraySyncCopyToCPU(out, got.data(), got.size() * sizeof(float)) == QV_OK);
        const double scale = c["output_scale"].get<double>();
        const double err = MaxAbsDiff(got, expected);
        INFO(name << " " << c["name"] << ": max abs error " << err << ", output scale " << scale);
        CHECK(err <= 1e-4 * scale);
        QvNDArrayFree(out);
        QvNDArrayFree(in);
      }
    }
  }
}
