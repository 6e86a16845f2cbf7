#include "graph/symbol_json.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

#include "common/error.h"

using nlohmann::json;
using qv::Graph;
using qv::NodeEntry;
using Catch::Matchers::Contains;

namespace fs = std::filesystem;

namespace {

// A small network as MXNet 1.x writes it: "attrs", [node, index, version] entries, node_row_ptr,
// arg_nodes and the graph's mxnet_version. Node 5 has two outputs, both used.
const char* const kModern = R"json({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "conv0_weight",
     "attrs": {"__shape__": "(8, 3, 3, 3)", "__dtype__": "0", "__lr_mult__": "1.0"}, "inputs": []},
    {"op": "null", "name": "conv0_bias", "attrs": {"__shape__": "(8,)"}, "inputs": []},
    {"op": "Convolution", "name": "conv0",
     "attrs": {"kernel": "(3, 3)", "num_filter": "8", "pad": "(1, 1)"},
     "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
    {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]},
    {"op": "SliceChannel", "name": "split0", "attrs": {"num_outputs": "2"}, "inputs": [[4, 0, 0]]},
    {"op": "elemwise_add", "name": "add0", "inputs": [[5, 0, 0], [5, 1, 0]]}
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 7, 8],
  "heads": [[6, 0, 0], [5, 1, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})json";

// MXNet <= 0.8: parameters under "param", hidden attributes (plain training hints) under "attr",
// [node, index] entries, backward_source_id, no node_row_ptr and no graph attrs.
const char* const kPreNnvm = R"json({
  "nodes": [
    {"op": "null", "param": {}, "name": "data", "inputs": [], "backward_source_id": -1,
     "attr": {"ctx_group": "stage1", "lr_mult": "0.2"}},
    {"op": "null", "param": {}, "name": "fc1_weight", "inputs": [], "backward_source_id": -1,
     "attr": {"wd_mult": "0.3", "weight_lr_mult": "1.2"}},
    {"op": "null", "param": {}, "name": "fc1_bias", "inputs": [], "backward_source_id": -1},
    {"op": "FullyConnected", "param": {"no_bias": "False", "num_hidden": "16"}, "name": "fc1",
     "inputs": [[0, 0], [1, 0], [2, 0]], "backward_source_id": -1, "attr": {"ctx_group": "stage1"}},
    {"op": "Activation", "param": {"act_type": "tanh"}, "name": "tanh1", "inputs": [[3, 0]],
     "backward_source_id": -1}
  ],
  "arg_nodes": [0, 1, 2],
  "heads": [[4, 0]]
})json";

// MXNet 0.9 .. 0.12 (the first nnvm writers): one "attr" dict per node, three-element entries.
const char* const kEarlyNnvm = R"json({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "Pooling", "name": "pool0",
     "attr": {"kernel": "(2, 2)", "pool_type": "max", "stride": "(2, 2)"}, "inputs": [[0, 0, 0]]},
    {"op": "Flatten", "name": "flat0", "inputs": [[1, 0, 0]]}
  ],
  "arg_nodes": [0],
  "node_row_ptr": [0, 1, 2, 3],
  "heads": [[2, 0, 0]],
  "attrs": {"mxnet_version": ["int", 905]}
})json";

struct Failure {
  qv::Status status = qv::Status::kOk;
  std::string message;
};

Failure ParseFailure(const std::string& text) {
  try {
    qv::ParseSymbolJson(text);
  } catch (const qv::Error& e) {
    return {e.status(), e.what()};
  }
  return {};
}

// Parsing `text` must fail with qv::Status::kParse and a message containing every one of `parts`.
void RequireParseError(const std::string& text, std::initializer_list<const char*> parts) {
  const Failure f = ParseFailure(text);
  INFO("message: " << f.message);
  REQUIRE(f.status == qv::Status::kParse);
  for (const char* part : parts) CHECK_THAT(f.message, Contains(part));
}

std::string Modified(const char* base, void (*edit)(json&)) {
  json j = json::parse(base);
  edit(j);
  return j.dump();
}

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("quiver_symbol_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string Write(const std::string& name, const std::string& content) const {
    const fs::path file = path / name;
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }
};

}  // namespace

TEST_CASE("symbol JSON: the MXNet 1.x layout", "[graph]") {
  const Graph g = qv::ParseSymbolJson(kModern);
  REQUIRE(g.nodes.size() == 7);
  CHECK(g.nodes[0].is_variable());
  CHECK(g.nodes[0].name == "data");
  CHECK(g.nodes[1].attrs.at("__shape__") == "(8, 3, 3, 3)");
  CHECK(g.nodes[1].attrs.at("__lr_mult__") == "1.0");
  const qv::Node& conv = g.nodes[3];
  CHECK(conv.op == "Convolution");
  CHECK(conv.name == "conv0");
  CHECK(conv.attrs.size() == 3);
  CHECK(conv.attrs.at("kernel") == "(3, 3)");
  CHECK(conv.attrs.at("num_filter") == "8");
  REQUIRE(conv.inputs.size() == 3);
  CHECK(conv.inputs[1] == NodeEntry{1, 0});
  CHECK(g.nodes[6].inputs[1] == NodeEntry{5, 1});
  CHECK(g.nodes[6].attrs.empty());
  REQUIRE(g.outputs.size() == 2);
  CHECK(g.outputs[0] == NodeEntry{6, 0});
  CHECK(g.outputs[1] == NodeEntry{5, 1});
}

TEST_CASE("symbol JSON: the MXNet <= 0.8 layout (param + attr, two-element entries)", "[graph]") {
  const Graph g = qv::ParseSymbolJson(kPreNnvm);
  REQUIRE(g.nodes.size() == 5);
  const qv::Node& fc = g.nodes[3];
  CHECK(fc.attrs.at("num_hidden") == "16");
  CHECK(fc.attrs.at("no_bias") == "False");
  CHECK(fc.inputs == std::vector<NodeEntry>{{0, 0}, {1, 0}, {2, 0}});
  // Plain training hints become hidden keys, as MXNet's own upgrader does.
  CHECK(fc.attrs.at("__ctx_group__") == "stage1");
  CHECK(fc.attrs.count("ctx_group") == 0);
  CHECK(g.nodes[0].attrs.at("__lr_mult__") == "0.2");
  CHECK(g.nodes[1].attrs.at("__wd_mult__") == "0.3");
  CHECK(g.nodes[1].attrs.at("__weight_lr_mult__") == "1.2");
  CHECK(g.nodes[2].attrs.empty());
  CHECK(g.nodes[4].attrs.at("act_type") == "tanh");
  REQUIRE(g.outputs.size() == 1);
  CHECK(g.outputs[0] == NodeEntry{4, 0});
}

TEST_CASE("symbol JSON: the 0.9 .. 0.12 layout (one attr dict)", "[graph]") {
  const Graph g = qv::ParseSymbolJson(kEarlyNnvm);
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.nodes[1].attrs.at("pool_type") == "max");
  CHECK(g.nodes[1].attrs.at("kernel") == "(2, 2)");
  CHECK(g.nodes[2].inputs == std::vector<NodeEntry>{{1, 0}});
  CHECK(g.outputs == std::vector<NodeEntry>{{2, 0}});
}

TEST_CASE("symbol JSON: optional top-level fields may be missing", "[graph]") {
  const std::string minimal = Modified(kModern, [](json& j) {
    j.erase("arg_nodes");
    j.erase("node_row_ptr");
    j.erase("attrs");
    j["nodes"][0].erase("inputs");
  });
  const Graph g = qv::ParseSymbolJson(minimal);
  CHECK(g.nodes.size() == 7);
  CHECK(g.nodes[0].inputs.empty());
  CHECK(g.outputs.size() == 2);
}

TEST_CASE("symbol JSON: param, attr and attrs merge, newest layout winning", "[graph]") {
  const std::string text = R"json({"nodes": [{"op": "null", "name": "x",
      "param": {"a": "param", "b": "param", "c": "param"},
      "attr": {"b": "attr", "c": "attr"},
      "attrs": {"c": "attrs", "d": "attrs"}}], "heads": [[0, 0]]})json";
  const Graph g = qv::ParseSymbolJson(text);
  const auto& attrs = g.nodes[0].attrs;
  CHECK(attrs.at("a") == "param");
  CHECK(attrs.at("b") == "attr");
  CHECK(attrs.at("c") == "attrs");
  CHECK(attrs.at("d") == "attrs");
}

TEST_CASE("symbol JSON: non-string attribute values take MXNet's string forms", "[graph]") {
  const std::string text = R"json({"nodes": [{"op": "null", "name": "data"},
      {"op": "Convolution", "name": "c", "inputs": [[0, 0]],
       "attrs": {"num_filter": 8, "no_bias": true, "cudnn_off": false, "eps": 0.001, "workspace": null,
                 "kernel": [3, 3], "stride": [2], "pad": [], "layout": "NCHW", "slope": -2}}],
      "heads": [[1, 0]]})json";
  const Graph g = qv::ParseSymbolJson(text);
  const auto& attrs = g.nodes[1].attrs;
  CHECK(attrs.at("num_filter") == "8");
  CHECK(attrs.at("no_bias") == "True");
  CHECK(attrs.at("cudnn_off") == "False");
  CHECK(attrs.at("eps") == "0.001");
  CHECK(attrs.at("workspace") == "None");
  CHECK(attrs.at("kernel") == "(3, 3)");
  CHECK(attrs.at("stride") == "(2,)");
  CHECK(attrs.at("pad") == "()");
  CHECK(attrs.at("layout") == "NCHW");
  CHECK(attrs.at("slope") == "-2");

  RequireParseError(R"json({"nodes": [{"op": "null", "name": "w", "attrs": {"__init__": {"a": 1}}}], "heads": [[0, 0]]})json",
                    {"node 0 ('w')", "\"attrs\"", "'__init__'", "object"});
  RequireParseError(R"json({"nodes": [{"op": "null", "name": "w", "attr": {"k": [[1], [2]]}}], "heads": [[0, 0]]})json",
                    {"node 0 ('w')", "\"attr\"", "'k'", "nested"});
  RequireParseError(R"json({"nodes": [{"op": "null", "name": "w", "param": [1, 2]}], "heads": [[0, 0]]})json",
                    {"node 0 ('w')", "\"param\"", "must be an object"});
}

TEST_CASE("symbol JSON: text that is not JSON names the parser position", "[graph]") {
  RequireParseError("", {"not valid JSON", "byte"});
  RequireParseError("{\"nodes\": [", {"not valid JSON", "byte 12"});
  RequireParseError("{\"nodes\": [] garbage", {"not valid JSON", "byte"});
  RequireParseError("{\"nodes\": \"\xff\xfe\"}", {"not valid JSON"});
  RequireParseError("{\"a\": 1e999}", {"not valid JSON"});
}

TEST_CASE("symbol JSON: every proper prefix of a valid file fails cleanly", "[graph]") {
  const std::string text = kModern;
  for (size_t n = 0; n < text.size(); ++n) {
    const Failure f = ParseFailure(text.substr(0, n));
    INFO("prefix of " << n << " bytes: " << f.message);
    REQUIRE(f.status == qv::Status::kParse);
  }
}

TEST_CASE("symbol JSON: top-level structure", "[graph]") {
  RequireParseError("[1, 2]", {"top level must be an object", "array"});
  RequireParseError("42", {"top level must be an object"});
  RequireParseError(R"json({"heads": [[0, 0]]})json", {"no \"nodes\" field"});
  RequireParseError(R"json({"nodes": {"op": "null"}, "heads": [[0, 0]]})json", {"\"nodes\" must be an array", "object"});
  RequireParseError(R"json({"nodes": [{"op": "null", "name": "x"}]})json", {"no \"heads\" field"});
  RequireParseError(R"json({"nodes": [{"op": "null", "name": "x"}], "heads": 0})json", {"\"heads\" must be an array"});
  RequireParseError(R"json({"nodes": [], "heads": [[0, 0]]})json", {"empty", "\"nodes\""});
  RequireParseError(R"json({"nodes": [{"op": "null", "name": "x"}], "heads": []})json", {"no outputs", "\"heads\""});
}

TEST_CASE("symbol JSON: nodes without op or name, or of the wrong type", "[graph]") {
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4].erase("op"); }), {"node 4", "no \"op\" field"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4].erase("name"); }), {"node 4", "no \"name\" field"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4]["op"] = 7; }), {"node 4", "\"op\"", "must be a string"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4]["name"] = nullptr; }),
                    {"node 4", "\"name\"", "must be a string", "null"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][2] = "conv"; }), {"node 2", "must be an object", "string"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][3]["inputs"] = "0"; }),
                    {"node 3 ('conv0')", "\"inputs\" must be an array"});
}

TEST_CASE("symbol JSON: input references must be earlier, existing nodes", "[graph]") {
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][3]["inputs"][1][0] = 99; }),
                    {"node 3 ('conv0') input 1", "node 99", "does not exist", "7 nodes"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][3]["inputs"][0][0] = 3; }),
                    {"node 3 ('conv0') input 0", "not earlier"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4]["inputs"][0][0] = 6; }),
                    {"node 4 ('relu0') input 0", "node 6", "not earlier"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4]["inputs"][0][0] = -1; }),
                    {"node 4 ('relu0') input 0", "node index is negative"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][6]["inputs"][1][1] = -1; }),
                    {"node 6 ('add0') input 1", "output index is negative"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][6]["inputs"][1][1] = 1.5; }),
                    {"node 6 ('add0') input 1", "output index", "non-negative integer"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][6]["inputs"][1] = {5}; }),
                    {"node 6 ('add0') input 1", "[node, index]"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][6]["inputs"][1] = {5, 0, 0, 0}; }),
                    {"node 6 ('add0') input 1", "[node, index]"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][6]["inputs"][1] = 5; }),
                    {"node 6 ('add0') input 1", "[node, index]"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][6]["inputs"][1][2] = "v"; }),
                    {"node 6 ('add0') input 1", "version"});
}

TEST_CASE("symbol JSON: output indices are not bounded here", "[graph]") {
  // Knowing an operator's output count needs the registry; the loader only rejects negative indices.
  const Graph g = qv::ParseSymbolJson(Modified(kModern, [](json& j) { j["nodes"][4]["inputs"][0][1] = 12; }));
  CHECK(g.nodes[4].inputs[0] == NodeEntry{3, 12});
}

TEST_CASE("symbol JSON: a variable must not have inputs", "[graph]") {
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][1]["inputs"] = json::array({json::array({0, 0, 0})}); }),
                    {"node 1 ('conv0_weight')", "variable", "1 input"});
}

TEST_CASE("symbol JSON: heads must name existing nodes", "[graph]") {
  RequireParseError(Modified(kModern, [](json& j) { j["heads"][1][0] = 7; }), {"heads[1]", "node 7", "does not exist"});
  RequireParseError(Modified(kModern, [](json& j) { j["heads"][0][1] = -2; }), {"heads[0]", "output index is negative"});
  RequireParseError(Modified(kModern, [](json& j) { j["heads"][0] = "6"; }), {"heads[0]", "[node, index]"});
}

TEST_CASE("symbol JSON: arg_nodes, when present, name variables", "[graph]") {
  RequireParseError(Modified(kModern, [](json& j) { j["arg_nodes"] = {0, 3}; }),
                    {"arg_nodes[1]", "node 3 ('conv0')", "not a variable"});
  RequireParseError(Modified(kModern, [](json& j) { j["arg_nodes"] = {0, 70}; }), {"arg_nodes[1]", "node 70"});
  RequireParseError(Modified(kModern, [](json& j) { j["arg_nodes"] = "0"; }), {"\"arg_nodes\" must be an array"});
}

TEST_CASE("symbol JSON: subgraphs (control flow) are reported as unsupported", "[graph]") {
  const std::string text = Modified(kModern, [](json& j) { j["nodes"][4]["subgraphs"] = json::array({json::object()}); });
  const Failure f = ParseFailure(text);
  CHECK(f.status == qv::Status::kUnsupported);
  CHECK_THAT(f.message, Contains("node 4 ('relu0')") && Contains("subgraphs"));
}

TEST_CASE("symbol JSON: huge numbers and deep nesting fail cleanly", "[graph]") {
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4]["inputs"][0][0] = 18446744073709551615ull; }),
                    {"node 4 ('relu0') input 0", "too large"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4]["inputs"][0][0] = 4294967296ll; }),
                    {"node 4 ('relu0') input 0", "too large"});
  RequireParseError(Modified(kModern, [](json& j) { j["nodes"][4]["inputs"][0][0] = 1e300; }),
                    {"node 4 ('relu0') input 0", "non-negative integer"});
  RequireParseError(R"json({"nodes": [{"op": "null", "name": "x"}], "heads": [[123456789012345678901234567890, 0]]})json",
                    {"heads[0]", "non-negative integer"});

  const size_t depth = 100000;
  RequireParseError(std::string(depth, '[') + std::string(depth, ']'), {"top level must be an object"});
  RequireParseError(std::string(depth, '['), {"not valid JSON"});
  const std::string deep_node = "{\"nodes\": [" + std::string(depth, '[') + std::string(depth, ']') + "], \"heads\": [[0, 0]]}";
  RequireParseError(deep_node, {"node 0", "must be an object"});
  const std::string deep_attr = "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"attrs\": {\"k\": " +
                                std::string(depth, '[') + std::string(depth, ']') + "}}], \"heads\": [[0, 0]]}";
  RequireParseError(deep_attr, {"node 0 ('x')", "'k'", "nested"});
}

TEST_CASE("symbol JSON: a wrong type anywhere gives an Error, never a crash", "[graph]") {
  const json base = json::parse(kModern);
  const json wrong[] = {nullptr, true, -1, 3, 1.5, "s", json::array(), json::array({1}), json::object(),
                        json::object({{"k", "v"}})};
  // Every value position of the file, as a JSON pointer.
  const json flat = base.flatten();
  std::vector<json::json_pointer> positions;
  for (auto it = flat.begin(); it != flat.end(); ++it) {
    json::json_pointer p(it.key());
    while (!p.empty()) {
      positions.push_back(p);
      p = p.parent_pointer();
    }
  }
  positions.push_back(json::json_pointer(""));
  size_t tried = 0;
  for (const auto& position : positions) {
    for (const json& replacement : wrong) {
      json edited = base;
      edited[position] = replacement;
      const std::string text = edited.dump();
      try {
        qv::ParseSymbolJson(text);
      } catch (const qv::Error& e) {
        INFO(position.to_string() << " = " << replacement.dump() << ": " << e.what());
        CHECK((e.status() == qv::Status::kParse || e.status() == qv::Status::kUnsupported));
      }
      ++tried;
    }
  }
  CHECK(tried > 500);
}

TEST_CASE("symbol JSON: loading from a file", "[graph]") {
  TempDir dir;
  SECTION("a valid file") {
    const Graph g = qv::LoadSymbolJsonFile(dir.Write("net-symbol.json", kModern));
    CHECK(g.nodes.size() == 7);
  }
  SECTION("a malformed file names the path") {
    const std::string path = dir.Write("bad-symbol.json", "{\"nodes\": 1, \"heads\": []}");
    try {
      qv::LoadSymbolJsonFile(path);
      FAIL("expected an error");
    } catch (const qv::Error& e) {
      CHECK(e.status() == qv::Status::kParse);
      CHECK_THAT(e.what(), Contains(path) && Contains("\"nodes\" must be an array"));
    }
  }
  SECTION("a missing file or a directory is qv::Status::kNotFound naming the path") {
    for (const std::string& path : {(dir.path / "absent.json").string(), dir.path.string()}) {
      try {
        qv::LoadSymbolJsonFile(path);
        FAIL("expected an error for " << path);
      } catch (const qv::Error& e) {
        CHECK(e.status() == qv::Status::kNotFound);
        CHECK_THAT(e.what(), Contains(path));
      }
    }
  }
}

TEST_CASE("symbol JSON: the fixture models exported by MXNet 1.9.1", "[graph]") {
  const char* env = std::getenv("QUIVER_FIXTURES_DIR");
  const fs::path dir = env && *env ? env : QUIVER_FIXTURES_DIR;
  const fs::path manifest_path = dir / "manifest.json";
  if (!fs::exists(manifest_path)) {
    WARN("not run: no MXNet fixtures (" << manifest_path.string() << " is missing; scripts/make_fixtures.sh creates them)");
    SUCCEED("fixtures missing");
    return;
  }
  const json manifest = json::parse(std::ifstream(manifest_path));
  REQUIRE(manifest.at("models").contains("resnet18_v1"));
  for (const auto& [model, entry] : manifest.at("models").items()) {
    INFO("model " << model << " (layout " << entry.value("layout", "?") << ")");
    const Graph g = qv::LoadSymbolJsonFile((dir / entry.at("symbol_file").get<std::string>()).string());
    CHECK(g.outputs.size() == 1);
    for (const qv::Node& n : g.nodes) {
      // Old plain training hints must have become hidden keys.
      CHECK(n.attrs.count("lr_mult") == 0);
      CHECK(n.attrs.count("ctx_group") == 0);
    }
    if (model == "resnet18_v1") {
      // Gluon's resnet18_v1: 1 data input + 102 parameters + 68 operators.
      CHECK(g.nodes.size() == 171);
      size_t variables = 0;
      for (const qv::Node& n : g.nodes) variables += n.is_variable();
      CHECK(variables == 103);
      CHECK(g.nodes[g.outputs[0].node].op == "FullyConnected");
      CHECK(g.nodes[1].attrs.count("__shape__") == 1);
    }
  }
}

TEST_CASE("symbol JSON: subgraphs nest one level, as MXNet's fused operators do", "[graph]") {
  // A fused node whose subgraph holds a fused node again, `levels` deep: refused at the second level,
  // never recursed into (a deep file would otherwise take the parser off its stack).
  const auto nested = [](int levels) {
    const std::string open = R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
                                 {"op": "_sg_mkldnn_conv", "name": "sg", "inputs": [[0, 0, 0]], "subgraphs": [)";
    const std::string close = R"(]}], "heads": [[1, 0, 0]]})";
    std::string json;
    for (int i = 0; i < levels; ++i) json += open;
    json += R"({"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[0, 0, 0]]})";
    for (int i = 0; i < levels; ++i) json += close;
    return json;
  };
  for (int levels : {2, 3, 20000}) {
    INFO("levels " << levels);
    try {
      qv::ParseSymbolJson(nested(levels));
      FAIL("accepted");
    } catch (const qv::Error& e) {
      CHECK(e.status() == qv::Status::kParse);
      CHECK_THAT(e.what(), Contains("subgraphs inside a subgraph"));
    }
  }
}
