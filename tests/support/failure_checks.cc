#include "support/failure_checks.h"

#include <cstring>

namespace quiver_test {
namespace {

constexpr const char* kPrimerPath = "/nonexistent-quiver-dir/quiver-primer-marker.json";

class ParamsWriter {
 public:
  void U32(uint32_t v) { Raw(&v, 4); }
  void I32(int32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void I64(int64_t v) { Raw(&v, 8); }
  void Raw(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace

void PrimeLastError() {
  QvSymbolHandle sym = nullptr;
  REQUIRE(QvSymbolCreateFromFile(kPrimerPath, &sym) == QV_ERR_NOT_FOUND);
  REQUIRE(ContainsNoCase(QvGetLastError(), "quiver-primer-marker"));
}

void CheckFailure(int got, std::initializer_list<int> allowed, std::initializer_list<const char*> parts) {
  const std::string message = QvGetLastError();
  INFO("status " << StatusName(got) << ", message: \"" << message << "\"");
  bool status_ok = false;
  for (int s : allowed) status_ok = status_ok || got == s;
  if (!status_ok) {
    std::string wanted;
    for (int s : allowed) wanted += std::string(wanted.empty() ? "" : " or ") + StatusName(s);
    FAIL_CHECK("expected " << wanted);
    return;
  }
  CHECK_FALSE(message.empty());
  CHECK_FALSE(ContainsNoCase(message, "quiver-primer-marker"));
  for (const char* part : parts) {
    INFO("message should mention \"" << part << "\"");
    CHECK(ContainsNoCase(message, part));
  }
}

LoadedModel::LoadedModel(const Flags& flags) {
  op = CreateTinyModel(1, flags);
  input = MakeRandomArray({1, 3, 16, 16}, 11);
  expected = RunSync(op, input);
  REQUIRE(expected.size() == static_cast<size_t>(kTinyClasses));
}

LoadedModel::~LoadedModel() {
  if (input) QvNDArrayFree(input);
  FreeTinyModel(op);
}

void LoadedModel::CheckStillWorks() const {
  const std::vector<float> again = RunSync(op, input);
  REQUIRE(again.size() == expected.size());
  CHECK(std::memcmp(again.data(), expected.data(), again.size() * sizeof(float)) == 0);
}

std::string ParamsBytes(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& data,
                        uint64_t list_magic, int32_t type_flag) {
  ParamsWriter w;
  w.U64(list_magic);
  w.U64(0);
  w.U64(1);
  w.U32(0xF993fac9);  // V2 array
  w.I32(0);           // dense
  w.I32(static_cast<int32_t>(shape.size()));
  for (int64_t d : shape) w.I64(d);
  w.I32(1);  // cpu
  w.I32(0);
  w.I32(type_flag);
  w.Raw(data.data(), data.size() * sizeof(float));
  w.U64(1);
  w.U64(name.size());
  w.Raw(name.data(), name.size());
  return w.bytes();
}

}  // namespace quiver_test
