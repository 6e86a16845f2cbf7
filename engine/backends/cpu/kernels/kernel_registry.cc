#include <map>

#include "backends/cpu/kernels/kernel.h"
#include "common/error.h"

namespace qv::cpu {
namespace {

std::map<std::string, CpuKernel>& Registry() {
  static auto* registry = new std::map<std::string, CpuKernel>();
  return *registry;
}

}  // namespace

CpuKernelRegistrar::CpuKernelRegistrar(const std::vector<std::string>& ops, KernelFactory factory, bool reads_int8) {
  for (const std::string& op : ops) Registry()[op] = {factory, reads_int8};
}

CpuKernel FindCpuKernel(const std::string& op) {
  auto it = Registry().find(op);
  return it == Registry().end() ? CpuKernel{} : it->second;
}

std::vector<std::string> ListCpuKernels() {
  std::vector<std::string> ops;
  for (const auto& kv : Registry()) ops.push_back(kv.first);
  return ops;
}

}  // namespace qv::cpu
