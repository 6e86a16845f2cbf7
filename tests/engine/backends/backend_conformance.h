// What every Backend must do, whatever its device: run once per backend (the CPU's in
// cpu/cpu_backend_test.cc; the CUDA backend's in its GPU suite, cuda/gpu_backend_conformance_test.cc).
// The checks need no operator beyond Convolution, whose kernels choose their own layouts on every device.
#pragma once

#include "backends/backend.h"

namespace quiver_test {

// Device checks, the operators claimed, layout round trips, constant packing, gathering and scattering
// a batch's pieces, and a batch computing for each request what it computes alone.
void CheckBackendConformance(const qv::Backend& backend, const qv::Device& device);

}  // namespace quiver_test
