// Checks for calls that must fail through the public C API: the status, and a fresh QvGetLastError
// message naming the problem; plus a loaded model that proves failed calls left the runtime working.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/tiny_model.h"

namespace quiver_test {

// Sets a message no check looks for, so that a message left over from an earlier failure cannot pass
// for the new one.
void PrimeLastError();

// Checks a failed call's status and that its fresh message contains each of `parts` (any case).
void CheckFailure(int got, std::initializer_list<int> allowed, std::initializer_list<const char*> parts);

#define EXPECT_QV_FAILURE(call, allowed, ...)                   \
  do {                                                          \
    quiver_test::PrimeLastError();                              \
    INFO("call: " #call);                                       \
    const int status_ = (call);                                 \
    quiver_test::CheckFailure(status_, allowed, {__VA_ARGS__}); \
  } while (0)

#define STATUSES(...) (std::initializer_list<int>{__VA_ARGS__})

// The tiny model with one input and its output, to prove that bad calls leave it working.
struct LoadedModel {
  QvCachedOpHandle op = nullptr;
  QvNDArrayHandle input = nullptr;
  std::vector<float> expected;

  explicit LoadedModel(const Flags& flags = {});
  ~LoadedModel();
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  // Runs the model again and requires the same result, bit for bit.
  void CheckStillWorks() const;
};

// MXNet's NDArray-list bytes for one named dense V2 array.
std::string ParamsBytes(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& data,
                        uint64_t list_magic = 0x112, int32_t type_flag = 0);

}  // namespace quiver_test
