// The CPU backend posing as one that completes asynchronously, for tests of what runs on a GPU: its
// executions finish on a thread of their own, 20 ms later, as a GPU's completion thread would.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.h"

namespace quiver_test {

using namespace qv;  // NOLINT: the backend interface's many types, in the tests' own namespace

class LateExecution : public Execution {
 public:
  LateExecution(std::unique_ptr<Execution> inner, std::vector<std::thread>* threads)
      : inner_(std::move(inner)), threads_(threads) {}
  void Run(const Kernel& kernel, ExecArgs& args, int parallelism, const std::string& node) override {
    inner_->Run(kernel, args, parallelism, node);
  }
  void Finish() override { inner_->Finish(); }
  void FinishAsync(Done done) override {
    threads_->emplace_back([done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      done(nullptr);
    });
  }

 private:
  std::unique_ptr<Execution> inner_;
  std::vector<std::thread>* threads_;
};

class LateBackend : public Backend {
 public:
  explicit LateBackend(const Backend& cpu) : cpu_(cpu) {}
  DeviceType device_type() const override { return cpu_.device_type(); }
  void RequireDevice(const Device& device) const override { cpu_.RequireDevice(device); }
  const DeviceMemory& memory() const override { return cpu_.memory(); }
  bool Supports(const std::string& op) const override { return cpu_.Supports(op); }
  std::vector<std::string> SupportedOps() const override { return cpu_.SupportedOps(); }
  const FusionRules& fusions() const override { return cpu_.fusions(); }
  Precision ResolvePrecision(Precision requested, const Device& device) const override {
    return cpu_.ResolvePrecision(requested, device);
  }
  std::unique_ptr<ConstantStore> NewConstantStore() const override { return cpu_.NewConstantStore(); }
  KernelBuild BuildKernel(const KernelRequest& request) const override { return cpu_.BuildKernel(request); }
  LayoutPtr PlainLayout(const TensorType& type) const override { return cpu_.PlainLayout(type); }
  std::unique_ptr<Kernel> MakeConversion(const LayoutPtr& from, const LayoutPtr& to) const override {
    return cpu_.MakeConversion(from, to);
  }
  int StepParallelism(double flops, double bytes) const override { return cpu_.StepParallelism(flops, bytes); }
  std::unique_ptr<Execution> StartExecution(const Device& device) const override {
    return std::make_unique<LateExecution>(cpu_.StartExecution(device), &threads);
  }
  bool completes_asynchronously() const override { return true; }

  mutable std::vector<std::thread> threads;

 private:
  const Backend& cpu_;
};


}  // namespace quiver_test
