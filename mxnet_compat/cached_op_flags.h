// MXNet's CachedOp flags (string keys and values, as MXCreateCachedOpEx takes them), parsed once.
#ifndef QUIVER_MXNET_COMPAT_CACHED_OP_FLAGS_H_
#define QUIVER_MXNET_COMPAT_CACHED_OP_FLAGS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace mxc {

struct CachedOpFlags {
  bool static_shape = false;
  // Positions among the invoked inputs (MXNet's list_inputs order). Parameters are bound once and
  // reused while the same, unchanged arrays come back; data inputs change every call.
  std::vector<size_t> data_indices, param_indices;
  // Quiver's own cached-op flags given among MXNet's (precision, max_batch_size, ...: the runtime's
  // table, QvListCachedOpFlags), passed on as they are; the runtime checks their values.
  std::vector<std::pair<std::string, std::string>> quiver;
};

// Throws Error naming an unknown key or a value that does not parse, as MXNet's parameter parser
// rejects them (a key of neither MXNet's flags nor Quiver's). num_inputs bounds the indices.
CachedOpFlags ParseCachedOpFlags(int num_flags, const char** keys, const char** vals, size_t num_inputs);

}  // namespace mxc

#endif  // QUIVER_MXNET_COMPAT_CACHED_OP_FLAGS_H_
