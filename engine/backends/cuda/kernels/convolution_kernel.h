// What the cuDNN convolution kernel fuses, for the backend's FusionRules: a residual sum, then one
// activation (ReLU, or a clip from 0: cuDNN's clipped ReLU), in that order, as cuDNN's
// y = act(conv(x) + z + bias) computes them. A sum after an activation, a second activation, a clip
// whose lower bound is not 0 and leaky ReLU stay kernels of their own. And whether a kernel keeps
// cuDNN's fused call once it has tried it.
#pragma once

#include <cudnn.h>

#include <functional>

#include "graph/graph.h"

namespace qv::cuda {

// Whether a Convolution already carrying `producer.post_ops` can apply `post` to its output.
bool ConvolutionFusesPostOp(const Node& producer, const PostOp& post);
// Whether a Convolution already carrying `producer.post_ops` can add a residual into its output.
bool ConvolutionFusesSum(const Node& producer);

// Whether a convolution keeps cuDNN's fused call (cudnnConvolutionBiasActivationForward) after `probe`
// has made it once, when the plan is built: only if it returned success. Any other status, and a probe
// that had no memory for its data (Error with Status::kOutOfMemory), leave the kernel to the unfused
// sequence for good; any other Error propagates.
bool KeepsFusedCall(const std::function<cudnnStatus_t()>& probe);

}  // namespace qv::cuda
