// MXNet's fused RNN operator (rnn-inl.h): a stack of LSTM, GRU or vanilla RNN layers over data laid out
// (sequence, batch, features), each layer one or two directions (the backward one's output joined after
// the forward one's), all weights in one packed `parameters` vector.
#pragma once

#include "ops/op.h"

namespace qv {

enum class RnnMode { kLstm, kGru, kRnnRelu, kRnnTanh };

struct RnnParams {
  RnnMode mode = RnnMode::kLstm;
  int64_t layers = 1;
  int64_t directions = 1;
  int64_t hidden = 0;  // state_size
  bool state_outputs = false;
  // The begin states are zeros and are no inputs: set by DropZeroBeginStates (graph/bound_graph.h) for
  // Gluon's exports, whose `_zeros` begin states leave the batch size for shape inference to fill.
  bool zero_begin_state = false;

  // Refuses what Quiver does not implement (projection_size, use_sequence_length, lstm_state_clip_*),
  // naming the attribute.
  static RnnParams Parse(const Attrs& attrs);
  int64_t gates() const { return mode == RnnMode::kLstm ? 4 : mode == RnnMode::kGru ? 3 : 1; }
  bool has_cell() const { return mode == RnnMode::kLstm; }
  // Inputs of layer `layer`: the data's features for the first, directions x hidden after it.
  int64_t LayerInput(int64_t layer, int64_t input_size) const { return layer == 0 ? input_size : directions * hidden; }
  // The packed vector's length for data with `input_size` features.
  int64_t ParamCount(int64_t input_size) const;
};

// Where one layer and direction's weights lie in the packed vector (float offsets): all layers' and
// directions' weights come first, each as W_x (gates*hidden, input) then W_h (gates*hidden, hidden),
// layer-major then direction; the biases follow in the same order, b_x then b_h, gates*hidden each.
// Gates are ordered i, f, g, o (LSTM) and r, z, n (GRU).
struct RnnWeightOffsets {
  int64_t wx = 0, wh = 0, bx = 0, bh = 0;
};
RnnWeightOffsets RnnOffsets(const RnnParams& p, int64_t input_size, int64_t layer, int64_t direction);

// The attribute marking begin states as zeros that are not inputs (RnnParams::zero_begin_state).
inline constexpr const char* kRnnZeroBeginState = "__zero_begin_state__";

}  // namespace qv
