// What a backend can fuse: the graph passes are generic, and ask these questions of the backend the
// graph is compiled for (oneDNN's post-ops on the CPU, for example).
#pragma once

#include "graph/graph.h"

namespace qv {

class FusionRules {
 public:
  virtual ~FusionRules() = default;
  // Whether `producer` (with the post-ops it already carries) can apply `post` to its output.
  virtual bool FusesPostOp(const Node& producer, const PostOp& post) const = 0;
  // Whether `producer` can add another tensor into its output (a residual sum) before its
  // remaining post-ops.
  virtual bool FusesSum(const Node& producer) const = 0;
};

}  // namespace qv
