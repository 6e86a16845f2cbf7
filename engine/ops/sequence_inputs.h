// The inputs MXNet's sequence operators (SequenceLast, SequenceMask) share: data, and with
// use_sequence_length a second input of one length per sequence.
#pragma once

#include "ops/op.h"

namespace qv {

// {"data"}, or {"data", "sequence_length"} with use_sequence_length.
std::vector<std::string> SequenceInputNames(const Attrs& attrs);
// sequence_length, when the node has it, must be (batch): checked against data's batch size.
void ExpectSequenceLengths(const Attrs& attrs, const std::vector<TensorType>& in, int64_t batch);

}  // namespace qv
