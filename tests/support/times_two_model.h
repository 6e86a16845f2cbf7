// A one-operator model for engine-level tests: output = 2 * data, any shape.
#pragma once

namespace quiver_test {

inline const char* kTimesTwoJson = R"json({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "_mul_scalar", "name": "twice", "attrs": {"scalar": "2"}, "inputs": [[0, 0, 0]]}
  ],
  "heads": [[1, 0, 0]]
})json";

}  // namespace quiver_test
