// int8 convolutions over 1-4 input channels with wide kernel rows (a network's first layer: ResNets'
// 7x7 over 3 channels) on CPUs without int8 dot products (AVX2 without VNNI: AMD Zen 2 and 3, Intel
// before Ice Lake). oneDNN's direct int8 kernel there pads each pixel's 3 channels to 4 and loops per
// kernel tap. Here a kernel row of a patch is its pixels' channels, contiguous in channels-last data:
// each output row copies its input rows once with their padding columns, and the patches are read
// from them directly in groups of 4 bytes (a row's last group partly over zero weights), multiplied by
// the weights as a matrix product with vpmaddubsw, as oneDNN does (int8 data shifted by +128 into
// uint8, the shift taken back out with each filter's weight sum). The weights are the 7-bit ones oneDNN
// is given there (int8_support.h), so the 16-bit pair sums never saturate and the sums are exact; the
// epilogue is oneDNN's (int8_avx2_kernel.h).
#pragma once

#include "backends/cpu/kernels/kernel.h"
#include "ops/convolution.h"
#include "ops/int8_hints.h"

namespace qv::cpu {

// The kernel for such a convolution (2-D, no dilation, one group, 1-4 input channels, kernel rows of
// at least 20 bytes and at most 11 of them, a multiple of 8 filters, no residual sum, at most one fused
// ReLU or clip, on a CPU with AVX2 but without int8 dot products); else no kernel.
KernelBuild TryIm2colInt8Avx2(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h);

}  // namespace qv::cpu
