// QvCachedOpDescribe: the nodes an op runs after the inference passes, each with the file's nodes
// fused into it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quiver/c_api.h"
#include "support/tiny_model.h"

using namespace quiver_test;

namespace {

std::vector<std::string> Fused(const nlohmann::json& node) {
  std::vector<std::string> fused;
  for (const auto& f : node.at("fused"))
    fused.push_back(f.at("op").get<std::string>() + " " + f.at("name").get<std::string>());
  return fused;
}

}  // namespace

TEST_CASE("QvCachedOpDescribe lists the nodes the op runs and what was fused into each", "[capi]") {
  // conv0 -> bn0 -> relu0 -> conv1 -> bn1 -> add0 (+ relu0) -> relu1 -> pool0 -> flatten0 -> fc0 -> softmax0
  const QvCachedOpHandle op = CreateTinyModel(/*thread_safe=*/1);
  const char* json = nullptr;
  REQUIRE(QvCachedOpDescribe(op, &json) == QV_OK);
  const auto nodes = nlohmann::json::parse(json).at("nodes");

  std::vector<std::string> names;
  for (const auto& node : nodes) names.push_back(node.at("name").get<std::string>());
  REQUIRE(names == std::vector<std::string>{"conv0", "conv1", "pool0", "flatten0", "fc0", "softmax0"});
  CHECK(nodes[0].at("op") == "Convolution");
  CHECK(Fused(nodes[0]) == std::vector<std::string>{"BatchNorm bn0", "Activation relu0"});
  CHECK(Fused(nodes[1]) == std::vector<std::string>{"BatchNorm bn1", "elemwise_add add0", "relu relu1"});
  for (size_t i = 2; i < nodes.size(); ++i) CHECK(Fused(nodes[i]).empty());

  // The string is the op's: the same pointer on every call, readable until the op is freed.
  const char* again = nullptr;
  REQUIRE(QvCachedOpDescribe(op, &again) == QV_OK);
  CHECK(again == json);
  FreeTinyModel(op);
}
