// Asynchrony of GPU cached ops through the C API: an invocation returns while its kernels run, CanRead
// never blocks, OnReady runs on a runtime thread (never a CUDA callback), many threads share one op,
// freeing the op and inputs with work in flight is safe, CUDA graphs change no bit of the results,
// CPU inputs give what GPU inputs give, the scheduling flags (batching, deadlines, cancel) work on
// a GPU op, and the profiler times every step on the device. Models are chains of FullyConnected + ReLU, and a small ResNet (convolutions with
// BatchNorm folded in, residual sums, ReLU): every operator in them has a CUDA kernel.
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "conv_graphs.h"
#include "quiver/c_api.h"
#include "support/single_op.h"

namespace {

using qv_ref::Tensor;
using qv_test::Array;
using qv_test::GraphBuilder;
using Clock = std::chrono::steady_clock;

struct Model {
  std::string json;
  qv_test::Params params;
};

// `layers` FullyConnected(width) + ReLU, then a softmax: data (N, width) -> (N, width).
Model MakeChain(int layers, int64_t width, uint32_t seed = 5) {
  std::mt19937 rng(seed);
  GraphBuilder g;
  Model chain;
  int x = g.Variable("data");
  const float scale = 1.0f / static_cast<float>(width);
  for (int l = 0; l < layers; ++l) {
    const std::string name = "fc" + std::to_string(l);
    x = g.Op("FullyConnected", name, {{"num_hidden", std::to_string(width)}},
             {x, g.Variable(name + "_weight"), g.Variable(name + "_bias")});
    x = g.Op("Activation", "relu" + std::to_string(l), {{"act_type", "relu"}}, {x});
    chain.params[name + "_weight"] = qv_test::Random({width, width}, &rng, -scale, 2 * scale);
    chain.params[name + "_bias"] = qv_test::Random({width}, &rng, -0.1f, 0.1f);
  }
  g.Output(g.Op("softmax", "prob", {}, {x}));
  chain.json = g.ToJson();
  return chain;
}

// A small ResNet: a stem (3x3 convolution, BatchNorm, ReLU), an identity block and a projection block:
// data (N, 8, H, W) -> (N, 32, H / 2, W / 2).
Model MakeResidualNet(uint32_t seed = 9) {
  std::mt19937 rng(seed);
  GraphBuilder g;
  Model net;
  int x = qv_test::AddConv(g, net.params, rng, "stem", g.Variable("data"), 8,
                           {16, 3, 3, {{"pad", "(1, 1)"}, {"no_bias", "True"}}});
  x = g.Op("relu", "stem_relu", {}, {qv_test::AddBatchNorm(g, net.params, rng, "stem_bn", x, 16)});
  x = qv_test::AddResidualBlock(g, net.params, rng, "block1", x, 16, 16, false);
  g.Output(qv_test::AddResidualBlock(g, net.params, rng, "block2", x, 16, 32, true));
  net.json = g.ToJson();
  return net;
}

// A cached op over a model, with its flags and thread_safe as given; freed on destruction unless
// released first.
class Op {
 public:
  Op(const Model& model, const std::map<std::string, std::string>& flags, int thread_safe = 1) {
    qv_test::Check(QvSymbolCreateFromJSON(model.json.c_str(), &sym_), "QvSymbolCreateFromJSON");
    qv_test::Check(qv_test::CreateCachedOp(sym_, model.params, flags, thread_safe, &op_), "QvCreateCachedOpEx");
  }
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
  ~Op() {
    Release();
    QvSymbolFree(sym_);
  }
  QvCachedOpHandle get() const { return op_; }
  void Release() {
    if (op_ != nullptr) QvFreeCachedOp(op_);
    op_ = nullptr;
  }

  // Starts one invocation and returns its single output (owned by the caller). Throws instead of
  // using Catch's assertions, which are not thread-safe: the tests' threads call it.
  Array Start(QvNDArrayHandle input, const QvInvokeOptions* options = nullptr) const {
    uint32_t n = 0;
    QvNDArrayHandle* outs = nullptr;
    qv_test::Check(QvInvokeAsyncEx(op_, 1, &input, &n, &outs, options), "QvInvokeAsyncEx");
    if (n != 1) throw std::runtime_error("expected 1 output, got " + std::to_string(n));
    return Array(outs[0]);
  }
  Tensor Run(const Tensor& input, int device_type = QV_GPU) const {
    const Array in = Array::FromTensor(input, device_type);
    return Start(in.get()).ToTensor();
  }

 private:
  QvSymbolHandle sym_ = nullptr;
  QvCachedOpHandle op_ = nullptr;
};

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape == b.shape && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

const std::map<std::string, std::string> kGpu = {{"device", "gpu(0)"}};

TEST_CASE("GPU InvokeAsync returns before the kernels end, and CanRead never blocks", "[gpu]") {
  // 32 layers of a 2048 x 2048 product over 1024 rows: about 275 GFLOP per invocation.
  const Model chain = MakeChain(32, 2048);
  const Op op(chain, kGpu);
  std::mt19937 rng(1);
  const Array in = Array::FromTensor(qv_test::Random({1024, 2048}, &rng), QV_GPU);
  op.Start(in.get()).ToTensor();  // compiles the plan and warms up
  int pending_after_return = 0;
  std::vector<double> can_read_us;
  for (int attempt = 0; attempt < 20; ++attempt) {
    const Array out = op.Start(in.get());
    int ready = -1;
    const auto t0 = Clock::now();
    REQUIRE(QvNDArrayCanRead(out.get(), &ready) == QV_OK);
    can_read_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (ready == 0) ++pending_after_return;
    REQUIRE(QvNDArrayWaitToRead(out.get()) == QV_OK);
    REQUIRE(QvNDArrayCanRead(out.get(), &ready) == QV_OK);
    CHECK(ready == 1);
  }
  CHECK(pending_after_return > 0);
  std::sort(can_read_us.begin(), can_read_us.end());
  INFO("CanRead took " << can_read_us.front() << " to " << can_read_us.back() << " us");
  CHECK(can_read_us[can_read_us.size() / 2] < 1000.0);
  CHECK(can_read_us.back() < 5000.0);
}

struct ReadyLog {
  std::atomic<int> calls{0};
  std::atomic<int> status{-1};
  std::thread::id thread;
  cudaError_t cuda_in_callback = cudaErrorUnknown;
};

void OnReadyLogged(QvNDArrayHandle, int status, void* user) {
  auto* log = static_cast<ReadyLog*>(user);
  log->thread = std::this_thread::get_id();
  // A CUDA host callback (cudaLaunchHostFunc) may call no CUDA function: this one may.
  log->cuda_in_callback = cudaFree(nullptr);
  log->status = status;
  log->calls.fetch_add(1);
}

TEST_CASE("GPU OnReady runs exactly once, on a runtime thread that may call CUDA", "[gpu]") {
  const Model chain = MakeChain(32, 2048);
  const Op op(chain, kGpu);
  std::mt19937 rng(2);
  const Array in = Array::FromTensor(qv_test::Random({1024, 2048}, &rng), QV_GPU);
  op.Start(in.get()).ToTensor();
  int fired_elsewhere = 0;
  for (int attempt = 0; attempt < 10 && fired_elsewhere < 3; ++attempt) {
    ReadyLog log;
    const Array out = op.Start(in.get());
    REQUIRE(QvNDArrayOnReady(out.get(), OnReadyLogged, &log) == QV_OK);
    REQUIRE(QvNDArrayWaitToRead(out.get()) == QV_OK);
    REQUIRE(QvWaitAll() == QV_OK);  // the callback has run once WaitAll returns
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(log.calls.load() == 1);
    CHECK(log.status.load() == QV_OK);
    CHECK(log.cuda_in_callback == cudaSuccess);
    if (log.thread != std::this_thread::get_id()) ++fired_elsewhere;  // else it was ready already
  }
  CHECK(fired_elsewhere > 0);
}

TEST_CASE("GPU: 8 threads x 200 invocations of one thread-safe op match sequential runs bit for bit", "[gpu]") {
  const Model chain = MakeChain(4, 256);
  const Op op(chain, kGpu);
  std::mt19937 rng(3);
  std::vector<Tensor> inputs, want;
  for (int k = 0; k < 8; ++k) inputs.push_back(qv_test::Random({8, 256}, &rng));
  for (const Tensor& t : inputs) want.push_back(op.Run(t));
  std::vector<Array> gpu_inputs;
  for (const Tensor& t : inputs) gpu_inputs.push_back(Array::FromTensor(t, QV_GPU));
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const size_t k = static_cast<size_t>(t + i) % inputs.size();
        try {
          if (!SameBits(op.Start(gpu_inputs[k].get()).ToTensor(), want[k])) mismatches.fetch_add(1);
        } catch (const std::exception&) {
          failures.fetch_add(1);  // QV_ERR_BUSY past max_inflight would land here: the default is 64
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  CHECK(mismatches.load() == 0);
}

TEST_CASE("GPU: freeing the op and its inputs with invocations in flight is safe", "[gpu]") {
  // About 275 GFLOP an invocation: 16 of them keep even the fastest GPU busy for tens of milliseconds
  // after the last one was pushed, so the op is freed with work in flight.
  const Model chain = MakeChain(32, 2048);
  std::mt19937 rng(4);
  const Tensor x = qv_test::Random({1024, 2048}, &rng);
  Tensor want;
  {
    const Op reference(chain, kGpu);
    want = reference.Run(x);
  }
  std::vector<Array> outputs;
  int in_flight = 0;
  {
    Op op(chain, kGpu);
    for (int i = 0; i < 16; ++i) {
      Array in = Array::FromTensor(x, i % 2 == 0 ? QV_GPU : QV_CPU);
      outputs.push_back(op.Start(in.get()));
    }  // each input is freed right after its invocation was pushed
    for (const Array& out : outputs) {
      int ready = 1;
      REQUIRE(QvNDArrayCanRead(out.get(), &ready) == QV_OK);
      if (ready == 0) ++in_flight;
    }
    op.Release();
  }
  INFO(in_flight << " of 16 invocations were in flight when the op was freed");
  CHECK(in_flight > 0);  // else this tested nothing
  for (const Array& out : outputs) CHECK(SameBits(out.ToTensor(), want));
}

TEST_CASE("GPU: CUDA graphs on and off give the same bits, and a graph op takes a second shape", "[gpu]") {
  const Model chain = MakeChain(6, 512);
  const Op eager(chain, {{"device", "gpu(0)"}, {"cuda_graphs", "false"}});
  // "required": were a plan's steps not captured, its invocations would fail, naming the step and
  // CUDA's error, where "true" launches them one by one and gives the same bits.
  const Op graphs(chain, {{"device", "gpu(0)"}, {"cuda_graphs", "required"}});
  std::mt19937 rng(5);
  for (int64_t rows : {int64_t{4}, int64_t{4}, int64_t{4}, int64_t{33}, int64_t{33}, int64_t{4}}) {
    INFO("rows: " << rows);
    const Tensor x = qv_test::Random({rows, 512}, &rng);
    CHECK(SameBits(graphs.Run(x), eager.Run(x)));
    CHECK(SameBits(graphs.Run(x, QV_CPU), eager.Run(x)));
  }
}

// Each thread waits for its result before the next invocation, so with graphs the 4 threads keep 4
// slots (CudaGraphReplay::kMaxSlots) busy: slots are made, warmed up and captured while other threads
// replay theirs. The reference runs go first, on the same op: the first of them is the eager warm-up
// run of a slot, the others replays.
TEST_CASE("GPU: 4 threads x 150 invocations of one residual conv net op match sequential runs bit for bit",
          "[gpu]") {
  const Model net = MakeResidualNet();
  std::mt19937 rng(10);
  std::vector<Tensor> inputs;
  for (int k = 0; k < 4; ++k) inputs.push_back(qv_test::Random({2, 8, 16, 16}, &rng));
  for (const char* graphs : {"required", "false"}) {
    INFO("cuda_graphs " << graphs);
    const Op op(net, {{"device", "gpu(0)"}, {"cuda_graphs", graphs}});
    std::vector<Tensor> want;
    for (const Tensor& t : inputs) want.push_back(op.Run(t));
    std::vector<Array> gpu_inputs, cpu_inputs;
    for (const Tensor& t : inputs) {
      gpu_inputs.push_back(Array::FromTensor(t, QV_GPU));
      cpu_inputs.push_back(Array::FromTensor(t, QV_CPU));
    }
    std::atomic<int> mismatches{0};
    std::mutex mu;
    int failures = 0;           // guarded by mu
    std::string first_failure;  // guarded by mu
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 150; ++i) {
          const size_t k = static_cast<size_t>(t + i) % inputs.size();
          const Array& in = (i / 4) % 2 == 0 ? gpu_inputs[k] : cpu_inputs[k];
          try {
            if (!SameBits(op.Start(in.get()).ToTensor(), want[k])) mismatches.fetch_add(1);
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(mu);
            if (failures++ == 0) first_failure = e.what();
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    INFO("first failure: " << first_failure);
    CHECK(failures == 0);
    CHECK(mismatches.load() == 0);
  }
}

TEST_CASE("GPU: CPU inputs give the same outputs as GPU inputs", "[gpu]") {
  const Model chain = MakeChain(3, 128);
  const Op op(chain, kGpu);
  std::mt19937 rng(6);
  for (int i = 0; i < 4; ++i) {
    const Tensor x = qv_test::Random({16, 128}, &rng);
    CHECK(SameBits(op.Run(x, QV_CPU), op.Run(x, QV_GPU)));
  }
  // An output array on the GPU, its inputs on the CPU: the output stays on the op's device.
  const Array in = Array::FromTensor(qv_test::Random({16, 128}, &rng), QV_CPU);
  const Array out = op.Start(in.get());
  int type = -1, id = -1;
  REQUIRE(QvNDArrayGetDevice(out.get(), &type, &id) == QV_OK);
  CHECK(type == QV_GPU);
  CHECK(out.ToTensor().shape == std::vector<int64_t>{16, 128});
}

// A batch is one invocation like any other (plan/invocation.h): its rows are gathered and scattered on
// its stream, it completes asynchronously, and it replays its plan's CUDA graph (required: a batch
// plan that could not be captured would fail every request).
TEST_CASE("GPU batching: 16 concurrent clients with max_batch_size 8 get the unbatched outputs", "[gpu]") {
  const Model chain = MakeChain(4, 256);
  const Op plain(chain, kGpu);
  for (const char* graphs : {"false", "required"}) {
    INFO("cuda_graphs=" << graphs);
    const Op batched(chain, {{"device", "gpu(0)"}, {"max_batch_size", "8"}, {"batch_timeout_us", "2000"},
                             {"instances", "2"}, {"cuda_graphs", graphs}});
    std::mt19937 rng(7);
    std::vector<Tensor> inputs, want;
    for (int c = 0; c < 16; ++c) inputs.push_back(qv_test::Random({1, 256}, &rng));
    for (const Tensor& t : inputs) want.push_back(plain.Run(t));
    std::vector<Tensor> got(inputs.size());
    std::atomic<int> failures{0};
    std::vector<std::thread> clients;
    for (size_t c = 0; c < inputs.size(); ++c) {
      clients.emplace_back([&, c] {
        for (int round = 0; round < 20; ++round) {
          try {
            got[c] = batched.Run(inputs[c], c % 2 == 0 ? QV_GPU : QV_CPU);
          } catch (const std::exception&) {
            failures.fetch_add(1);
          }
        }
      });
    }
    for (auto& th : clients) th.join();
    CHECK(failures.load() == 0);
    for (size_t c = 0; c < inputs.size(); ++c) {
      const qv_test::Comparison cmp = qv_test::Compare(got[c], want[c]);
      INFO("client " << c << ": " << cmp.Describe(got[c], want[c]));
      CHECK(cmp.ok());
    }
  }
}

// Flag buckets on a GPU op: inputs padded in host memory and staged, outputs cut back on the host. A
// position-wise FullyConnected (flatten=False) over (N, T, 64) ignores padded positions.
TEST_CASE("GPU bucketing: every length gets the unpadded outputs, alone and in batches", "[gpu]") {
  std::mt19937 rng(11);
  GraphBuilder g;
  Model model;
  const int fc = g.Op("FullyConnected", "fc", {{"num_hidden", "32"}, {"flatten", "False"}},
                      {g.Variable("data"), g.Variable("fc_weight"), g.Variable("fc_bias")});
  g.Output(g.Op("Activation", "relu", {{"act_type", "relu"}}, {fc}));
  model.json = g.ToJson();
  model.params["fc_weight"] = qv_test::Random({32, 64}, &rng, -0.1f, 0.2f);
  model.params["fc_bias"] = qv_test::Random({32}, &rng, -0.1f, 0.2f);
  const Op plain(model, kGpu);
  const Op bucketed(model, {{"device", "gpu(0)"}, {"buckets", "8,16"}});
  std::vector<Tensor> inputs, want;
  for (int64_t length = 1; length <= 16; ++length) {
    inputs.push_back(qv_test::Random({2, length, 64}, &rng));
    want.push_back(plain.Run(inputs.back()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (const int device : {QV_GPU, QV_CPU}) {
      const Tensor got = bucketed.Run(inputs[i], device);
      const qv_test::Comparison cmp = qv_test::Compare(got, want[i]);
      INFO("length " << i + 1 << (device == QV_GPU ? " from the GPU: " : " from the CPU: ")
                     << cmp.Describe(got, want[i]));
      CHECK(cmp.ok());
    }
  }
  // Requests of lengths 9-16 share batches of the 16 bucket.
  const Op batched(model, {{"device", "gpu(0)"}, {"buckets", "8,16"}, {"max_batch_size", "4"},
                           {"batch_timeout_us", "2000"}, {"cuda_graphs", "required"}});
  std::vector<Tensor> got(8);
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (size_t c = 0; c < got.size(); ++c) {
    clients.emplace_back([&, c] {
      try {
        got[c] = batched.Run(inputs[8 + c]);
      } catch (const std::exception&) {
        failures.fetch_add(1);
      }
    });
  }
  for (auto& th : clients) th.join();
  CHECK(failures.load() == 0);
  for (size_t c = 0; c < got.size(); ++c) {
    const qv_test::Comparison cmp = qv_test::Compare(got[c], want[8 + c]);
    INFO("client " << c << ": " << cmp.Describe(got[c], want[8 + c]));
    CHECK(cmp.ok());
  }
}

TEST_CASE("GPU deadlines and cancellation end invocations with their own status", "[gpu]") {
  const Model chain = MakeChain(32, 2048);
  const Op op(chain, kGpu);
  std::mt19937 rng(8);
  const Array in = Array::FromTensor(qv_test::Random({1024, 2048}, &rng), QV_GPU);
  op.Start(in.get()).ToTensor();

  QvInvokeOptions options;
  std::memset(&options, 0, sizeof(options));
  options.struct_size = sizeof(options);
  // 1 us from submission has passed before the invocation can even start, however fast the GPU.
  options.deadline_us = 1;
  const Array late = op.Start(in.get(), &options);
  CHECK(QvNDArrayWaitToRead(late.get()) == QV_ERR_DEADLINE_EXCEEDED);
  options.deadline_us = 60 * 1000 * 1000;
  const Array in_time = op.Start(in.get(), &options);
  CHECK(QvNDArrayWaitToRead(in_time.get()) == QV_OK);

  // Cancelled right after submission, an invocation (milliseconds of GPU work) is all but always still
  // pending, and then ends cancelled; one that was already delivering its results is left alone.
  int cancelled_while_pending = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const Array out = op.Start(in.get());
    int was_pending = 0;
    REQUIRE(QvCancel(out.get(), &was_pending) == QV_OK);
    const int status = QvNDArrayWaitToRead(out.get());
    CHECK(status == (was_pending == 1 ? QV_ERR_CANCELLED : QV_OK));
    cancelled_while_pending += was_pending;
  }
  CHECK(cancelled_while_pending > 0);  // else cancellation went untested

  // The op goes on serving.
  const Array next = op.Start(in.get());
  CHECK(QvNDArrayWaitToRead(next.get()) == QV_OK);
}

TEST_CASE("GPU profiler: every step has a span timed on its stream, inside its invocation's span", "[gpu]") {
  const Model chain = MakeChain(4, 512);
  std::mt19937 rng(12);
  const Tensor input = qv_test::Random({64, 512}, &rng);
  const std::vector<std::string> nodes = {"fc0", "fc1", "fc2", "fc3", "prob"};  // each ReLU fused into its fc
  for (const char* graphs : {"true", "false"}) {
    INFO("cuda_graphs=" << graphs);
    const Op op(chain, {{"device", "gpu(0)"}, {"cuda_graphs", graphs}});
    const Array in = Array::FromTensor(input, QV_GPU);
    const Tensor unprofiled = op.Start(in.get()).ToTensor();  // compiles (and records) outside the profile
    constexpr int kRuns = 5;
    REQUIRE(QvProfilerClear() == QV_OK);
    REQUIRE(QvProfilerStart() == QV_OK);
    std::vector<Tensor> profiled;
    for (int i = 0; i < kRuns; ++i) profiled.push_back(op.Start(in.get()).ToTensor());
    REQUIRE(QvProfilerStop() == QV_OK);
    for (const Tensor& out : profiled) CHECK(SameBits(out, unprofiled));

    const char* text = nullptr;
    REQUIRE(QvProfilerGetTrace(&text) == QV_OK);
    const nlohmann::json trace = nlohmann::json::parse(text);
    std::map<int, std::string> tracks;
    std::vector<nlohmann::json> invocations, steps;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.at("ph") == "M") tracks[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
      else if (e.at("cat") == "invocation") invocations.push_back(e);
      else if (e.at("cat") == "operator" || e.at("cat") == "conversion") steps.push_back(e);
    }
    REQUIRE(invocations.size() == kRuns);
    std::map<std::string, int> per_node;
    for (const auto& step : steps) {
      INFO(step.dump());
      per_node[step.at("name").get<std::string>()] += 1;
      const double start = step.at("ts").get<double>(), end = start + step.at("dur").get<double>();
      CHECK(step.at("dur").get<double>() > 0);
      REQUIRE(tracks.count(step.at("tid").get<int>()) == 1);
      CHECK(tracks[step.at("tid").get<int>()].rfind("gpu(0) stream ", 0) == 0);
      // Within its invocation's span (1 us for rounding to the trace's microseconds).
      const bool inside = std::any_of(invocations.begin(), invocations.end(), [&](const nlohmann::json& inv) {
        const double from = inv.at("ts").get<double>(), to = from + inv.at("dur").get<double>();
        return start >= from - 1 && end <= to + 1;
      });
      CHECK(inside);
    }
    for (const std::string& node : nodes) CHECK(per_node[node] == kRuns);
    for (const auto& [node, count] : per_node) {
      INFO(node);
      CHECK(count == kRuns);
    }
  }
  REQUIRE(QvProfilerClear() == QV_OK);
}

}  // namespace
