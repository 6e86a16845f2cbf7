#include "engine/backends/backend_conformance.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <random>

#include "ops/op.h"

using namespace qv;

namespace quiver_test {
namespace {

std::vector<float> RandomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Device memory holding `layout`'s bytes.
struct Buffer {
  std::shared_ptr<Storage> storage;
  void* data() const { return storage->data(); }
};

class Harness {
 public:
  Harness(const Backend& backend, const Device& device) : backend_(backend), device_(device) {}

  Buffer Upload(const std::vector<float>& host) const {
    Buffer b{backend_.memory().Allocate(device_, host.size() * sizeof(float))};
    backend_.memory().CopyFromHost(device_, b.data(), host.data(), host.size() * sizeof(float));
    return b;
  }
  std::vector<float> Download(const Buffer& b, size_t n) const {
    std::vector<float> host(n);
    backend_.memory().CopyToHost(device_, host.data(), b.data(), n * sizeof(float));
    return host;
  }
  Buffer Allocate(const LayoutPtr& layout) const { return {backend_.memory().Allocate(device_, layout->bytes())}; }

  // Runs one kernel to completion: `Finish` must leave its outputs readable.
  void Run(const Kernel& kernel, std::vector<void*> inputs, std::vector<void*> outputs) const {
    const auto execution = backend_.StartExecution(device_);
    ExecArgs args;
    args.inputs = std::move(inputs);
    args.outputs = std::move(outputs);
    execution->Run(kernel, args, 1, "conformance");
    execution->Finish();
  }

  Buffer Convert(const Buffer& in, const LayoutPtr& from, const LayoutPtr& to) const {
    if (from->SameAs(*to)) return in;
    Buffer out = Allocate(to);
    Run(*backend_.MakeConversion(from, to), {in.data()}, {out.data()});
    return out;
  }

 private:
  const Backend& backend_;
  const Device device_;
};

// conv: data (2, 16, 5, 5), weight (8, 16, 3, 3), pad 1, no bias.
const std::map<std::string, std::string> kConvAttrs = {
    {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "8"}, {"no_bias", "True"}};
const TensorType kData{{2, 16, 5, 5}, DType::kFloat32};
const TensorType kWeight{{8, 16, 3, 3}, DType::kFloat32};
const TensorType kOut{{2, 8, 5, 5}, DType::kFloat32};

KernelBuild BuildConv(const Backend& backend, ConstantStore& store, const ConstantPtr& weight) {
  const Attrs attrs(kConvAttrs, "Convolution", "conformance_conv");
  const LayoutPtr weight_layout = weight->is_packed() ? weight->layout() : backend.PlainLayout(kWeight);
  const std::vector<ValueInfo> inputs = {{kData, backend.PlainLayout(kData), nullptr},
                                         {kWeight, weight_layout, weight}};
  const std::vector<TensorType> outputs = {kOut};
  return backend.BuildKernel({attrs, store, inputs, outputs, Precision::kFloat32});
}

// Runs a convolution kernel on plain data; returns its plain output.
std::vector<float> RunConv(const Backend& backend, const Harness& h, const KernelBuild& build,
                           const std::vector<float>& data) {
  REQUIRE(build.runtime_inputs == std::vector<int>{0});
  const Buffer in = h.Convert(h.Upload(data), backend.PlainLayout(kData), build.input_layouts[0]);
  const Buffer out = h.Allocate(build.output_layouts[0]);
  h.Run(*build.kernel, {in.data()}, {out.data()});
  const LayoutPtr plain = backend.PlainLayout(kOut);
  return h.Download(h.Convert(out, build.output_layouts[0], plain), static_cast<size_t>(ElementCount(kOut.shape)));
}

}  // namespace

void CheckBackendConformance(const Backend& backend, const Device& device) {
  const Harness h(backend, device);

  SECTION("its device is accepted and a device that does not exist is refused") {
    REQUIRE(backend.device_type() == device.type);
    REQUIRE_NOTHROW(backend.RequireDevice(device));
    try {
      backend.RequireDevice(Device{device.type, 999});
      FAIL("device 999 was accepted");
    } catch (const Error& e) {
      REQUIRE(e.status() == Status::kDevice);
      REQUIRE(std::string(e.what()).find(Device{device.type, 999}.ToString()) != std::string::npos);
    }
  }

  SECTION("it claims only registered operators, by their canonical names") {
    REQUIRE_FALSE(backend.SupportedOps().empty());
    for (const std::string& op : backend.SupportedOps()) {
      INFO(op);
      REQUIRE(backend.Supports(op));
      REQUIRE(FindOp(op) != nullptr);
      REQUIRE(CanonicalOpName(op) == op);
    }
    REQUIRE_FALSE(backend.Supports("_contrib_DeformablePSROIPooling"));
  }

  SECTION("plain data survives a round trip through a kernel's layouts") {
    const auto store = backend.NewConstantStore();
    const auto weight = std::make_shared<const Constant>(NDArray::Create(kWeight.shape, DType::kFloat32));
    const KernelBuild build = BuildConv(backend, *store, weight);
    REQUIRE(build.input_layouts.size() == 1);
    REQUIRE(build.output_layouts.size() == 1);
    REQUIRE(build.input_layouts[0]->bytes() >= ElementCount(kData.shape) * sizeof(float));
    const std::vector<float> data = RandomFloats(static_cast<size_t>(ElementCount(kData.shape)), 1);
    const LayoutPtr plain = backend.PlainLayout(kData);
    REQUIRE(plain->SameAs(*backend.PlainLayout(kData)));
    REQUIRE(plain->bytes() == data.size() * sizeof(float));
    const Buffer there = h.Convert(h.Upload(data), plain, build.input_layouts[0]);
    const std::vector<float> back = h.Download(h.Convert(there, build.input_layouts[0], plain), data.size());
    REQUIRE(std::memcmp(back.data(), data.data(), data.size() * sizeof(float)) == 0);
  }

  SECTION("a packed constant is typed as packed and computes what the plain one did") {
    NDArrayPtr values = NDArray::Create(kWeight.shape, DType::kFloat32);
    const std::vector<float> w = RandomFloats(static_cast<size_t>(ElementCount(kWeight.shape)), 2);
    values->CopyFromHost(w.data(), w.size() * sizeof(float));
    const auto plain_weight = std::make_shared<const Constant>(values);
    const auto store = backend.NewConstantStore();
    const std::vector<float> data = RandomFloats(static_cast<size_t>(ElementCount(kData.shape)), 3);

    const std::vector<float> expected = RunConv(backend, h, BuildConv(backend, *store, plain_weight), data);
    const ConstantPtr kept = store->Repack(plain_weight);
    REQUIRE(kept->type().shape == kWeight.shape);
    if (kept != plain_weight) {
      REQUIRE(kept->is_packed());
      REQUIRE_THROWS_AS(kept->plain(), Error);
      REQUIRE(store->Repack(kept) == kept);  // packed once
    }
    // A plan compiled later sees the kept constant and must compute the same.
    REQUIRE(RunConv(backend, h, BuildConv(backend, *store, kept), data) == expected);
  }
}

}  // namespace quiver_test
