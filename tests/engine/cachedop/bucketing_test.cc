// Bucketing (cachedop/bucketing.h): the block copy, the flags, and a bucketed op against the same op
// run unpadded, alone and in dynamic batches.
#include "cachedop/bucketing.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>

#include "cachedop/cached_op.h"
#include "common/error.h"
#include "graph/symbol_json.h"

using namespace qv;

namespace {

// tokens (N, T) -> Embedding (N, T, 4) -> masked beyond each row's valid length -> summed over T (N, 4):
// padding the tokens changes neither output's real part.
const char* kMaskedSum = R"json({
  "nodes": [
    {"op": "null", "name": "tokens", "inputs": []},
    {"op": "null", "name": "valid_length", "inputs": []},
    {"op": "null", "name": "embed_weight", "inputs": []},
    {"op": "Embedding", "name": "embed", "attrs": {"input_dim": "10", "output_dim": "4"},
     "inputs": [[0, 0, 0], [2, 0, 0]]},
    {"op": "SequenceMask", "name": "mask", "attrs": {"use_sequence_length": "True", "axis": "1"},
     "inputs": [[3, 0, 0], [1, 0, 0]]},
    {"op": "sum", "name": "pooled", "attrs": {"axis": "1"}, "inputs": [[4, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2],
  "heads": [[3, 0, 0], [5, 0, 0]]
})json";

// a + b, both (N, T).
const char* kAdd = R"json({
  "nodes": [
    {"op": "null", "name": "a", "inputs": []},
    {"op": "null", "name": "b", "inputs": []},
    {"op": "elemwise_add", "name": "sum", "inputs": [[0, 0, 0], [1, 0, 0]]}
  ],
  "arg_nodes": [0, 1],
  "heads": [[2, 0, 0]]
})json";

std::shared_ptr<CachedOp> MaskedSum(const std::vector<std::pair<std::string, std::string>>& flags) {
  NDArrayPtr w = NDArray::Create({10, 4}, DType::kFloat32);
  for (int64_t i = 0; i < w->size(); ++i) w->data_as<float>()[i] = std::sin(0.7f * static_cast<float>(i));
  return CachedOp::Create(ParseSymbolJson(kMaskedSum), {{"embed_weight", w}}, CachedOpOptions::Parse(flags, true));
}

struct SequenceBatch {
  NDArrayPtr tokens, valid_length;
};

SequenceBatch RandomBatch(int64_t rows, int64_t length, unsigned seed) {
  std::mt19937 rng(seed);
  SequenceBatch b{NDArray::Create({rows, length}, DType::kFloat32), NDArray::Create({rows}, DType::kFloat32)};
  for (int64_t i = 0; i < b.tokens->size(); ++i) b.tokens->data_as<float>()[i] = static_cast<float>(rng() % 10);
  for (int64_t r = 0; r < rows; ++r) b.valid_length->data_as<float>()[r] = static_cast<float>(1 + rng() % length);
  return b;
}

std::vector<NDArrayPtr> Run(CachedOp& op, const SequenceBatch& b) {
  std::vector<NDArrayPtr> outputs;
  op.Invoke({b.tokens, b.valid_length}, &outputs);
  for (const auto& o : outputs) REQUIRE(Engine::Get().WaitToRead(o->var()).ok());
  return outputs;
}

std::vector<float> Values(const NDArrayPtr& a) {
  return std::vector<float>(a->data_as<float>(), a->data_as<float>() + a->size());
}

void RequireNear(const NDArrayPtr& got, const NDArrayPtr& want) {
  REQUIRE(got->shape() == want->shape());
  for (int64_t i = 0; i < got->size(); ++i)
    REQUIRE(std::abs(got->data_as<float>()[i] - want->data_as<float>()[i]) <= 1e-6f);
}

template <typename F>
Error Thrown(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("nothing was thrown");
  return Error(Status::kInternal, "");
}

}  // namespace

TEST_CASE("CopySharedBlock pads into a bigger array and cuts a bigger one down", "[bucketing]") {
  std::vector<float> small(2 * 3 * 2);
  std::iota(small.begin(), small.end(), 1.f);
  std::vector<float> big(2 * 5 * 2, -1.f);
  CopySharedBlock(small.data(), {2, 3, 2}, big.data(), {2, 5, 2}, sizeof(float));
  REQUIRE(big == std::vector<float>{1, 2, 3, 4, 5, 6, -1, -1, -1, -1, 7, 8, 9, 10, 11, 12, -1, -1, -1, -1});
  std::vector<float> back(small.size(), 0.f);
  CopySharedBlock(big.data(), {2, 5, 2}, back.data(), {2, 3, 2}, sizeof(float));
  REQUIRE(back == small);
  float scalar = 0.f, one = 7.f;
  CopySharedBlock(&one, {}, &scalar, {}, sizeof(float));
  REQUIRE(scalar == 7.f);
}

TEST_CASE("flag buckets parses lengths in any order; a longer request has no bucket", "[bucketing]") {
  BucketOptions b;
  b.lengths = BucketOptions::ParseLengths("64,16,32,16");
  REQUIRE(b.lengths == std::vector<int64_t>{16, 32, 64});
  REQUIRE(b.BucketFor(1, "x") == 16);
  REQUIRE(b.BucketFor(32, "x") == 32);
  REQUIRE(b.BucketFor(33, "x") == 64);
  const Error longer = Thrown([&] { b.BucketFor(65, "input 'tokens'"); });
  REQUIRE(longer.status() == Status::kShape);
  REQUIRE(std::string(longer.what()).find("input 'tokens' has length 65 on axis 1") != std::string::npos);
  REQUIRE(std::string(longer.what()).find("largest bucket (64)") != std::string::npos);
  REQUIRE(BucketOptions::ParseLengths("").empty());
  for (const char* bad : {"16,", ",", "0", "a,16", "1.5"})
    REQUIRE(Thrown([&] { BucketOptions::ParseLengths(bad); }).status() == Status::kInvalidArgument);
  const Error with_static = Thrown([] { CachedOpOptions::Parse({{"buckets", "8"}, {"static_shape", "true"}}, true); });
  REQUIRE(with_static.status() == Status::kInvalidArgument);
  const Error batch_axis = Thrown(
      [] { CachedOpOptions::Parse({{"buckets", "8"}, {"bucket_axis", "0"}, {"max_batch_size", "4"}}, true); });
  REQUIRE(batch_axis.status() == Status::kInvalidArgument);
  REQUIRE(std::string(batch_axis.what()).find("bucket_axis") != std::string::npos);
}

TEST_CASE("a bucketed op gives every length the unpadded outputs and compiles plans per bucket only",
          "[bucketing]") {
  auto bucketed = MaskedSum({{"buckets", "4,8"}});
  auto exact = MaskedSum({});
  for (int64_t length = 1; length <= 8; ++length) {
    INFO("length " << length);
    const SequenceBatch b = RandomBatch(2, length, static_cast<unsigned>(length));
    const auto got = Run(*bucketed, b), want = Run(*exact, b);
    REQUIRE(got[0]->shape() == Shape{2, length, 4});
    REQUIRE(Values(got[0]) == Values(want[0]));  // the embeddings of the real positions, as they are
    RequireNear(got[1], want[1]);                // sums over zeros added
  }
  REQUIRE(bucketed->statistics().counts.plans_compiled == 2);
  REQUIRE(exact->statistics().counts.plans_compiled == 8);

  // data_shapes compiles the buckets' plans at creation: none is compiled later.
  auto warm = MaskedSum({{"buckets", "4,8"}, {"data_shapes", "tokens:(2,3);valid_length:(2)"}});
  REQUIRE(warm->statistics().counts.plans_compiled == 2);
  for (int64_t length = 1; length <= 8; ++length) Run(*warm, RandomBatch(2, length, 3));
  REQUIRE(warm->statistics().counts.plans_compiled == 2);

  const Error longer = Thrown([&] { Run(*bucketed, RandomBatch(1, 9, 1)); });
  REQUIRE(longer.status() == Status::kShape);
  REQUIRE(std::string(longer.what()).find("input 'tokens' has length 9") != std::string::npos);
}

TEST_CASE("bucketed requests of different lengths share a dynamic batch", "[bucketing]") {
  auto batched = MaskedSum({{"buckets", "8"}, {"max_batch_size", "4"}, {"batch_timeout_us", "2000000"}});
  auto exact = MaskedSum({});
  std::vector<SequenceBatch> requests;
  std::vector<std::vector<NDArrayPtr>> outputs(4);
  for (int64_t k = 0; k < 4; ++k) {
    requests.push_back(RandomBatch(1, 5 + k, static_cast<unsigned>(10 + k)));
    batched->Invoke({requests[k].tokens, requests[k].valid_length}, &outputs[k]);
  }
  for (int64_t k = 0; k < 4; ++k) {
    for (const auto& o : outputs[k]) REQUIRE(Engine::Get().WaitToRead(o->var()).ok());
    const auto want = Run(*exact, requests[k]);
    REQUIRE(Values(outputs[k][0]) == Values(want[0]));
    RequireNear(outputs[k][1], want[1]);
  }
  const auto counts = batched->statistics().counts;
  REQUIRE(counts.batches == 1);  // four lengths, one bucket: one run of 4 rows
  REQUIRE(counts.batch_rows == 4);
}

TEST_CASE("bucketing refuses inputs of different lengths, and passes failures and cancels on", "[bucketing]") {
  // A request waits in the queue for a second one (max_batch_size 2) until cancelled.
  const auto flags =
      CachedOpOptions::Parse({{"buckets", "8"}, {"max_batch_size", "2"}, {"batch_timeout_us", "2000000"}}, true);
  auto add = CachedOp::Create(ParseSymbolJson(kAdd), {}, flags);
  std::vector<NDArrayPtr> outputs;
  const Error mismatch = Thrown([&] {
    add->Invoke({NDArray::Create({1, 3}, DType::kFloat32), NDArray::Create({1, 4}, DType::kFloat32)}, &outputs);
  });
  REQUIRE(mismatch.status() == Status::kShape);
  REQUIRE(std::string(mismatch.what()).find("input 'a' has length 3 there, input 'b' 4") != std::string::npos);

  // An input whose producer failed fails the caller's outputs with its failure.
  NDArrayPtr failed = NDArray::Create({1, 3}, DType::kFloat32);
  Engine::Get().Push([] { throw Error(Status::kParse, "the input's producer failed"); }, {}, {failed->var()});
  outputs.clear();
  add->Invoke({failed, NDArray::Create({1, 3}, DType::kFloat32)}, &outputs);
  const Failure f = Engine::Get().WaitToRead(outputs[0]->var());
  REQUIRE(f.status == Status::kParse);
  REQUIRE(outputs[0]->shape() == Shape{1, 3});

  // Cancelling through the caller's output cancels the padded run waiting in the queue.
  outputs.clear();
  add->Invoke({NDArray::Create({1, 3}, DType::kFloat32), NDArray::Create({1, 3}, DType::kFloat32)}, &outputs);
  REQUIRE(outputs[0]->producer() != nullptr);
  REQUIRE(outputs[0]->producer()->Cancel());
  REQUIRE(Engine::Get().WaitToRead(outputs[0]->var()).status == Status::kCancelled);
}
