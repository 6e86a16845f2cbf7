// The GPU suites' oracle: the same graph compiled for cpu(0) and for gpu(0), run on the same
// parameters and inputs, every output compared.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/single_op.h"

namespace qv_test {

enum class Match {
  kClose,  // within qv_test::Compare's FP32 bound, 1e-5 * max(1, max |cpu|)
  kExact,  // the same bits (kernels doing the CPU's arithmetic operation for operation)
};

void ExpectGpuMatchesCpu(const GraphBuilder& g, const std::map<std::string, qv_ref::Tensor>& params,
                         const std::vector<qv_ref::Tensor>& inputs, Match match = Match::kClose);

}  // namespace qv_test
