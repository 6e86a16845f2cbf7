package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.infer.internal.QuiverCapi;
import org.junit.jupiter.api.Test;

/** The JVM binding's string out-parameter: QvCachedOpDescribe's JSON arrives whole in a String[] holder. */
class CapiDescribeTest {
  @Test
  void describeNamesWhatTheTinyModelFuses() {
    final String prefix = Fixtures.tiny().prefix();
    final long[] symbol = new long[1];
    QuiverCapi.QvSymbolCreateFromFile(prefix + "-symbol.json", symbol);
    final long[][] arrays = new long[1][];
    final String[][] names = new String[1][];
    QuiverCapi.QvNDArrayLoad(prefix + "-0000.params", arrays, names);
    final long[] op = new long[1];
    try {
      QuiverCapi.QvCreateCachedOpEx(symbol[0], arrays[0].length, names[0], arrays[0], 0, new String[0],
          new String[0], op, 1);
      final String[] json = new String[1];
      QuiverCapi.QvCachedOpDescribe(op[0], json);
      // tiny: conv1 -> bn1 -> relu1 -> pool1 -> conv2 -> bn2 -> add1 (+ pool1) -> relu2 -> ...
      assertTrue(json[0].startsWith("{\"nodes\":[{"), json[0]);
      assertTrue(json[0].contains("{\"name\":\"bn1\",\"op\":\"BatchNorm\"}"), json[0]);
      assertTrue(json[0].contains("{\"name\":\"add1\",\"op\":\"elemwise_add\"}"), json[0]);
    } finally {
      if (op[0] != 0) {
        QuiverCapi.QvFreeCachedOp(op[0]);
      }
      for (long array : arrays[0]) {
        QuiverCapi.QvNDArrayFree(array);
      }
      QuiverCapi.QvSymbolFree(symbol[0]);
    }
  }
}
