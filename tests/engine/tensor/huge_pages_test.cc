#include "tensor/huge_pages.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "tensor/storage.h"

using namespace qv;

namespace {

bool AlignedTo(const void* p, size_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

// The VmFlags line of the mapping in /proc/self/smaps that holds `p`, or "" if none does.
std::string VmFlagsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool KernelHasTransparentHugePages() {
  return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
}

}  // namespace

TEST_CASE("buffers under a huge page come from the heap, 64-byte aligned", "[storage]") {
  for (size_t bytes : {size_t{1}, size_t{64}, size_t{100000}, kHugePageBytes - 1}) {
    void* p = AllocateLarge(bytes);
    REQUIRE(p != nullptr);
    CHECK(AlignedTo(p, 64));
    std::memset(p, 0x5a, bytes);
    std::free(p);
  }
}

TEST_CASE("buffers of a huge page or more start on a huge-page boundary and ask for huge pages", "[storage]") {
  for (size_t bytes : {kHugePageBytes, 9437184 + size_t{4}}) {  // 9.4 MB: a 512x512x3x3 float32 weight
    void* p = AllocateLarge(bytes);
    REQUIRE(p != nullptr);
    CHECK(AlignedTo(p, kHugePageBytes));
    std::memset(p, 0x5a, bytes);
    CHECK(static_cast<unsigned char*>(p)[bytes - 1] == 0x5a);
    if (KernelHasTransparentHugePages()) {
      // "hg": the mapping was advised MADV_HUGEPAGE (proc(5)); whether the kernel found free huge pages
      // for it at that moment is the kernel's affair.
      const std::string flags = VmFlagsOf(p);
      INFO(flags);
      CHECK(flags.find(" hg") != std::string::npos);
    } else {
      WARN("huge-page advice not checked: this kernel has no transparent huge pages");
    }
    std::free(p);
  }
}

TEST_CASE("large storages are huge-page buffers, zero-filled like any other", "[storage]") {
  const auto storage = Storage::Allocate(3 * kHugePageBytes);
  REQUIRE(storage->data() != nullptr);
  CHECK(AlignedTo(storage->data(), kHugePageBytes));
  const auto* bytes = static_cast<const unsigned char*>(storage->data());
  CHECK(bytes[0] == 0);
  CHECK(bytes[3 * kHugePageBytes - 1] == 0);
}
