#include "graph/params_io.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/error.h"
#include "graph/symbol_json.h"

using Catch::Matchers::Contains;
using qv::NamedArrays;

namespace fs = std::filesystem;

namespace {

// Writes MXNet's NDArray-list format byte by byte, following MXNet's NDArray::Save and dmlc's
// serializers directly (independently of the reader under test).
class Writer {
 public:
  Writer& U32(uint32_t v) { return Little(v, 4); }
  Writer& I32(int32_t v) { return Little(static_cast<uint32_t>(v), 4); }
  Writer& U64(uint64_t v) { return Little(v, 8); }
  Writer& I64(int64_t v) { return Little(static_cast<uint64_t>(v), 8); }
  Writer& Raw(const std::vector<uint8_t>& b) {
    bytes.insert(bytes.end(), b.begin(), b.end());
    return *this;
  }
  Writer& Text(const std::string& s) {
    U64(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  std::vector<uint8_t> bytes;

 private:
  Writer& Little(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
};

enum class Version { kLegacy, kV1, kV2, kV3 };
constexpr uint32_t kV1Magic = 0xF993fac8, kV2Magic = 0xF993fac9, kV3Magic = 0xF993faca;
constexpr int32_t kCpu = 1, kGpu = 2;

struct TestArray {
  std::vector<int64_t> shape;
  int32_t type_flag = 0;
  std::vector<uint8_t> data;
  int32_t dev_type = kCpu;
  int32_t dev_id = 0;
};

template <typename T>
std::vector<uint8_t> BytesOf(std::initializer_list<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

void WriteShape64(Writer& w, const std::vector<int64_t>& shape) {
  w.I32(static_cast<int32_t>(shape.size()));
  for (int64_t d : shape) w.I64(d);
}

void WriteArray(Writer& w, Version version, const TestArray& a) {
  switch (version) {
    case Version::kV3:
    case Version::kV2:
      w.U32(version == Version::kV3 ? kV3Magic : kV2Magic).I32(0);  // dense storage
      WriteShape64(w, a.shape);
      break;
    case Version::kV1:
      w.U32(kV1Magic);
      WriteShape64(w, a.shape);
      break;
    case Version::kLegacy:
      w.U32(static_cast<uint32_t>(a.shape.size()));
      for (int64_t d : a.shape) w.U32(static_cast<uint32_t>(d));
      break;
  }
  w.I32(a.dev_type).I32(a.dev_id).I32(a.type_flag).Raw(a.data);
}

void WriteHeader(Writer& w) { w.U64(0x112).U64(0); }

void WriteNames(Writer& w, const std::vector<std::string>& names) {
  w.U64(names.size());
  for (const std::string& n : names) w.Text(n);
}

std::vector<uint8_t> MakeFile(Version version, const std::vector<TestArray>& arrays, const std::vector<std::string>& names) {
  Writer w;
  WriteHeader(w);
  w.U64(arrays.size());
  for (const TestArray& a : arrays) WriteArray(w, version, a);
  WriteNames(w, names);
  return w.bytes;
}

std::vector<TestArray> SampleArrays() {
  return {
      {{2, 3}, 0, BytesOf<float>({0.5f, 1, 2, 3, 4, -5.25f})},
      {{3}, 6, BytesOf<int64_t>({1, -2, 1LL << 40})},
      {{2}, 2, BytesOf<uint16_t>({0x3c00, 0xc000})},  // float16 1.0, -2.0
      {{2, 1, 2}, 3, {1, 2, 250, 255}},
  };
}

const std::vector<std::string> kSampleNames = {"arg:w", "aux:count", "arg:half", "arg:bytes"};

NamedArrays Load(const std::vector<uint8_t>& bytes) { return qv::LoadParams(bytes.data(), bytes.size()); }

struct Failure {
  qv::Status status = qv::Status::kOk;
  std::string message;
};

Failure LoadFailure(const std::vector<uint8_t>& bytes) {
  try {
    Load(bytes);
  } catch (const qv::Error& e) {
    return {e.status(), e.what()};
  }
  return {};
}

void RequireError(const std::vector<uint8_t>& bytes, qv::Status status, std::initializer_list<const char*> parts) {
  const Failure f = LoadFailure(bytes);
  INFO("message: " << f.message);
  REQUIRE(f.status == status);
  for (const char* part : parts) CHECK_THAT(f.message, Contains(part));
}

void CheckSample(const NamedArrays& loaded, const std::vector<TestArray>& expected) {
  REQUIRE(loaded.arrays.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const qv::NDArray& a = *loaded.arrays[i];
    INFO("array " << i);
    CHECK(a.shape() == expected[i].shape);
    CHECK(static_cast<int>(a.dtype()) == expected[i].type_flag);
    CHECK(a.device().is_cpu());
    REQUIRE(a.nbytes() == expected[i].data.size());
    CHECK(std::memcmp(a.data(), expected[i].data.data(), a.nbytes()) == 0);
  }
}

// One dense float32 array (V2) of the given shape followed by `data_bytes` bytes and a name.
std::vector<uint8_t> DeclaredShapeFile(const std::vector<int64_t>& shape, size_t data_bytes) {
  Writer w;
  WriteHeader(w);
  w.U64(1).U32(kV2Magic).I32(0);
  WriteShape64(w, shape);
  w.I32(kCpu).I32(0).I32(0).Raw(std::vector<uint8_t>(data_bytes, 0));
  WriteNames(w, {"arg:big"});
  return w.bytes;
}

// A V2 sparse array: storage type, storage shape, shape, context, type flag, aux types and shapes,
// values, aux data; followed by a dense one so that the reader must walk past it.
std::vector<uint8_t> SparseFile(int32_t storage_type) {
  Writer w;
  WriteHeader(w);
  w.U64(2).U32(kV2Magic).I32(storage_type);
  if (storage_type == 1) {  // row_sparse (4, 3) with rows 0 and 2 stored
    WriteShape64(w, {2, 3});
    WriteShape64(w, {4, 3});
    w.I32(kCpu).I32(0).I32(0);
    w.I32(6);
    WriteShape64(w, {2});
    w.Raw(std::vector<uint8_t>(2 * 3 * 4, 0)).Raw(BytesOf<int64_t>({0, 2}));
  } else {  // csr (2, 2) with 3 values
    WriteShape64(w, {3});
    WriteShape64(w, {2, 2});
    w.I32(kCpu).I32(0).I32(0);
    w.I32(6);
    WriteShape64(w, {3});
    w.I32(6);
    WriteShape64(w, {3});
    w.Raw(std::vector<uint8_t>(3 * 4, 0)).Raw(BytesOf<int64_t>({0, 2, 3})).Raw(BytesOf<int64_t>({0, 1, 1}));
  }
  WriteArray(w, Version::kV2, SampleArrays()[0]);
  WriteNames(w, {"arg:embedding", "arg:dense"});
  return w.bytes;
}

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("quiver_params_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

bool StartsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

TEST_CASE("params: every format version round-trips", "[graph]") {
  const std::vector<TestArray> arrays = SampleArrays();
  for (Version v : {Version::kLegacy, Version::kV1, Version::kV2, Version::kV3}) {
    INFO("version " << static_cast<int>(v));
    const NamedArrays named = Load(MakeFile(v, arrays, kSampleNames));
    CheckSample(named, arrays);
    CHECK(named.names == kSampleNames);

    const NamedArrays unnamed = Load(MakeFile(v, arrays, {}));  // mx.nd.save of a list
    CheckSample(unnamed, arrays);
    CHECK(unnamed.names.empty());
  }
}

// Written by MXNet 1.9.1: mx.nd.save(f, {'arg:w': [[1.5, -2, 3.25]] float32, 'aux:n': [7, -1] int64}).
const char kMxnetV2[] =
    "\x12\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"
    "\xc9\xfa\x93\xf9\x00\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00"
    "\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc0\x3f\x00\x00\x00\xc0"
    "\x00\x00\x50\x40\xc9\xfa\x93\xf9\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"
    "\x01\x00\x00\x00\x00\x00\x00\x00\x06\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff"
    "\xff\xff\xff\xff\x02\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x61\x72\x67\x3a"
    "\x77\x05\x00\x00\x00\x00\x00\x00\x00\x61\x75\x78\x3a\x6e";
// Written by MXNet 1.9.1 with numpy semantics: npx.save(f, {'s': np.array(2.5), 'h': [1, 2] float16}).
const char kMxnetV3[] =
    "\x12\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"
    "\xca\xfa\x93\xf9\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x20\x40\xca\xfa\x93\xf9\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"
    "\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x3c\x00\x40\x02\x00\x00\x00\x00\x00\x00\x00"
    "\x01\x00\x00\x00\x00\x00\x00\x00\x73\x01\x00\x00\x00\x00\x00\x00\x00\x68";

TEST_CASE("params: bytes written by MXNet 1.9.1 itself", "[graph]") {
  const NamedArrays v2 = qv::LoadParams(kMxnetV2, sizeof(kMxnetV2) - 1);
  REQUIRE(v2.names == std::vector<std::string>{"arg:w", "aux:n"});
  CHECK(v2.arrays[0]->shape() == qv::Shape{1, 3});
  CHECK(v2.arrays[0]->data_as<float>()[2] == 3.25f);
  CHECK(v2.arrays[1]->dtype() == qv::DType::kInt64);
  CHECK(v2.arrays[1]->data_as<int64_t>()[1] == -1);

  const NamedArrays v3 = qv::LoadParams(kMxnetV3, sizeof(kMxnetV3) - 1);
  REQUIRE(v3.names == std::vector<std::string>{"s", "h"});
  CHECK(v3.arrays[0]->shape().empty());
  CHECK(v3.arrays[0]->data_as<float>()[0] == 2.5f);
  CHECK(v3.arrays[1]->dtype() == qv::DType::kFloat16);
  CHECK(v3.arrays[1]->data_as<uint16_t>()[1] == 0x4000);  // float16 2.0
}

TEST_CASE("params: an empty list and zero-size arrays", "[graph]") {
  const NamedArrays none = Load(MakeFile(Version::kV2, {}, {}));
  CHECK(none.arrays.empty());
  CHECK(none.names.empty());

  const NamedArrays zero = Load(MakeFile(Version::kV3, {{{0, 4}, 0, {}}}, {"z"}));
  REQUIRE(zero.arrays.size() == 1);
  CHECK(zero.arrays[0]->shape() == qv::Shape{0, 4});
  CHECK(zero.arrays[0]->nbytes() == 0);
}

TEST_CASE("params: a V3 (numpy semantics) scalar has shape ()", "[graph]") {
  const NamedArrays loaded = Load(MakeFile(Version::kV3, {{{}, 0, BytesOf<float>({3.5f})}}, {"s"}));
  REQUIRE(loaded.arrays.size() == 1);
  CHECK(loaded.arrays[0]->shape().empty());
  CHECK(loaded.arrays[0]->data_as<float>()[0] == 3.5f);
}

TEST_CASE("params: arrays saved from a GPU load onto the CPU", "[graph]") {
  TestArray a = SampleArrays()[0];
  a.dev_type = kGpu;
  a.dev_id = 3;
  const NamedArrays loaded = Load(MakeFile(Version::kV2, {a}, {"arg:w"}));
  CheckSample(loaded, {a});
  CHECK(loaded.arrays[0]->device() == qv::Device{});

  a.dev_type = 9;
  RequireError(MakeFile(Version::kV2, {a}, {"arg:w"}), qv::Status::kParse, {"array 0", "offset", "device type 9"});
}

TEST_CASE("params: truncation at every byte offset fails cleanly", "[graph]") {
  for (Version v : {Version::kLegacy, Version::kV1, Version::kV2, Version::kV3}) {
    const std::vector<uint8_t> file = MakeFile(v, SampleArrays(), kSampleNames);
    for (size_t n = 0; n < file.size(); ++n) {
      const std::vector<uint8_t> prefix(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
      const Failure f = LoadFailure(prefix);
      INFO("version " << static_cast<int>(v) << ", " << n << " of " << file.size() << " bytes: " << f.message);
      REQUIRE(f.status == qv::Status::kParse);
      CHECK_THAT(f.message, Contains("offset"));
    }
  }
  RequireError({}, qv::Status::kParse, {"offset 0", "truncated"});
  CHECK_THROWS_AS(qv::LoadParams(nullptr, 0), qv::Error);
}

TEST_CASE("params: trailing bytes are rejected", "[graph]") {
  std::vector<uint8_t> file = MakeFile(Version::kV2, SampleArrays(), kSampleNames);
  const size_t end = file.size();
  file.push_back(0);
  RequireError(file, qv::Status::kParse, {"1 unexpected bytes", ("offset " + std::to_string(end)).c_str()});
}

TEST_CASE("params: wrong magic and other file types", "[graph]") {
  std::vector<uint8_t> file = MakeFile(Version::kV2, SampleArrays(), kSampleNames);
  file[0] = 0x13;
  RequireError(file, qv::Status::kParse, {"offset 0", "0x112", "0x113", "not an MXNet .params file"});

  const std::string json = "{\"nodes\": []}";
  RequireError(std::vector<uint8_t>(json.begin(), json.end()), qv::Status::kParse, {"offset 0", "0x112"});

  const std::vector<uint8_t> zip = {'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0, 0, 0};
  RequireError(zip, qv::Status::kUnsupported, {"zip", "npz"});
}

TEST_CASE("params: absurd shapes are caught before any allocation", "[graph]") {
  // Header 16, count 8, magic 4, storage type 4, ndim 4, one dim 8, context 8, type flag 4.
  const std::string data_offset = "offset " + std::to_string(16 + 8 + 4 + 4 + 4 + 8 + 8 + 4);
  RequireError(DeclaredShapeFile({int64_t{1} << 40}, 100), qv::Status::kParse,
               {"array 0", data_offset.c_str(), "1099511627776 elements", "4398046511104 bytes",
                "only 123 bytes remain"});  // 100 bytes of data + the name vector
  RequireError(DeclaredShapeFile({int64_t{1} << 40, int64_t{1} << 40}, 100), qv::Status::kParse,
               {"array 0", "too large"});
  RequireError(DeclaredShapeFile({3, -1}, 100), qv::Status::kParse, {"array 0", "negative dimension"});

  Writer huge_ndim;
  WriteHeader(huge_ndim);
  huge_ndim.U64(1).U32(kV2Magic).I32(0).I32(0x7fffffff).I64(1);
  RequireError(huge_ndim.bytes, qv::Status::kParse, {"array 0", "2147483647 dimensions", "truncated"});

  Writer negative_ndim;
  WriteHeader(negative_ndim);
  negative_ndim.U64(1).U32(kV2Magic).I32(0).I32(-5);
  RequireError(negative_ndim.bytes, qv::Status::kParse, {"array 0", "negative ndim -5"});

  Writer many_arrays;
  WriteHeader(many_arrays);
  many_arrays.U64(uint64_t{1} << 60).U64(0);
  RequireError(many_arrays.bytes, qv::Status::kParse, {"offset 16", "1152921504606846976 arrays"});

  Writer bogus_magic;  // not a magic, so read as a pre-0.9 ndim
  WriteHeader(bogus_magic);
  bogus_magic.U64(1).U32(0xdeadbeef).U64(0);
  RequireError(bogus_magic.bytes, qv::Status::kParse, {"array 0", "offset 24", "0xdeadbeef", "not an array magic"});
}

TEST_CASE("params: shapeless (none) arrays are unsupported", "[graph]") {
  Writer v2;
  WriteHeader(v2);
  v2.U64(1).U32(kV2Magic).I32(0).I32(0);  // ndim 0 ends a V2 array
  WriteNames(v2, {"arg:empty"});
  RequireError(v2.bytes, qv::Status::kUnsupported, {"array 0, offset 24", "without a shape"});

  Writer v3;
  WriteHeader(v3);
  v3.U64(1).U32(kV3Magic).I32(0).I32(-1);  // unknown ndim ends a V3 array
  WriteNames(v3, {});
  RequireError(v3.bytes, qv::Status::kUnsupported, {"array 0, offset 24", "without a shape"});

  Writer legacy;
  WriteHeader(legacy);
  legacy.U64(1).U32(0);  // before 0.9: ndim 0 and nothing else
  WriteNames(legacy, {});
  RequireError(legacy.bytes, qv::Status::kUnsupported, {"array 0, offset 24", "without a shape"});
}

TEST_CASE("params: sparse storage is unsupported and named", "[graph]") {
  RequireError(SparseFile(1), qv::Status::kUnsupported, {"array 0 ('arg:embedding')", "row_sparse"});
  RequireError(SparseFile(2), qv::Status::kUnsupported, {"array 0 ('arg:embedding')", "csr"});

  std::vector<uint8_t> unknown = SparseFile(1);
  unknown[28] = 7;  // the storage type field of array 0
  RequireError(unknown, qv::Status::kParse, {"array 0", "offset 28", "unknown storage type 7"});
}

TEST_CASE("params: bfloat16 arrays (MXNet's AMP) load as float32, widened exactly", "[graph]") {
  // 1.0, -2.0, the largest finite bfloat16, its smallest subnormal, -0, +inf, a NaN with a payload.
  const std::vector<uint16_t> stored = {0x3f80, 0xc000, 0x7f7f, 0x0001, 0x8000, 0x7f80, 0x7fc1};
  std::vector<uint8_t> bytes;
  for (uint16_t h : stored) bytes.insert(bytes.end(), {static_cast<uint8_t>(h & 0xff), static_cast<uint8_t>(h >> 8)});
  for (Version v : {Version::kLegacy, Version::kV1, Version::kV2, Version::kV3}) {
    INFO("version " << static_cast<int>(v));
    const TestArray bf = {{7, 1}, 12, bytes};
    const NamedArrays loaded = Load(MakeFile(v, {SampleArrays()[0], bf, SampleArrays()[1]}, {"arg:w", "arg:bf", "aux:n"}));
    REQUIRE(loaded.arrays.size() == 3);
    const qv::NDArray& a = *loaded.arrays[1];
    CHECK(a.dtype() == qv::DType::kFloat32);
    CHECK(a.shape() == std::vector<int64_t>{7, 1});
    REQUIRE(a.nbytes() == 7 * 4);
    for (size_t i = 0; i < stored.size(); ++i) {
      INFO("element " << i);
      CHECK(a.data_as<uint32_t>()[i] == static_cast<uint32_t>(stored[i]) << 16);
    }
    CHECK(a.data_as<float>()[0] == 1.f);
    CHECK(a.data_as<float>()[1] == -2.f);
    // The arrays around it are read from the right offsets.
    CheckSample({{loaded.arrays[0]}, {}}, {SampleArrays()[0]});
    CheckSample({{loaded.arrays[2]}, {}}, {SampleArrays()[1]});
  }
}

TEST_CASE("params: a truncated or oversized bfloat16 array fails cleanly", "[graph]") {
  const TestArray bf = {{3, 2}, 12, BytesOf<uint16_t>({0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0})};
  const std::vector<uint8_t> file = MakeFile(Version::kV2, {bf}, {"arg:bf"});
  // Header 16, count 8, magic 4, storage type 4, ndim 4, two dims 16, context 8, type flag 4: data at 64.
  const size_t data_at = 16 + 8 + 4 + 4 + 4 + 16 + 8 + 4;
  for (size_t n = 0; n < file.size(); ++n) {
    const Failure f = LoadFailure({file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n)});
    INFO(n << " of " << file.size() << " bytes: " << f.message);
    REQUIRE(f.status == qv::Status::kParse);
    CHECK_THAT(f.message, Contains("offset"));
  }
  // Cut inside the data: the message names the array, where its data starts, and the bfloat16 size.
  const std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(data_at + 5));
  RequireError(cut, qv::Status::kParse,
               {"array 0", ("offset " + std::to_string(data_at)).c_str(), "bfloat16", "6 elements (12 bytes)",
                "only 5 bytes remain"});
  // A shape declaring more bfloat16 elements than the file holds is caught before allocation.
  const TestArray huge = {{int64_t{1} << 40}, 12, {0, 0}};
  RequireError(MakeFile(Version::kV2, {huge}, {"arg:bf"}), qv::Status::kParse,
               {"array 0", "bfloat16", "2199023255552 bytes"});
}

TEST_CASE("params: type flags", "[graph]") {
  TestArray a = {{2}, 7, {1, 0}};  // bool
  RequireError(MakeFile(Version::kV2, {a}, {"arg:mask"}), qv::Status::kUnsupported, {"array 0 ('arg:mask')", "bool"});
  a = {{2}, 99, {1, 0}};
  RequireError(MakeFile(Version::kV2, {a}, {"arg:x"}), qv::Status::kParse, {"array 0", "type flag 99"});
  a = {{2}, -1, {1, 0}};
  RequireError(MakeFile(Version::kV1, {a}, {"arg:x"}), qv::Status::kParse, {"array 0", "type flag -1"});
}

TEST_CASE("params: names", "[graph]") {
  const std::vector<TestArray> arrays = SampleArrays();
  RequireError(MakeFile(Version::kV2, arrays, {"a", "b"}), qv::Status::kParse, {"4 arrays but 2 names"});
  RequireError(MakeFile(Version::kV2, {arrays[0]}, {"a", "b"}), qv::Status::kParse, {"1 arrays but 2 names"});

  Writer long_name;
  WriteHeader(long_name);
  long_name.U64(1);
  WriteArray(long_name, Version::kV2, arrays[0]);
  long_name.U64(1).U64(uint64_t{1} << 62);
  RequireError(long_name.bytes, qv::Status::kParse, {"name 0", "name length 4611686018427387904"});

  const std::string utf8 = "caf\xC3\xA9_\xE2\x82\xAC";  // names are kept byte for byte
  CHECK(Load(MakeFile(Version::kV2, {arrays[0]}, {utf8})).names[0] == utf8);
  // Bytes no MXNet writer produces, which C, Java and Python strings cannot carry.
  RequireError(MakeFile(Version::kV2, {arrays[0]}, {std::string("a\0b", 3)}), qv::Status::kParse, {"name 0", "NUL"});
  RequireError(MakeFile(Version::kV2, {arrays[0]}, {"ab\xff"}), qv::Status::kParse, {"name 0", "UTF-8"});
}

TEST_CASE("params: random corruption never crashes", "[graph]") {
  const std::vector<uint8_t> file = MakeFile(Version::kV2, SampleArrays(), kSampleNames);
  std::mt19937 rng(1234);
  size_t loaded = 0, rejected = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<uint8_t> bytes = file;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    try {
      Load(bytes);
      ++loaded;
    } catch (const qv::Error& err) {
      INFO(err.what());
      CHECK((err.status() == qv::Status::kParse || err.status() == qv::Status::kUnsupported));
      ++rejected;
    }
  }
  CHECK(rejected > 0);
  CHECK(loaded + rejected == 4000);
}

TEST_CASE("params: loading from a file", "[graph]") {
  TempDir dir;
  const std::vector<uint8_t> bytes = MakeFile(Version::kV2, SampleArrays(), kSampleNames);
  const std::string good = (dir.path / "good.params").string();
  std::ofstream(good, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  CheckSample(qv::LoadParamsFile(good), SampleArrays());

  const std::string bad = (dir.path / "bad.params").string();
  std::ofstream(bad, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), 30);
  try {
    qv::LoadParamsFile(bad);
    FAIL("expected an error");
  } catch (const qv::Error& e) {
    CHECK(e.status() == qv::Status::kParse);
    CHECK_THAT(e.what(), Contains(bad) && Contains("offset 16"));
  }

  for (const std::string& path : {(dir.path / "absent.params").string(), dir.path.string()}) {
    try {
      qv::LoadParamsFile(path);
      FAIL("expected an error for " << path);
    } catch (const qv::Error& e) {
      CHECK(e.status() == qv::Status::kNotFound);
      CHECK_THAT(e.what(), Contains(path));
    }
  }
}

TEST_CASE("params: the fixture models exported by MXNet 1.9.1", "[graph]") {
  const char* env = std::getenv("QUIVER_FIXTURES_DIR");
  const fs::path dir = env && *env ? env : QUIVER_FIXTURES_DIR;
  const fs::path manifest_path = dir / "manifest.json";
  if (!fs::exists(manifest_path)) {
    WARN("not run: no MXNet fixtures (" << manifest_path.string() << " is missing; scripts/make_fixtures.sh creates them)");
    SUCCEED("fixtures missing");
    return;
  }
  const nlohmann::json manifest = nlohmann::json::parse(std::ifstream(manifest_path));
  REQUIRE(manifest.at("models").contains("resnet18_v1"));
  for (const auto& [model, entry] : manifest.at("models").items()) {
    const std::string layout = entry.value("layout", "?");
    INFO("model " << model << " (layout " << layout << ")");
    const NamedArrays loaded = qv::LoadParamsFile((dir / entry.at("params_file").get<std::string>()).string());
    REQUIRE(loaded.names.size() == loaded.arrays.size());

    // Every stored parameter is "arg:"/"aux:" + the name of a variable in the symbol; files in the
    // v0.8 layout leave BatchNorm's aux states out of the symbol, as MXNet 0.8 did.
    const qv::Graph graph = qv::LoadSymbolJsonFile((dir / entry.at("symbol_file").get<std::string>()).string());
    std::vector<std::string> variables;
    for (const qv::Node& n : graph.nodes)
      if (n.is_variable()) variables.push_back(n.name);
    for (const std::string& name : loaded.names) {
      INFO(name);
      REQUIRE((StartsWith(name, "arg:") || StartsWith(name, "aux:")));
      if (StartsWith(name, "aux:") && layout == "legacy-v0.8") continue;
      CHECK(std::find(variables.begin(), variables.end(), name.substr(4)) != variables.end());
    }
    if (model != "resnet18_v1") continue;
    CHECK(loaded.arrays.size() == 102);
    bool found_stem_conv = false;
    for (size_t i = 0; i < loaded.names.size(); ++i) {
      const std::string& name = loaded.names[i];
      const std::string suffix = "_conv0_weight";
      if (!StartsWith(name, "arg:resnetv1") || name.find("stage") != std::string::npos || name.size() <= suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      found_stem_conv = true;
      CHECK(loaded.arrays[i]->shape() == qv::Shape{64, 3, 7, 7});
      CHECK(loaded.arrays[i]->dtype() == qv::DType::kFloat32);
    }
    CHECK(found_stem_conv);
  }
}
