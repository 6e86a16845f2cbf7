#include "arguments.h"

namespace qv::capi {

std::map<std::string, NDArrayPtr> NamedParams(uint32_t num_params, const char** param_names, QvNDArrayHandle* params) {
  if (num_params > 0) {
    Require(param_names, "param_names");
    Require(params, "params");
  }
  std::map<std::string, NDArrayPtr> bound;
  for (uint32_t i = 0; i < num_params; ++i) {
    Require(param_names[i], "a parameter name");
    const std::string name = param_names[i];
    bound[name] = ArrayOf(params[i], ("parameter '" + name + "'").c_str());
    const Failure f = Engine::Get().WaitToRead(bound[name]->var());
    if (!f.ok()) throw Error(f.status, "parameter '" + name + "': " + f.message);
  }
  return bound;
}

std::vector<std::pair<std::string, std::string>> Flags(int num_flags, const char** keys, const char** vals) {
  Check(num_flags >= 0, Status::kInvalidArgument, "num_flags is negative (" + std::to_string(num_flags) + ")");
  if (num_flags > 0) {
    Require(keys, "keys");
    Require(vals, "vals");
  }
  std::vector<std::pair<std::string, std::string>> flags;
  for (int i = 0; i < num_flags; ++i) {
    Require(keys[i], "a flag key");
    Require(vals[i], "a flag value");
    flags.emplace_back(keys[i], vals[i]);
  }
  return flags;
}

}  // namespace qv::capi
