#include "engine/backends/backend_conformance.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <random>

#include "graph/bound_graph.h"
#include "graph/symbol_json.h"
#include "ops/op.h"
#include "plan/plan.h"

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

KernelBuild BuildConv(const Backend& backend, const Device& device, ConstantStore& store, const ConstantPtr& weight) {
  const Attrs attrs(kConvAttrs, "Convolution", "conformance_conv");
  const LayoutPtr weight_layout = weight->is_packed() ? weight->layout() : backend.PlainLayout(kWeight);
  const std::vector<ValueInfo> inputs = {{kData, backend.PlainLayout(kData), nullptr},
                                         {kWeight, weight_layout, weight}};
  const std::vector<TensorType> outputs = {kOut};
  return backend.BuildKernel({attrs, store, inputs, outputs, Precision::kFloat32, device});
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

// The convolution above as a model whose weight is a parameter.
BoundGraph ConvModel(const std::vector<float>& weight) {
  const Graph graph = ParseSymbolJson(R"json({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "null", "name": "w", "inputs": []},
      {"op": "Convolution", "name": "conv", "inputs": [[0, 0, 0], [1, 0, 0]],
       "attrs": {"kernel": "(3, 3)", "pad": "(1, 1)", "num_filter": "8", "no_bias": "True"}}
    ],
    "arg_nodes": [0, 1],
    "heads": [[2, 0, 0]]
  })json");
  NDArrayPtr w = NDArray::Create(kWeight.shape, DType::kFloat32);
  w->CopyFromHost(weight.data(), weight.size() * sizeof(float));
  return BindParameters(graph, {{"w", w}});
}

// Runs `plan` on these bindings and waits for its completion; rethrows its failure.
void RunAndWait(const Plan& plan, const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs) {
  std::promise<std::exception_ptr> finished;
  plan.RunAsync(inputs, outputs, nullptr, [&finished](std::exception_ptr failure) { finished.set_value(failure); });
  std::future<std::exception_ptr> result = finished.get_future();
  REQUIRE(result.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  if (const std::exception_ptr failure = result.get()) std::rethrow_exception(failure);
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
    const KernelBuild build = BuildConv(backend, device, *store, weight);
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

    const std::vector<float> expected = RunConv(backend, h, BuildConv(backend, device, *store, plain_weight), data);
    const ConstantPtr kept = store->Repack(plain_weight);
    REQUIRE(kept->type().shape == kWeight.shape);
    if (kept != plain_weight) {
      REQUIRE(kept->is_packed());
      REQUIRE_THROWS_AS(kept->plain(), Error);
      REQUIRE(store->Repack(kept) == kept);  // packed once
    }
    // A plan compiled later sees the kept constant and must compute the same.
    REQUIRE(RunConv(backend, h, BuildConv(backend, device, *store, kept), data) == expected);
  }

  SECTION("gather and scatter move pieces in order, host ones included, and zero the padding") {
    const auto execution = backend.StartExecution(device);
    const std::vector<float> a = RandomFloats(6, 4), b = RandomFloats(10, 5), c = RandomFloats(4, 6);
    const Buffer a_there = h.Upload(a), c_there = h.Upload(c);
    const bool host_differs = device.type != DeviceType::kCpu;
    const Buffer merged{backend.memory().Allocate(device, 24 * sizeof(float))};
    backend.memory().CopyFromHost(device, merged.data(), RandomFloats(24, 7).data(), 24 * sizeof(float));
    execution->Gather(merged.data(), 24 * sizeof(float),
                      {{a_there.data(), a.size() * sizeof(float), false},
                       {b.data(), b.size() * sizeof(float), host_differs},
                       {c_there.data(), c.size() * sizeof(float), false}});
    const Buffer first = h.Upload(std::vector<float>(8, -1)), second = h.Upload(std::vector<float>(12, -1));
    execution->Scatter(merged.data(), {{first.data(), 8 * sizeof(float)}, {second.data(), 12 * sizeof(float)}});
    execution->Finish();
    std::vector<float> expected = a;
    expected.insert(expected.end(), b.begin(), b.end());
    expected.insert(expected.end(), c.begin(), c.end());
    expected.resize(24, 0.f);
    REQUIRE(h.Download(merged, 24) == expected);
    REQUIRE(h.Download(first, 8) == std::vector<float>(expected.begin(), expected.begin() + 8));
    REQUIRE(h.Download(second, 12) == std::vector<float>(expected.begin() + 8, expected.begin() + 20));
  }

  SECTION("a batch's requests get, bit for bit, what each gets alone in the same plan") {
    const BoundGraph model = ConvModel(RandomFloats(static_cast<size_t>(ElementCount(kWeight.shape)), 8));
    ConstantMap constants;
    for (const auto& [id, array] : model.constants) constants[id] = std::make_shared<const Constant>(array);
    const auto store = backend.NewConstantStore();
    // Four rows: requests of 1, 2 and 1 rows, the second from host memory where the device is not the host.
    const TensorType batch{{4, 16, 5, 5}, DType::kFloat32};
    const std::unique_ptr<Plan> plan =
        Plan::Compile(model, constants, {batch}, backend, device, Precision::kFloat32, *store);
    const size_t row_in = static_cast<size_t>(ElementCount(kData.shape)) / 2;
    const size_t row_out = static_cast<size_t>(ElementCount(kOut.shape)) / 2;
    const std::vector<int> rows = {1, 2, 1};
    std::vector<std::vector<float>> host_inputs;
    std::vector<Buffer> inputs, outputs;
    for (size_t r = 0; r < rows.size(); ++r) {
      host_inputs.push_back(RandomFloats(row_in * rows[r], 20 + static_cast<unsigned>(r)));
      inputs.push_back(h.Upload(host_inputs.back()));
      outputs.push_back(h.Upload(std::vector<float>(row_out * rows[r], -1)));
    }
    const auto input_piece = [&](size_t r) -> InputPiece {
      const size_t bytes = host_inputs[r].size() * sizeof(float);
      if (r == 1 && device.type != DeviceType::kCpu) return {host_inputs[r].data(), bytes, true};
      return {inputs[r].data(), bytes, false};
    };
    InputBinding together_in;
    OutputBinding together_out;
    for (size_t r = 0; r < rows.size(); ++r) {
      together_in.push_back(input_piece(r));
      together_out.push_back({outputs[r].data(), row_out * rows[r] * sizeof(float)});
    }
    RunAndWait(*plan, {together_in}, {together_out});
    for (size_t r = 0; r < rows.size(); ++r) {
      INFO("request " << r);
      const Buffer alone = h.Upload(std::vector<float>(row_out * rows[r], -2));
      RunAndWait(*plan, {{input_piece(r)}}, {{{alone.data(), row_out * rows[r] * sizeof(float)}}});
      const std::vector<float> batched = h.Download(outputs[r], row_out * rows[r]);
      const std::vector<float> single = h.Download(alone, row_out * rows[r]);
      REQUIRE(std::memcmp(batched.data(), single.data(), single.size() * sizeof(float)) == 0);
    }
  }
}

}  // namespace quiver_test
