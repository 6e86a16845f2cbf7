// Depthwise 3x3 int8 convolutions of stride 1 or 2 on CPUs without int8 dot products (AVX2 without VNNI:
// AMD Zen 2 and 3, Intel before Ice Lake): MobileNets' depthwise layers. oneDNN's int8 kernel there
// widens every product to 32 bits (vpmulld, 8 products per instruction); this one converts each input
// row to float32 once and accumulates with FMA (8 per instruction, two a cycle), exactly: 9 products of
// 8-bit integers sum far below 2^24. The epilogue (int8_avx2_kernel.h): the accumulator times the data
// and weight scales, plus the bias, bounded by the fused ReLU or clip, quantized to the output's step.
#pragma once

#include "backends/cpu/kernels/kernel.h"
#include "ops/convolution.h"
#include "ops/int8_hints.h"

namespace qv::cpu {

// The kernel for such a convolution (2-D, 3x3, stride 1 or 2, padding 1, no dilation, one input and one
// output channel per group, channel counts that are multiples of 8, no residual sum, at most one
// fused ReLU or clip, on a CPU with AVX2 and FMA but without int8 dot products); else no kernel.
KernelBuild TryDepthwiseInt8Avx2(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h);

}  // namespace qv::cpu
