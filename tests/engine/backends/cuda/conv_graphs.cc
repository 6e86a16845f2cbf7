#include "conv_graphs.h"

#include <vector>

namespace qv_test {

int AddConv(GraphBuilder& g, Params& params, std::mt19937& rng, const std::string& name, int in, int64_t channels,
            const Conv& c) {
  AttrMap attrs = c.extra;
  attrs["kernel"] = Tuple({c.kh, c.kw});
  attrs["num_filter"] = std::to_string(c.filters);
  const int64_t groups = attrs.count("num_group") ? std::stoll(attrs.at("num_group")) : 1;
  const bool bias = attrs.count("no_bias") == 0 || attrs.at("no_bias") == "False";
  std::vector<Entry> ins = {in, g.Variable(name + "_weight")};
  params[name + "_weight"] = Random({c.filters, channels / groups, c.kh, c.kw}, &rng);
  if (bias) {
    ins.push_back(g.Variable(name + "_bias"));
    params[name + "_bias"] = Random({c.filters}, &rng);
  }
  return g.Op("Convolution", name, attrs, ins);
}

int AddBatchNorm(GraphBuilder& g, Params& params, std::mt19937& rng, const std::string& name, int in,
                 int64_t channels) {
  for (const char* p : {"_gamma", "_beta", "_moving_mean"}) params[name + p] = Random({channels}, &rng);
  params[name + "_moving_var"] = Random({channels}, &rng, 0.5f, 1.5f);
  return g.Op("BatchNorm", name, {{"eps", "0.001"}, {"fix_gamma", "False"}},
              {in, g.Variable(name + "_gamma"), g.Variable(name + "_beta"), g.Variable(name + "_moving_mean"),
               g.Variable(name + "_moving_var")});
}

int AddResidualBlock(GraphBuilder& g, Params& params, std::mt19937& rng, const std::string& name, int in,
                     int64_t in_channels, int64_t channels, bool projection) {
  const AttrMap first = projection ? AttrMap{{"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"no_bias", "True"}}
                                   : AttrMap{{"pad", "(1, 1)"}, {"no_bias", "True"}};
  int x = AddConv(g, params, rng, name + "_conv1", in, in_channels, {channels, 3, 3, first});
  x = g.Op("relu", name + "_relu1", {}, {AddBatchNorm(g, params, rng, name + "_bn1", x, channels)});
  x = AddConv(g, params, rng, name + "_conv2", x, channels,
              {channels, 3, 3, {{"pad", "(1, 1)"}, {"no_bias", "True"}}});
  x = AddBatchNorm(g, params, rng, name + "_bn2", x, channels);
  int shortcut = in;
  if (projection) {
    shortcut = AddConv(g, params, rng, name + "_sc", in, in_channels,
                       {channels, 1, 1, {{"stride", "(2, 2)"}, {"no_bias", "True"}}});
    shortcut = AddBatchNorm(g, params, rng, name + "_sc_bn", shortcut, channels);
  }
  const int sum = g.Op("elemwise_add", name + "_add", {}, {x, shortcut});
  return g.Op("Activation", name + "_relu2", {{"act_type", "relu"}}, {sum});
}

}  // namespace qv_test
