#include <map>

#include "backends/cpu/kernel.h"
#include "common/error.h"

namespace qv::cpu {
namespace {

std::map<std::string, KernelFactory>& Registry() {
  static auto* registry = new std::map<std::string, KernelFactory>();
  return *registry;
}

}  // namespace

CpuKernelRegistrar::CpuKernelRegistrar(std::initializer_list<const char*> ops, KernelFactory factory) {
  for (const char* op : ops) Registry()[op] = factory;
}

KernelFactory FindCpuKernel(const std::string& op) {
  auto it = Registry().find(op);
  return it == Registry().end() ? nullptr : it->second;
}

std::vector<std::string> ListCpuKernels() {
  std::vector<std::string> ops;
  for (const auto& kv : Registry()) ops.push_back(kv.first);
  return ops;
}

}  // namespace qv::cpu
