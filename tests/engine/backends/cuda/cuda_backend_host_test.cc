// The CUDA backend as far as it can be checked without a GPU: which operators it claims, what it
// fuses, its layout, the refusals that happen before any device work (each naming the node and the
// problem), when a convolution keeps cuDNN's fused call, what cuDNN's errors say, and a cached op on
// gpu(0) failing cleanly on a machine with no usable GPU.
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/kernels/convolution_kernel.h"
#include "backends/cuda/runtime/cudnn_error.h"
#include "common/error.h"
#include "quiver/c_api.h"
#include "support/single_op.h"

using namespace qv;

namespace {

const Device kGpu0{DeviceType::kGpu, 0};

bool MachineHasGpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

// Builds one node's kernel on gpu(0); only for requests refused before any device work.
void BuildOnGpu(const std::string& op, const std::map<std::string, std::string>& attrs,
                const std::vector<TensorType>& inputs, const std::vector<TensorType>& outputs) {
  const Backend& backend = FindBackend(kGpu0);
  const auto store = backend.NewConstantStore();
  const Attrs a(attrs, op, "node0");
  std::vector<ValueInfo> infos;
  for (const TensorType& t : inputs) infos.push_back({t, backend.PlainLayout(t), nullptr});
  backend.BuildKernel({a, *store, infos, outputs, Precision::kFloat32, kGpu0});
}

TEST_CASE("The CUDA backend claims exactly the operators the CPU backend runs", "[cuda]") {
  const Backend& backend = FindBackend(kGpu0);
  const std::vector<std::string> cpu = FindBackend(Device{DeviceType::kCpu, 0}).SupportedOps();
  REQUIRE(!cpu.empty());
  CHECK(backend.SupportedOps() == cpu);
  for (const std::string& op : cpu) {
    INFO(op);
    CHECK(backend.Supports(op));
  }
}

TEST_CASE("The CUDA backend fuses a ReLU into FullyConnected and BatchNorm", "[cuda]") {
  const FusionRules& rules = FindBackend(kGpu0).fusions();
  Node fc, bn, pooling;
  fc.op = "FullyConnected";
  bn.op = "BatchNorm";
  pooling.op = "Pooling";
  const PostOp relu{PostOp::kRelu}, clip{PostOp::kClip, 0.f, 6.f};
  CHECK(rules.FusesPostOp(fc, relu));
  CHECK(rules.FusesPostOp(bn, relu));
  CHECK_FALSE(rules.FusesPostOp(fc, clip));
  CHECK_FALSE(rules.FusesPostOp(pooling, relu));
  fc.post_ops.push_back(relu);
  CHECK_FALSE(rules.FusesPostOp(fc, relu));
  CHECK_FALSE(rules.FusesSum(fc));
}

TEST_CASE("The CUDA backend's one layout is row-major: no conversions between its values", "[cuda]") {
  const Backend& backend = FindBackend(kGpu0);
  const LayoutPtr a = backend.PlainLayout({{2, 3, 4}, DType::kFloat32});
  const LayoutPtr b = backend.PlainLayout({{6, 4}, DType::kFloat32});
  CHECK(a->bytes() == 96);
  CHECK(a->SameAs(*b));
  CHECK_FALSE(a->SameAs(*backend.PlainLayout({{5}, DType::kFloat32})));
  CHECK(backend.StepParallelism(1e9, 1e6) == 1);
}

// What `build` throws: its status and message, or kOk when it throws nothing.
template <typename Build>
std::pair<Status, std::string> Refusal(Build build) {
  try {
    build();
  } catch (const Error& e) {
    return {e.status(), e.what()};
  }
  return {Status::kOk, ""};
}

TEST_CASE("CUDA kernels are refused before device work, naming the node and the problem", "[cuda]") {
  const TensorType x{{2, 8}, DType::kFloat32};

  // An operator no backend has (every real one may gain a CUDA kernel).
  auto [status, message] = Refusal([&] { BuildOnGpu("NoSuchOperator", {}, {x}, {x}); });
  CHECK(status == Status::kUnsupported);
  CHECK_THAT(message, Catch::Contains("node 'node0' (NoSuchOperator)") && Catch::Contains("has no kernel on gpu(0)"));

  const TensorType nine{{1, 1, 1, 1, 1, 1, 1, 1, 2}, DType::kFloat32};
  std::tie(status, message) = Refusal([&] { BuildOnGpu("broadcast_add", {}, {nine, nine}, {nine}); });
  CHECK(status == Status::kUnsupported);
  CHECK_THAT(message, Catch::Contains("9 dimensions") && Catch::Contains("at most 8"));

  const Backend& backend = FindBackend(kGpu0);
  std::tie(status, message) = Refusal([&] { backend.ResolvePrecision(Precision::kBFloat16, kGpu0); });
  CHECK(status == Status::kUnsupported);
  CHECK_THAT(message, Catch::Contains("bfloat16") && Catch::Contains("gpu(0)"));
}

TEST_CASE("The detection, AMP, where, L2Normalization and prelu kernels build without device work", "[cuda]") {
  const TensorType data{{2, 8, 3, 3}, DType::kFloat32}, slopes{{8}, DType::kFloat32}, rows{{2}, DType::kFloat32};
  CHECK_NOTHROW(BuildOnGpu("LeakyReLU", {{"act_type", "prelu"}}, {data, slopes}, {data}));
  CHECK_NOTHROW(BuildOnGpu("where", {}, {data, data, data}, {data}));
  CHECK_NOTHROW(BuildOnGpu("where", {}, {rows, data, data}, {data}));
  for (const char* mode : {"instance", "channel", "spatial"})
    CHECK_NOTHROW(BuildOnGpu("L2Normalization", {{"mode", mode}}, {data}, {data}));
  for (const char* dtype : {"float32", "float16", "bfloat16"})
    CHECK_NOTHROW(BuildOnGpu("amp_cast", {{"dtype", dtype}}, {data}, {data}));
  CHECK_NOTHROW(BuildOnGpu("amp_multicast", {{"num_outputs", "2"}}, {data, rows}, {data, rows}));
  const TensorType offsets{{2, 100, 4}, DType::kFloat32}, anchors{{1, 100, 4}, DType::kFloat32};
  CHECK_NOTHROW(BuildOnGpu("_contrib_box_decode", {{"format", "corner"}, {"clip", "4"}}, {offsets, anchors}, {offsets}));
  // box_nms reserves its scratch in the device's stream workspace, which needs no device until a run.
  const TensorType boxes{{2, 6132, 6}, DType::kFloat32};
  CHECK_NOTHROW(BuildOnGpu("_contrib_box_nms", {{"id_index", "0"}, {"topk", "400"}}, {boxes}, {boxes}));
  CHECK_NOTHROW(BuildOnGpu("_contrib_box_nms", {{"topk", "0"}}, {boxes}, {boxes}));
  const TensorType rois{{30, 5}, DType::kFloat32}, pooled{{30, 8, 2, 2}, DType::kFloat32};
  CHECK_NOTHROW(
      BuildOnGpu("ROIPooling", {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.0625"}}, {data, rois}, {pooled}));
}

TEST_CASE("A parameter no CUDA kernel uploaded stays on the host when repacked", "[cuda]") {
  const auto store = FindBackend(kGpu0).NewConstantStore();
  NDArrayPtr values = NDArray::Create({4}, DType::kFloat32);
  const auto param = std::make_shared<const Constant>(values);
  CHECK(store->Repack(param) == param);
}

TEST_CASE("Without a GPU, a cached op on gpu(0) fails with QV_ERR_DEVICE and says why", "[cuda][no_gpu]") {
  if (MachineHasGpu()) {
    WARN("not run: this machine has a GPU (the GPU suite covers it)");
    return;
  }
  // Every operator here has a CUDA kernel: the refusal is about the device, not the graph.
  qv_test::GraphBuilder g;
  const int data = g.Variable("data"), w = g.Variable("fc_weight"), b = g.Variable("fc_bias");
  const int fc = g.Op("FullyConnected", "fc", {{"num_hidden", "3"}}, {data, w, b});
  g.Output(g.Op("softmax", "prob", {}, {fc}));
  std::mt19937 rng(1);
  try {
    const std::map<std::string, qv_ref::Tensor> params = {{"fc_weight", qv_test::Random({3, 4}, &rng)},
                                                          {"fc_bias", qv_test::Random({3}, &rng)}};
    qv_test::CompiledGraph op(g.ToJson(), params, {{"device", "gpu(0)"}});
    FAIL("a cached op was created on gpu(0) without a GPU");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("status " + std::to_string(QV_ERR_DEVICE)) && Catch::Contains("gpu(0)") &&
                            Catch::Contains("no usable CUDA device"));
  }
}

TEST_CASE("The CUDA backend fuses into Convolution a residual sum, then a ReLU or a clip from 0", "[cuda]") {
  const FusionRules& rules = FindBackend(kGpu0).fusions();
  const PostOp relu{PostOp::kRelu}, relu6{PostOp::kClip, 0.f, 6.f}, sum{PostOp::kSum};
  Node conv;
  conv.op = "Convolution";
  CHECK(rules.FusesPostOp(conv, relu));
  CHECK(rules.FusesPostOp(conv, relu6));
  CHECK(rules.FusesSum(conv));
  // cuDNN's fused activations are ReLU and clipped ReLU (from 0), one of them, after the sum.
  CHECK_FALSE(rules.FusesPostOp(conv, PostOp{PostOp::kClip, -1.f, 1.f}));
  CHECK_FALSE(rules.FusesPostOp(conv, PostOp{PostOp::kLeakyRelu, 0.1f}));
  conv.post_ops = {sum};
  CHECK(rules.FusesPostOp(conv, relu));
  CHECK(rules.FusesPostOp(conv, relu6));
  CHECK_FALSE(rules.FusesSum(conv));
  conv.post_ops = {relu};
  CHECK_FALSE(rules.FusesPostOp(conv, relu6));
  CHECK_FALSE(rules.FusesSum(conv));
  conv.post_ops = {sum, relu};
  CHECK_FALSE(rules.FusesPostOp(conv, relu));
}

TEST_CASE("A CUDA convolution keeps cuDNN's fused call only if the call it made at build succeeded", "[cuda]") {
  using cuda::KeepsFusedCall;
  CHECK(KeepsFusedCall([] { return CUDNN_STATUS_SUCCESS; }));
  // Every refusal, not only NOT_SUPPORTED, leaves the kernel to the unfused sequence.
  for (cudnnStatus_t refusal : {CUDNN_STATUS_NOT_SUPPORTED, CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
                                CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                                CUDNN_STATUS_EXECUTION_FAILED, CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED}) {
    INFO("cudnnStatus_t " << refusal);
    CHECK_FALSE(KeepsFusedCall([=] { return refusal; }));
  }
  // No memory for the trial's data: the sequence too. A failing device is an error.
  CHECK_FALSE(KeepsFusedCall([]() -> cudnnStatus_t { throw Error(Status::kOutOfMemory, "no memory"); }));
  const auto [status, message] =
      Refusal([] { KeepsFusedCall([]() -> cudnnStatus_t { throw Error(Status::kDevice, "device lost"); }); });
  CHECK(status == Status::kDevice);
  CHECK(message == "device lost");
}

TEST_CASE("cuDNN errors carry cuDNN's own explanation, once", "[cuda]") {
  // Describing a tensor needs no GPU.
  cudnnTensorDescriptor_t desc = nullptr;
  REQUIRE(cudnnCreateTensorDescriptor(&desc) == CUDNN_STATUS_SUCCESS);
  const cudnnStatus_t negative = cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, -1, 2, 3, 4);
  cudnnDestroyTensorDescriptor(desc);
  REQUIRE(negative == CUDNN_STATUS_BAD_PARAM);
  auto [status, message] = Refusal([&] { cuda::CheckCudnn(negative, "describing (-1, 2, 3, 4)"); });
  CHECK(status == Status::kDevice);
  // cuDNN 9.13 explains "(n <= 0) || (c <= 0) || (h <= 0) || (w <= 0)".
  CHECK_THAT(message, Catch::StartsWith("describing (-1, 2, 3, 4) failed: cuDNN CUDNN_STATUS_BAD_PARAM: "));
  // The explanation went with that error: a later one cuDNN did not explain carries none.
  std::tie(status, message) = Refusal([] { cuda::CheckCudnn(CUDNN_STATUS_BAD_PARAM, "a call"); });
  CHECK(message == "a call failed: cuDNN CUDNN_STATUS_BAD_PARAM");
}

TEST_CASE("CUDA Convolution and FullyConnected take a weight and bias the graph computes", "[cuda]") {
  // BuildOnGpu's inputs are all runtime values. Without a GPU the build goes as far as the device, which
  // fails it; with one it succeeds (the GPU suite compares such kernels' results with the CPU's).
  const Status expected = MachineHasGpu() ? Status::kOk : Status::kDevice;
  const TensorType x{{1, 4, 8, 8}, DType::kFloat32}, w{{6, 4, 3, 3}, DType::kFloat32}, y{{1, 6, 6, 6}, DType::kFloat32};
  const TensorType bias{{6}, DType::kFloat32};
  auto [status, message] = Refusal([&] {
    BuildOnGpu("Convolution", {{"kernel", "(3, 3)"}, {"num_filter", "6"}}, {x, w, bias}, {y});
  });
  CHECK(status == expected);
  CHECK_THAT(message, !Catch::Contains("must be a parameter"));

  const TensorType rows{{2, 8}, DType::kFloat32}, weight{{6, 8}, DType::kFloat32}, fc_out{{2, 6}, DType::kFloat32};
  std::tie(status, message) = Refusal([&] { BuildOnGpu("FullyConnected", {{"num_hidden", "6"}}, {rows, weight, bias}, {fc_out}); });
  CHECK(status == expected);
  CHECK_THAT(message, !Catch::Contains("must be a parameter"));
}

TEST_CASE("A CUDA convolution is refused before device work when cuDNN could not run it", "[cuda]") {
  const TensorType y{{1, 6, 6, 6}, DType::kFloat32};
  auto [status, message] = Refusal([&] {
    BuildOnGpu("Convolution", {{"kernel", "(3,)"}, {"num_filter", "6"}}, {{{1, 4, 8}, DType::kFloat32}}, {y});
  });
  CHECK(status == Status::kUnsupported);
  CHECK_THAT(message, Catch::Contains("node 'node0' (Convolution)") && Catch::Contains("only 2-D and 3-D convolution"));
}

TEST_CASE("Without a GPU, a convolutional model on gpu(0) fails with QV_ERR_DEVICE", "[cuda][no_gpu]") {
  if (MachineHasGpu()) {
    WARN("not run: this machine has a GPU (the GPU suite covers it)");
    return;
  }
  qv_test::GraphBuilder g;
  const int conv = g.Op("Convolution", "conv", {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}},
                        {g.Variable("data"), g.Variable("conv_weight"), g.Variable("conv_bias")});
  g.Output(g.Op("relu", "relu", {}, {conv}));
  std::mt19937 rng(2);
  try {
    const std::map<std::string, qv_ref::Tensor> params = {{"conv_weight", qv_test::Random({4, 3, 3, 3}, &rng)},
                                                          {"conv_bias", qv_test::Random({4}, &rng)}};
    qv_test::CompiledGraph op(g.ToJson(), params, {{"device", "gpu(0)"}});
    FAIL("a cached op was created on gpu(0) without a GPU");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("status " + std::to_string(QV_ERR_DEVICE)) && Catch::Contains("gpu(0)") &&
                            Catch::Contains("no usable CUDA device"));
  }
}

}  // namespace
