// int8 convolutions as matrix products of kernel rows on CPUs without int8 dot products (AVX2 without
// VNNI: AMD Zen 2 and 3, Intel before Ice Lake), for two shapes where oneDNN's int8 kernels there
// lose time outside their products:
//   - first layers: 1-4 input channels with kernel rows of 9 bytes or more (MobileNets' 3x3 and
//     ResNets' 7x7 over 3 channels), which oneDNN's direct kernel pads to 4 channels a pixel and loops
//     per kernel tap;
//   - 1x1 expansions (stride 1, at least as many output channels as input ones: MobileNetV2's), few
//     products per output, where its epilogue's separate steps cost about as much as the products.
// A kernel row of a patch is its pixels' channels, contiguous in channels-last data: each output row
// copies its input rows once with their padding columns, and the patches are read from them directly
// in groups of 4 bytes (a row's last group partly over zero weights), multiplied by the weights with
// vpmaddubsw in 3 x 32-channel register tiles, as oneDNN does (int8 data shifted by +128 into uint8,
// the shift taken back out with each filter's weight sum). The weights are the 7-bit ones oneDNN is
// given there (int8_support.h), so the 16-bit pair sums never saturate and the sums are exact; the
// epilogue is one multiply-add and one clamp (int8_avx2_kernel.h), each pixel's 32 channels packed
// into one store.
#pragma once

#include "backends/cpu/kernels/kernel.h"
#include "ops/convolution.h"
#include "ops/int8_hints.h"

namespace qv::cpu {

// The kernel for such a convolution (2-D, no dilation, one group, a multiple of 8 filters, no residual
// sum, at most one fused ReLU or clip, on a CPU with AVX2 but without int8 dot products; and either 1-4
// input channels with kernel rows of 9 bytes or more and at most 11 of them, or a 1x1 kernel of
// stride 1 over a multiple of 4 input channels, no more than the filters); else no kernel.
KernelBuild TryGemmConvInt8Avx2(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h);

}  // namespace qv::cpu
