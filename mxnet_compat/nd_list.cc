// MXNDListCreate / Get / Free: an NDArray file read into float buffers (mean images and the like).
#include <memory>
#include <string>
#include <vector>

#include "errors.h"
#include "mx_abi.h"
#include "quiver/c_api.h"

namespace mxc {
namespace {

struct NDList {
  std::vector<std::string> keys;
  std::vector<std::vector<float>> data;
  std::vector<std::vector<uint32_t>> shapes;
};

NDList* ListFromHandle(void* handle) {
  Require(handle != nullptr, "NDList handle is NULL");
  return static_cast<NDList*>(handle);
}

}  // namespace
}  // namespace mxc

using mxc::Guarded;
using mxc::Require;

int MXNDListCreate(const char* nd_file_bytes, int nd_file_size, NDListHandle* out, uint32_t* out_length) {
  return Guarded(__func__, [&] {
    Require(nd_file_bytes && out && out_length, "a pointer argument is NULL");
    Require(nd_file_size >= 0, "nd_file_size is negative");
    uint32_t n = 0, n_names = 0;
    QvNDArrayHandle* arrays = nullptr;
    const char** names = nullptr;
    mxc::CheckQv(QvNDArrayLoadFromBuffer(nd_file_bytes, static_cast<size_t>(nd_file_size), &n, &arrays, &n_names,
                                         &names),
                 "reading the NDArray list");
    std::vector<QvNDArrayHandle> owned(arrays, arrays + n);
    auto list = std::make_unique<mxc::NDList>();
    list->keys.assign(names, names + n_names);
    list->keys.resize(n);  // a list saved without names has empty keys, as in MXNet
    std::string error;
    for (uint32_t i = 0; i < n && error.empty(); ++i) {
      uint32_t ndim = 0;
      const int64_t* shape = nullptr;
      int dtype = -1;
      QvNDArrayGetShape(owned[i], &ndim, &shape);
      QvNDArrayGetDType(owned[i], &dtype);
      if (dtype != QV_FLOAT32) {
        error = "array " + std::to_string(i) + " ('" + list->keys[i] + "') is not float32 (dtype " +
                std::to_string(dtype) + "); an NDList holds float32 arrays";
        break;
      }
      list->shapes.emplace_back(shape, shape + ndim);
      size_t count = 1;
      for (uint32_t d = 0; d < ndim; ++d) count *= static_cast<size_t>(shape[d]);
      list->data.emplace_back(count);
      if (QvNDArraySyncCopyToCPU(owned[i], list->data.back().data(), count * sizeof(float)) != QV_OK)
        error = std::string("reading array ") + std::to_string(i) + ": " + QvGetLastError();
    }
    for (QvNDArrayHandle a : owned) QvNDArrayFree(a);
    Require(error.empty(), error);
    *out_length = n;
    *out = list.release();
  });
}

int MXNDListGet(NDListHandle handle, uint32_t index, const char** out_key, const float** out_data,
                const uint32_t** out_shape, uint32_t* out_ndim) {
  return Guarded(__func__, [&] {
    mxc::NDList* list = mxc::ListFromHandle(handle);
    Require(out_key && out_data && out_shape && out_ndim, "a pointer argument is NULL");
    Require(index < list->data.size(), "Index out of range: " + std::to_string(index) + " >= " +
                                           std::to_string(list->data.size()));
    *out_key = list->keys[index].c_str();
    *out_data = list->data[index].data();
    *out_shape = list->shapes[index].data();
    *out_ndim = static_cast<uint32_t>(list->shapes[index].size());
  });
}

int MXNDListFree(NDListHandle handle) {
  return Guarded(__func__, [&] { delete mxc::ListFromHandle(handle); });
}
