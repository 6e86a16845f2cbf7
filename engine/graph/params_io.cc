#include "graph/params_io.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/utf8.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "params_io.cc copies little-endian array data as stored; a big-endian host would need byte swaps"
#endif

namespace qv {
namespace {

// MXNet's NDArray-list format (NDArray::Save/Load in src/ndarray/ndarray.cc and dmlc's vector and
// string serializers), little-endian throughout:
//   uint64 0x112, uint64 reserved (ignored)
//   uint64 array count, then per array one of
//     V2 0xF993fac9 / V3 0xF993faca (numpy shape semantics):
//        uint32 magic, int32 storage type, [sparse: storage shape], shape, context, int32 type flag,
//        [sparse: per aux array int32 type flag + shape], data, [sparse: aux data]
//     V1 0xF993fac8: uint32 magic, shape, context, int32 type flag, data
//     legacy (before 0.9, no magic): uint32 ndim, ndim x uint32 dims, context, int32 type flag, data
//   where shape = int32 ndim + ndim x int64 dims and context = int32 dev_type + int32 dev_id
//   uint64 name count (0 or the array count), then per name uint64 length + bytes.
// An array whose shape is "none" (V2 and older: ndim 0; V3: ndim or a dim of -1) stops after the shape.
//
// Choices: the whole file is walked and checked before anything is allocated, so every size is
// compared with the bytes really present; errors about an array's content (sparse, dtype) are raised
// after the names are read so that they can name the array. An array without a shape is rejected at
// once instead (it takes only a few bytes, so deferring it would let a small file hold millions of
// records). Bytes after the last name are rejected: no MXNet writer produces them, and they usually
// mean a damaged or misidentified file.

constexpr uint64_t kListMagic = 0x112;
constexpr uint32_t kMagicV1 = 0xF993fac8;
constexpr uint32_t kMagicV2 = 0xF993fac9;
constexpr uint32_t kMagicV3 = 0xF993faca;
constexpr size_t kMinArrayBytes = 4;  // a legacy "none" array: just ndim = 0
constexpr size_t kMaxReserve = 4096;

enum StorageType : int32_t { kDense = 0, kRowSparse = 1, kCsr = 2 };

// MXNet's AMP (mxnet.contrib.amp with target_dtype='bfloat16') stores parameters under this flag.
// Quiver computes in float32, so they are widened at load; bfloat16 is the top half of a float32,
// so the widening is exact.
constexpr int32_t kBFloat16Flag = 12;

// mshadow's type flags, indexed by flag. Flags 0..6 equal Quiver's DType codes.
struct TypeFlagInfo {
  const char* name;
  size_t size;
};
constexpr TypeFlagInfo kTypeFlags[] = {
    {"float32", 4}, {"float64", 8}, {"float16", 2}, {"uint8", 1},  {"int32", 4},   {"int8", 1},     {"int64", 8},
    {"bool", 1},    {"int16", 2},   {"uint16", 2},  {"uint32", 4}, {"uint64", 8}, {"bfloat16", 2},
};
constexpr int32_t kTypeFlagCount = sizeof(kTypeFlags) / sizeof(kTypeFlags[0]);

std::string Hex(uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  // Names the part being read ("array 3") in error messages.
  void set_context(std::string context) { context_ = std::move(context); }

  uint32_t U32(const std::string& what) { return static_cast<uint32_t>(ReadLittleEndian(4, what)); }
  int32_t I32(const std::string& what) { return static_cast<int32_t>(U32(what)); }
  uint64_t U64(const std::string& what) { return ReadLittleEndian(8, what); }
  int64_t I64(const std::string& what) { return static_cast<int64_t>(U64(what)); }

  const uint8_t* Take(size_t n, const std::string& what) {
    Need(n, what);
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }

  void Need(size_t n, const std::string& what) const {
    if (n > remaining())
      FailAt(pos_, "truncated: " + what + " needs " + std::to_string(n) + " bytes, but only " +
                       std::to_string(remaining()) + " remain");
  }

  [[noreturn]] void FailAt(size_t offset, const std::string& message, Status status = Status::kParse) const {
    const std::string where = (context_.empty() ? "" : context_ + ", ") + "offset " + std::to_string(offset);
    throw Error(status, where + ": " + message);
  }

 private:
  uint64_t ReadLittleEndian(size_t n, const std::string& what) {
    Need(n, what);
    uint64_t value = 0;
    for (size_t i = 0; i < n; ++i) value |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += n;
    return value;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string context_;
};

// One array as found in the file, before anything is allocated.
struct ArrayRecord {
  size_t offset = 0;
  int32_t storage_type = kDense;
  Shape shape;
  int32_t type_flag = 0;
  const uint8_t* data = nullptr;  // dense arrays only
  size_t nbytes = 0;
};

int32_t ReadTypeFlag(ByteReader& r, const std::string& what) {
  const size_t at = r.offset();
  const int32_t flag = r.I32(what);
  if (flag < 0 || flag >= kTypeFlagCount)
    r.FailAt(at, what + " " + std::to_string(flag) + " is not an MXNet dtype (known flags are 0.." +
                     std::to_string(kTypeFlagCount - 1) + ")");
  return flag;
}

// The context is read and otherwise ignored: arrays saved from a GPU load onto the CPU, as in MXNet.
void ReadContext(ByteReader& r) {
  const size_t at = r.offset();
  const int32_t dev_type = r.I32("the context's device type");
  r.I32("the context's device id");
  const bool known = dev_type == 1 || dev_type == 2 || dev_type == 3 || dev_type == 5;
  if (!known)
    r.FailAt(at, "context device type " + std::to_string(dev_type) +
                     " is not an MXNet device (cpu 1, gpu 2, cpu_pinned 3, cpu_shared 5)");
}

// A V1..V3 shape: int32 ndim, then ndim int64 dims. With `allow_unknown` (V3), ndim -1 or a dim of -1
// marks a shape that is not known, reported through `unknown`.
Shape ReadShape(ByteReader& r, const std::string& what, bool allow_unknown, bool* unknown) {
  const size_t at = r.offset();
  const int32_t ndim = r.I32(what + "'s ndim");
  *unknown = allow_unknown && ndim == -1;
  if (*unknown) return {};
  if (ndim < 0) r.FailAt(at, what + " has a negative ndim " + std::to_string(ndim));
  r.Need(static_cast<size_t>(ndim) * 8, what + " with " + std::to_string(ndim) + " dimensions");
  Shape shape(static_cast<size_t>(ndim));
  for (int64_t& d : shape) d = r.I64(what);
  for (int64_t d : shape) {
    if (allow_unknown && d == -1) *unknown = true;
    else if (d < 0) r.FailAt(at, what + " " + ShapeToString(shape) + " has a negative dimension");
  }
  return shape;
}

// Before 0.9 the first word of an array was its ndim, followed by uint32 dims.
Shape ReadLegacyShape(ByteReader& r, uint32_t ndim, size_t at) {
  if (static_cast<size_t>(ndim) * 4 > r.remaining())
    r.FailAt(at, "header " + Hex(ndim) + " is not an array magic (V1 " + Hex(kMagicV1) + ", V2 " + Hex(kMagicV2) +
                     ", V3 " + Hex(kMagicV3) + "); read as a pre-0.9 header it declares " + std::to_string(ndim) +
                     " dimensions, which need " + std::to_string(static_cast<size_t>(ndim) * 4) +
                     " bytes, but only " + std::to_string(r.remaining()) + " remain");
  Shape shape(ndim);
  for (int64_t& d : shape) d = r.U32("the legacy shape");
  return shape;
}

// Checks that `shape` elements of `type` fit in the bytes left, then takes them.
const uint8_t* TakeData(ByteReader& r, const Shape& shape, int32_t type_flag, const std::string& what, size_t* nbytes) {
  const TypeFlagInfo& type = kTypeFlags[type_flag];
  const std::string described = what + " (shape " + ShapeToString(shape) + ", " + type.name + ")";
  int64_t bytes = 0;
  try {
    bytes = ByteCount(shape, type.size);
  } catch (const Error& e) {
    r.FailAt(r.offset(), described + " is too large: " + e.what());
  }
  if (static_cast<uint64_t>(bytes) > r.remaining())
    r.FailAt(r.offset(), described + " declares " + std::to_string(ElementCount(shape)) + " elements (" +
                             std::to_string(bytes) + " bytes), but only " + std::to_string(r.remaining()) +
                             " bytes remain");
  *nbytes = static_cast<size_t>(bytes);
  return r.Take(*nbytes, what);
}

void RejectShapeless(const ByteReader& r, const ArrayRecord& rec) {
  r.FailAt(rec.offset, "an MXNet NDArray without a shape (no data) is not supported", Status::kUnsupported);
}

// Context, type flag and data: the part every layout shares after the shape.
void ReadDenseBody(ByteReader& r, ArrayRecord& rec) {
  ReadContext(r);
  rec.type_flag = ReadTypeFlag(r, "type flag");
  rec.data = TakeData(r, rec.shape, rec.type_flag, "the data", &rec.nbytes);
}

// Sparse arrays are walked so that the error can name them once the names are read.
void SkipSparseBody(ByteReader& r, ArrayRecord& rec, const Shape& storage_shape) {
  ReadContext(r);
  rec.type_flag = ReadTypeFlag(r, "type flag");
  const int aux_count = rec.storage_type == kCsr ? 2 : 1;
  std::vector<std::pair<int32_t, Shape>> aux;
  for (int i = 0; i < aux_count; ++i) {
    const std::string what = "aux array " + std::to_string(i);
    const int32_t flag = ReadTypeFlag(r, what + " type flag");
    bool unknown = false;
    aux.emplace_back(flag, ReadShape(r, what + " shape", false, &unknown));
  }
  size_t skipped = 0;
  TakeData(r, storage_shape, rec.type_flag, "the sparse values", &skipped);
  for (size_t i = 0; i < aux.size(); ++i)
    TakeData(r, aux[i].second, aux[i].first, "aux array " + std::to_string(i) + " data", &skipped);
}

void ReadV2OrV3(ByteReader& r, bool numpy_semantics, ArrayRecord& rec) {
  const size_t at = r.offset();
  rec.storage_type = r.I32("the storage type");
  if (rec.storage_type != kDense && rec.storage_type != kRowSparse && rec.storage_type != kCsr)
    r.FailAt(at, "unknown storage type " + std::to_string(rec.storage_type) +
                     " (MXNet writes 0 dense, 1 row_sparse, 2 csr)");
  bool unknown = false;
  Shape storage_shape;
  if (rec.storage_type != kDense) storage_shape = ReadShape(r, "the storage shape", false, &unknown);
  rec.shape = ReadShape(r, "the shape", numpy_semantics, &unknown);
  if (numpy_semantics ? unknown : rec.shape.empty()) RejectShapeless(r, rec);
  if (rec.storage_type == kDense)
    ReadDenseBody(r, rec);
  else
    SkipSparseBody(r, rec, storage_shape);
}

ArrayRecord ReadArray(ByteReader& r) {
  ArrayRecord rec;
  rec.offset = r.offset();
  const uint32_t magic = r.U32("the array header");
  bool unknown = false;
  if (magic == kMagicV2 || magic == kMagicV3) {
    ReadV2OrV3(r, magic == kMagicV3, rec);
    return rec;
  }
  rec.shape = magic == kMagicV1 ? ReadShape(r, "the shape", false, &unknown) : ReadLegacyShape(r, magic, rec.offset);
  // Writers of these layouts stored only ndim 0 for an array without a shape.
  if (rec.shape.empty()) RejectShapeless(r, rec);
  ReadDenseBody(r, rec);
  return rec;
}

void CheckListHeader(ByteReader& r, const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "PK\x03\x04", 4) == 0)
    throw Error(Status::kUnsupported,
                "offset 0: this is a zip archive (MXNet 2.x / numpy .npz parameters); Quiver reads the MXNet 1.x "
                "NDArray-list format written by mx.nd.save and Gluon's export");
  const uint64_t magic = r.U64("the file header");
  if (magic != kListMagic)
    r.FailAt(0, "expected the NDArray-list magic " + Hex(kListMagic) + ", found " + Hex(magic) +
                    ": not an MXNet .params file");
  r.U64("the reserved header word");
}

std::vector<ArrayRecord> ReadArrays(ByteReader& r) {
  const size_t at = r.offset();
  const uint64_t count = r.U64("the array count");
  if (count > r.remaining() / kMinArrayBytes)
    r.FailAt(at, "declares " + std::to_string(count) + " arrays, but the " + std::to_string(r.remaining()) +
                     " bytes left cannot hold that many");
  std::vector<ArrayRecord> records;
  records.reserve(std::min<size_t>(static_cast<size_t>(count), kMaxReserve));
  for (uint64_t i = 0; i < count; ++i) {
    r.set_context("array " + std::to_string(i));
    records.push_back(ReadArray(r));
  }
  r.set_context("");
  return records;
}

std::vector<std::string> ReadNames(ByteReader& r, size_t array_count) {
  const size_t at = r.offset();
  const uint64_t count = r.U64("the name count");
  if (count != 0 && count != array_count)
    r.FailAt(at, "the file holds " + std::to_string(array_count) + " arrays but " + std::to_string(count) +
                     " names (MXNet writes one name per array, or none)");
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(count));  // count equals the number of arrays already read
  for (uint64_t i = 0; i < count; ++i) {
    r.set_context("name " + std::to_string(i));
    const uint64_t length = r.U64("the name length");
    if (length > r.remaining())
      r.FailAt(r.offset() - 8, "name length " + std::to_string(length) + " exceeds the " +
                                   std::to_string(r.remaining()) + " bytes left");
    const size_t at = r.offset();
    const char* bytes = reinterpret_cast<const char*>(r.Take(static_cast<size_t>(length), "the name"));
    std::string name(bytes, static_cast<size_t>(length));
    // MXNet writes names from Python strings; a NUL or malformed UTF-8 means a damaged file, and
    // neither survives the trip to C strings and Java or Python strings.
    if (name.find('\0') != std::string::npos) r.FailAt(at, "the name contains a NUL byte");
    if (!IsValidUtf8(name)) r.FailAt(at, "the name is not valid UTF-8");
    names.push_back(std::move(name));
  }
  r.set_context("");
  return names;
}

std::string ArrayLabel(size_t index, const std::vector<std::string>& names, size_t offset) {
  std::string label = "array " + std::to_string(index);
  if (!names.empty()) label += " (" + QuoteName(names[index]) + ")";
  return label + ", offset " + std::to_string(offset);
}

void CheckSupported(const ArrayRecord& rec, const std::string& label) {
  if (rec.storage_type != kDense)
    throw Error(Status::kUnsupported, label + ": " + (rec.storage_type == kCsr ? "csr" : "row_sparse") +
                                        " storage is not supported; save the array dense (tostype('default'))");
  if (!IsValidDType(rec.type_flag) && rec.type_flag != kBFloat16Flag)
    throw Error(Status::kUnsupported, label + ": dtype " + kTypeFlags[rec.type_flag].name + " (MXNet type flag " +
                                        std::to_string(rec.type_flag) + ") is not supported");
}

// Each stored 16-bit pattern becomes the upper half of a float32 (the lower half zero).
NDArrayPtr WidenBFloat16(const ArrayRecord& rec) {
  NDArrayPtr array = NDArray::Create(rec.shape, DType::kFloat32);
  const size_t count = rec.nbytes / 2;
  Check(array->nbytes() == count * 4, Status::kInternal, "bfloat16 array size differs from the bytes read");
  uint32_t* out = static_cast<uint32_t*>(array->data());
  for (size_t i = 0; i < count; ++i) {
    const uint32_t half = static_cast<uint32_t>(rec.data[2 * i]) | (static_cast<uint32_t>(rec.data[2 * i + 1]) << 8);
    out[i] = half << 16;
  }
  return array;
}

NDArrayPtr MakeArray(const ArrayRecord& rec, const std::string& label) {
  try {
    if (rec.type_flag == kBFloat16Flag) return WidenBFloat16(rec);
    NDArrayPtr array = NDArray::Create(rec.shape, static_cast<DType>(rec.type_flag));
    Check(array->nbytes() == rec.nbytes, Status::kInternal, "array size differs from the bytes read");
    if (rec.nbytes != 0) std::memcpy(array->data(), rec.data, rec.nbytes);
    return array;
  } catch (const Error& e) {
    throw Error(e.status(), label + ": " + e.what());
  }
}

NamedArrays ParseParams(const uint8_t* data, size_t size) {
  ByteReader r(data, size);
  CheckListHeader(r, data, size);
  const std::vector<ArrayRecord> records = ReadArrays(r);
  NamedArrays out;
  out.names = ReadNames(r, records.size());
  if (r.remaining() != 0)
    r.FailAt(r.offset(), std::to_string(r.remaining()) + " unexpected bytes after the last name (the file should end here)");
  for (size_t i = 0; i < records.size(); ++i) CheckSupported(records[i], ArrayLabel(i, out.names, records[i].offset));
  out.arrays.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i)
    out.arrays.push_back(MakeArray(records[i], ArrayLabel(i, out.names, records[i].offset)));
  return out;
}

std::string ReadWholeFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(Status::kNotFound, "params file '" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(Status::kNotFound, "cannot open params file '" + path + "'");
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(Status::kNotFound, "cannot read params file '" + path + "'");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) throw Error(Status::kNotFound, "cannot read params file '" + path + "'");
  return bytes;
}

// Little-endian fields of the NDArray-list format, appended in order.
class ByteWriter {
 public:
  template <typename T>
  void Put(T value) { Raw(&value, sizeof(value)); }
  void Raw(const void* data, size_t size) { bytes_.append(static_cast<const char*>(data), size); }
  std::string Take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

void WriteArray(ByteWriter& w, const NDArray& array) {
  Check(array.device().type == DeviceType::kCpu, Status::kInvalidArgument, "SaveParams writes CPU arrays only");
  w.Put<uint32_t>(kMagicV2);
  w.Put<int32_t>(kDense);
  w.Put<int32_t>(static_cast<int32_t>(array.shape().size()));
  for (int64_t d : array.shape()) w.Put<int64_t>(d);
  w.Put<int32_t>(1);  // context: cpu(0)
  w.Put<int32_t>(0);
  w.Put<int32_t>(static_cast<int32_t>(array.dtype()));
  w.Raw(array.data(), array.nbytes());
}

}  // namespace

std::string SaveParams(const NamedArrays& arrays) {
  Check(arrays.names.empty() || arrays.names.size() == arrays.arrays.size(), Status::kInvalidArgument,
        "SaveParams: " + std::to_string(arrays.names.size()) + " names for " + std::to_string(arrays.arrays.size()) +
            " arrays");
  ByteWriter w;
  w.Put<uint64_t>(kListMagic);
  w.Put<uint64_t>(0);
  w.Put<uint64_t>(arrays.arrays.size());
  for (const NDArrayPtr& array : arrays.arrays) WriteArray(w, *array);
  w.Put<uint64_t>(arrays.names.size());
  for (const std::string& name : arrays.names) {
    w.Put<uint64_t>(name.size());
    w.Raw(name.data(), name.size());
  }
  return w.Take();
}

NamedArrays LoadParams(const void* data, size_t size) {
  Check(data != nullptr || size == 0, Status::kInvalidArgument, "params: null data with size " + std::to_string(size));
  try {
    return ParseParams(static_cast<const uint8_t*>(data), size);
  } catch (const Error& e) {
    throw Error(e.status(), std::string("params: ") + e.what());
  }
}

NamedArrays LoadParamsFile(const std::string& path) {
  const std::string bytes = ReadWholeFile(path);
  try {
    return LoadParams(bytes.data(), bytes.size());
  } catch (const Error& e) {
    throw Error(e.status(), "'" + path + "': " + e.what());
  }
}

}  // namespace qv
