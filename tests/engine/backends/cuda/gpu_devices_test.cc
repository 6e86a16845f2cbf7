// Device errors of GPU cached ops: a device that does not exist, and device memory running out in the
// middle of an invocation. Each must fail with its own status and a message naming the device, and
// leave the op usable.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/single_op.h"

namespace {

using qv_test::GraphBuilder;

// out = a + b with a (n, 1) and b (1, n): an n x n output from inputs of n values each.
std::string OuterSumJson() {
  GraphBuilder g;
  g.Output(g.Op("broadcast_add", "sum", {}, {g.Variable("a"), g.Variable("b")}));
  return g.ToJson();
}

TEST_CASE("A cached op on a GPU that does not exist fails at creation with QV_ERR_DEVICE naming it", "[gpu]") {
  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromJSON(OuterSumJson().c_str(), &sym) == QV_OK);
  const char* keys[] = {"device"};
  const char* values[] = {"gpu(4096)"};
  QvCachedOpHandle op = nullptr;
  CHECK(QvCreateCachedOpEx(sym, 0, nullptr, nullptr, 1, keys, values, &op, 1) == QV_ERR_DEVICE);
  CHECK_THAT(QvGetLastError(), Catch::Contains("gpu(4096)"));
  CHECK(op == nullptr);
  QvSymbolFree(sym);
}

TEST_CASE("Device memory running out in an invocation fails with QV_ERR_OUT_OF_MEMORY and the op stays usable", "[gpu]") {
  const qv_test::CompiledGraph small(OuterSumJson(), {}, {{"device", "gpu(0)"}});
  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromJSON(OuterSumJson().c_str(), &sym) == QV_OK);
  const char* keys[] = {"device"};
  const char* values[] = {"gpu(0)"};
  QvCachedOpHandle op = nullptr;
  REQUIRE(QvCreateCachedOpEx(sym, 0, nullptr, nullptr, 1, keys, values, &op, 1) == QV_OK);

  // 2^19 x 2^19 floats is 1 TiB: more than any GPU this project runs on.
  const int64_t n = int64_t{1} << 19;
  std::mt19937 rng(5);
  const qv_test::Array a = qv_test::Array::FromTensor(qv_test::Random({n, 1}, &rng), QV_GPU);
  const qv_test::Array b = qv_test::Array::FromTensor(qv_test::Random({1, n}, &rng), QV_GPU);
  QvNDArrayHandle inputs[2] = {a.get(), b.get()};
  uint32_t num_outputs = 0;
  QvNDArrayHandle* outputs = nullptr;
  int status = QvInvokeAsync(op, 2, inputs, &num_outputs, &outputs);
  if (status == QV_OK) {  // the failure may also be reported through the output
    REQUIRE(num_outputs == 1);
    status = QvNDArrayWaitToRead(outputs[0]);
    QvNDArrayFree(outputs[0]);
  }
  CHECK(status == QV_ERR_OUT_OF_MEMORY);
  CHECK_THAT(QvGetLastError(), Catch::Contains("gpu(0)"));

  // The same op, and a second op on the same device, still run.
  const qv_ref::Tensor x = qv_test::Random({64, 1}, &rng), y = qv_test::Random({1, 64}, &rng);
  const qv_test::CompiledGraph cpu(OuterSumJson(), {});
  const std::vector<qv_ref::Tensor> want = cpu.Run({x, y});
  const qv_test::Array xa = qv_test::Array::FromTensor(x, QV_GPU), ya = qv_test::Array::FromTensor(y, QV_GPU);
  QvNDArrayHandle small_inputs[2] = {xa.get(), ya.get()};
  REQUIRE(QvInvokeAsync(op, 2, small_inputs, &num_outputs, &outputs) == QV_OK);
  const qv_test::Array out(outputs[0]);
  CHECK(qv_test::Compare(out.ToTensor(), want[0]).ok());
  CHECK(qv_test::Compare(small.Run({x, y}, QV_GPU)[0], want[0]).ok());
  QvFreeCachedOp(op);
  QvSymbolFree(sym);
}

}  // namespace
