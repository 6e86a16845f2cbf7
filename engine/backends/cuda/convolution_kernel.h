// What the cuDNN convolution kernel fuses, for the backend's FusionRules: a residual sum, then one
// activation (ReLU, or a clip from 0: cuDNN's clipped ReLU), in that order, as cuDNN's
// y = act(conv(x) + z + bias) computes them. A sum after an activation, a second activation, a clip
// whose lower bound is not 0 and leaky ReLU stay kernels of their own.
#pragma once

#include "graph/graph.h"

namespace qv::cuda {

// Whether a Convolution already carrying `producer.post_ops` can apply `post` to its output.
bool ConvolutionFusesPostOp(const Node& producer, const PostOp& post);
// Whether a Convolution already carrying `producer.post_ops` can add a residual into its output.
bool ConvolutionFusesSum(const Node& producer);

}  // namespace qv::cuda
