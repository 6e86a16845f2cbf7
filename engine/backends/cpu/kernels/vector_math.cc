#include "backends/cpu/kernels/vector_math.h"

namespace qv::cpu {

QV_VECTOR_CLONES void ExpLoop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = VecExp(x[i]);
}

QV_VECTOR_CLONES void SigmoidLoop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = VecSigmoid(x[i]);
}

QV_VECTOR_CLONES void TanhLoop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = VecTanh(x[i]);
}

}  // namespace qv::cpu
