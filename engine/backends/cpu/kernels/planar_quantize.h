// Float images in planes (NCHW, up to 4 channels) to int8 or uint8 with the channels interleaved (NHWC):
// what an int8 model's first convolution reads from its float32 input. oneDNN's reorder does the same
// transposition a pixel at a time (about 120 us for one 3x224x224 image on one thread, 4% of
// MobileNetV2's int8 inference on AMX); this converts a block of pixels per plane with vector
// arithmetic, then interleaves the bytes (about 20 us), with oneDNN's rounding: to nearest even of
// value x (1 / scale), saturated to the type's range.
#pragma once

#include <memory>

#include "backends/cpu/kernels/kernel.h"

namespace qv::cpu {

// The kernel converting `from` to `to` when they are such a pair (`from` 4-d float32 NCHW, `to` the same
// shape as dense NHWC int8 or uint8, 1-4 channels), else nullptr. Like the reorder it replaces, it
// reads the scale from the output's buffer (kernel.h: Quantization), after writing `to_quant.scale`
// there when that is fixed.
std::unique_ptr<Kernel> MakePlanarQuantizeKernel(const Desc& from, const Desc& to, const Quantization& to_quant);

}  // namespace qv::cpu
