#include "backends/cpu/runtime/constant_cache.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace qv;
using namespace qv::cpu;
using dnnl::memory;

namespace {

ConstantPtr Iota(const Shape& shape) {
  NDArrayPtr a = NDArray::Create(shape, DType::kFloat32);
  for (int64_t i = 0; i < a->size(); ++i) a->data_as<float>()[i] = static_cast<float>(i);
  return std::make_shared<const Constant>(a);
}

bool SameFloats(const void* a, const Constant& expected) {
  return std::memcmp(a, expected.data(), expected.plain().nbytes()) == 0;
}

}  // namespace

TEST_CASE("a parameter is reordered once per layout and repacked into that layout", "[cpu][constants]") {
  const ConstantPtr weight = Iota({16, 8, 3, 3});
  const Desc plain(ToDims(weight->type().shape), memory::data_type::f32, memory::format_tag::oihw);
  const Desc blocked(ToDims(weight->type().shape), memory::data_type::f32, memory::format_tag::OIhw8i8o);
  ConstantCache cache;

  auto first = cache.Get(weight, plain, blocked);
  REQUIRE(cache.Get(weight, plain, blocked) == first);  // reordered once
  REQUIRE_FALSE(SameFloats(first.get(), *weight));      // really another layout

  const ConstantPtr repacked = cache.Repack(weight);
  REQUIRE(repacked != weight);
  REQUIRE(repacked->data() == first.get());  // the packed copy is now the parameter: held once
  REQUIRE(repacked->type().shape == weight->type().shape);
  // Its type says it is packed, in which layout: no kernel can read it as row-major.
  REQUIRE(repacked->is_packed());
  REQUIRE(DescOf(*repacked->layout()) == blocked);
  REQUIRE_THROWS_AS(repacked->plain(), Error);
  REQUIRE(cache.Get(repacked, plain, blocked).get() == repacked->data());
  REQUIRE(cache.Repack(repacked) == repacked);

  // A later plan wanting the plain layout, or a 2-D view of it, gets the original values back.
  REQUIRE(SameFloats(cache.Get(repacked, plain, plain).get(), *weight));
  const Desc flat({16, 72}, memory::data_type::f32, memory::format_tag::ab);
  REQUIRE(SameFloats(cache.Get(repacked, flat, flat).get(), *weight));
}

TEST_CASE("a parameter wanted in two layouts keeps its plain copy", "[cpu][constants]") {
  const ConstantPtr weight = Iota({16, 8, 3, 3});
  const Desc plain(ToDims(weight->type().shape), memory::data_type::f32, memory::format_tag::oihw);
  ConstantCache cache;
  cache.Get(weight, plain, Desc(ToDims(weight->type().shape), memory::data_type::f32, memory::format_tag::OIhw8i8o));
  cache.Get(weight, plain, Desc(ToDims(weight->type().shape), memory::data_type::f32, memory::format_tag::OIhw16i16o));
  REQUIRE(cache.Repack(weight) == weight);
  REQUIRE_FALSE(weight->is_packed());
}

TEST_CASE("a parameter used in its own layout is not copied", "[cpu][constants]") {
  const ConstantPtr bias = Iota({16});
  const Desc plain({16}, memory::data_type::f32, memory::format_tag::a);
  ConstantCache cache;
  REQUIRE(cache.Get(bias, plain, plain).get() == bias->data());
  REQUIRE(cache.Repack(bias) == bias);
}
