// Convolutional graphs for the GPU suites, built with qv_test::GraphBuilder: a Convolution or a
// BatchNorm with seeded random parameters, and ResNet's residual block made of them.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "support/single_op.h"

namespace qv_test {

using Params = std::map<std::string, qv_ref::Tensor>;

struct Conv {
  int64_t filters;
  int64_t kh, kw;
  AttrMap extra;  // stride, pad, dilate, num_group, no_bias
};

// A Convolution node named `name` reading `in` (of `channels` channels), its parameters added to `params`.
int AddConv(GraphBuilder& g, Params& params, std::mt19937& rng, const std::string& name, int in, int64_t channels,
            const Conv& c);

// A BatchNorm named `name` over `in`'s `channels` channels (folded into a convolution that feeds it).
int AddBatchNorm(GraphBuilder& g, Params& params, std::mt19937& rng, const std::string& name, int in,
                 int64_t channels);

// ResNet's block: conv-BN-ReLU, conv-BN, the shortcut added, then ReLU. The shortcut is the block's
// input, or with `projection` a strided 1x1 convolution + BN of it (the block then halves H and W).
// Nodes are named `name` + "_conv1", "_bn1", ... Returns the final ReLU.
int AddResidualBlock(GraphBuilder& g, Params& params, std::mt19937& rng, const std::string& name, int in,
                     int64_t in_channels, int64_t channels, bool projection);

}  // namespace qv_test
