// Float32 3x3 convolutions by Winograd's minimal filtering F(2x2, 3x3): each 4x4 input tile and each
// filter are transformed so that a 2x2 block of outputs costs 16 multiplications per channel pair
// instead of 36. The 16 products are one batched matrix product (oneDNN matmul: tiles x input channels
// times input channels x output channels, 16 times); the transforms are vector loops over channels-last
// data, and the output transform adds the bias and applies the fused post-ops.
//
// Why: at batch 1 oneDNN's direct 3x3 kernels already run close to the CPU's peak multiply rate, so
// doing fewer multiplications is what is left (docs/performance.rst, "Winograd 3x3 convolutions"). The
// transformed filters are 16/9 the size of the plain ones, so layers whose weights outweigh their
// pixels (ResNet's 7x7 maps with 512 channels) stay direct: reading weights bounds them, not arithmetic.
#pragma once

#include "backends/cpu/kernels/kernel.h"
#include "ops/convolution.h"

namespace qv::cpu {

// The Winograd kernel of the float32 convolution `p` of `req` (channels-last float32 in and out), where
// it applies: 2-D, 3x3, stride 1, no dilation, one group, parameter weight and bias, channel counts
// multiples of 16, post-ops among ReLU, leaky ReLU, clip and the residual sum, outputs enough that the
// arithmetic saved outweighs the larger filters, and a brgemm matrix product in oneDNN for its shapes.
// Elsewhere no kernel (KernelBuild::kernel null): the caller builds the direct one.
KernelBuild TryWinogradConvolution(const KernelRequest& req, const ConvolutionParams& p);

}  // namespace qv::cpu
