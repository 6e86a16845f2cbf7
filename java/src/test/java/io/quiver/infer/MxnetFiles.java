package io.quiver.infer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes MXNet model files (symbol JSON and the .params NDArray-list format) for hand-made test models. */
final class MxnetFiles {
  private static final long LIST_MAGIC = 0x112;
  private static final int ARRAY_MAGIC_V2 = 0xF993FAC9;

  private MxnetFiles() {}

  /** A graph node: op ("null" for a variable), name, attributes, input node ids. */
  record Node(String op, String name, Map<String, String> attrs, int... inputs) {}

  /** A float32 parameter of a shape. */
  record Param(long[] shape, float[] values) {}

  static String symbolJson(List<Node> nodes, int... heads) {
    final List<String> json = new ArrayList<>();
    final List<String> args = new ArrayList<>();
    for (int i = 0; i < nodes.size(); ++i) {
      final Node n = nodes.get(i);
      final List<String> attrs = new ArrayList<>();
      n.attrs().forEach((k, v) -> attrs.add("\"" + k + "\": \"" + v + "\""));
      final List<String> inputs = new ArrayList<>();
      for (int input : n.inputs()) {
        inputs.add("[" + input + ", 0, 0]");
      }
      json.add("{\"op\": \"" + n.op() + "\", \"name\": \"" + n.name() + "\", \"attrs\": {" + String.join(", ", attrs)
          + "}, \"inputs\": [" + String.join(", ", inputs) + "]}");
      if (n.op().equals("null")) {
        args.add(Integer.toString(i));
      }
    }
    final List<String> headList = new ArrayList<>();
    for (int h : heads) {
      headList.add("[" + h + ", 0, 0]");
    }
    return "{\"nodes\": [" + String.join(", ", json) + "], \"arg_nodes\": [" + String.join(", ", args)
        + "], \"heads\": [" + String.join(", ", headList) + "], \"attrs\": {\"mxnet_version\": [\"int\", 10901]}}";
  }

  /** An MXNet .params file of dense float32 CPU arrays, names as given ("arg:fc_weight"). */
  static byte[] paramsBytes(LinkedHashMap<String, Param> params) {
    int size = 24 + 8;
    for (Map.Entry<String, Param> e : params.entrySet()) {
      size += 8 + 4 + 8 * e.getValue().shape().length + 12 + 4 * e.getValue().values().length;
      size += 8 + e.getKey().getBytes(StandardCharsets.UTF_8).length;
    }
    final ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(LIST_MAGIC).putLong(0).putLong(params.size());
    for (Param p : params.values()) {
      out.putInt(ARRAY_MAGIC_V2).putInt(0); // magic, dense storage
      out.putInt(p.shape().length);
      for (long d : p.shape()) {
        out.putLong(d);
      }
      out.putInt(1).putInt(0).putInt(0); // cpu(0), float32
      for (float v : p.values()) {
        out.putFloat(v);
      }
    }
    out.putLong(params.size());
    for (String name : params.keySet()) {
      final byte[] encoded = name.getBytes(StandardCharsets.UTF_8);
      out.putLong(encoded.length).put(encoded);
    }
    return out.array();
  }

  /**
   * The token model of tests/capi/input_dtypes_test.cc with a second, float32 input: outputs
   * {@code emb = Embedding(tokens)} (5 x 2 weight, row r = (10r, 10r + 1)), {@code half = tokens / 2} and
   * {@code length_half = length / 2}. {@code declared} is the tokens variable's "__dtype__" ("" for none).
   */
  static Predictor tokens(String declared, List<DataDesc> inputs) {
    return tokens(declared, inputs, Map.of());
  }

  /** {@link #tokens(String, List)} with cached-op flags. */
  static Predictor tokens(String declared, List<DataDesc> inputs, Map<String, String> options) {
    final String json = symbolJson(List.of(
        new Node("null", "tokens", declared.isEmpty() ? Map.of() : Map.of("__dtype__", declared)),
        new Node("null", "emb_weight", Map.of()),
        new Node("Embedding", "emb", Map.of("input_dim", "5", "output_dim", "2"), 0, 1),
        new Node("_div_scalar", "half", Map.of("scalar", "2"), 0),
        new Node("null", "length", Map.of()),
        new Node("_div_scalar", "length_half", Map.of("scalar", "2"), 4)), 2, 3, 5);
    final float[] weight = new float[10];
    for (int r = 0; r < 5; ++r) {
      weight[2 * r] = 10 * r;
      weight[2 * r + 1] = 10 * r + 1;
    }
    final LinkedHashMap<String, Param> params = new LinkedHashMap<>();
    params.put("arg:emb_weight", new Param(new long[] {5, 2}, weight));
    return Predictor.fromStreams(new java.io.ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
        new java.io.ByteArrayInputStream(paramsBytes(params)), inputs, options);
  }

  /** A model whose two outputs are relu(data) and sigmoid(data): no parameters. */
  static Predictor reluAndSigmoid(long... shape) {
    final String json = symbolJson(List.of(new Node("null", "data", Map.of()),
        new Node("Activation", "relu", Map.of("act_type", "relu"), 0),
        new Node("Activation", "sig", Map.of("act_type", "sigmoid"), 0)), 1, 2);
    return Predictor.fromStreams(new java.io.ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
        new java.io.ByteArrayInputStream(paramsBytes(new LinkedHashMap<>())), List.of(new DataDesc("data", shape)));
  }
}
