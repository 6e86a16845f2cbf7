// QvListCachedOpFlags: the table the flags are parsed with, as the bindings and the `quiver` command
// read it. Every listed flag is accepted with its listed default, and a flag it does not list is refused
// naming the listed ones.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/tiny_model.h"

using namespace quiver_test;

TEST_CASE("QvListCachedOpFlags lists every flag, each accepted with its default", "[capi][flags]") {
  const char* text = nullptr;
  REQUIRE(QvListCachedOpFlags(&text) == QV_OK);
  REQUIRE(text != nullptr);
  const nlohmann::json flags = nlohmann::json::parse(text);
  REQUIRE(flags.is_array());
  std::vector<std::string> names;
  for (const auto& flag : flags) {
    const std::string name = flag.at("name"), value = flag.at("default"), help = flag.at("help");
    INFO(name << " = '" << value << "'");
    CHECK_FALSE(help.empty());
    names.push_back(name);
    QvCachedOpHandle op = CreateTinyModel(1, {{name, value}});
    CHECK(op != nullptr);
    FreeTinyModel(op);
  }
  for (const char* expected : {"device", "precision", "max_batch_size", "cuda_graphs", "max_plans"})
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());

  // The refusal of an unknown flag names the same list.
  TinyParams params = MakeTinyParams();
  QvCachedOpHandle op = nullptr;
  CHECK(TryCreateCachedOp(TinyModelJson(), params, {{"no_such_flag", "1"}}, 1, &op) == QV_ERR_INVALID_ARGUMENT);
  CHECK(op == nullptr);
  const std::string message = QvGetLastError();
  for (const std::string& name : names) CHECK(message.find(name) != std::string::npos);

  CHECK(QvListCachedOpFlags(nullptr) == QV_ERR_INVALID_ARGUMENT);
}
