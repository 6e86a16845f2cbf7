package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Inputs of other element types than float32 (the symbol's declaration, DataDesc dtypes) and named
 * predictions, on MxnetFiles.tokens: values as MXNet 1.9.1 computes them (Embedding clips ids into
 * [0, 4]; an int32 tensor divided by 2 truncates toward zero). Values compare with delta 0, under which
 * -0.0 (the float32 output of -1 / 2) equals 0.
 */
class InputDTypesTest {
  private static final int[] IDS = {0, 4, 9, -1, 2, -7};
  private static final float[] EMBEDDED = {0, 1, 40, 41, 40, 41, 0, 1, 20, 21, 0, 1};
  private static final float[] HALVES = {0, 2, 4, 0, 1, -3};
  private static final float[] LENGTHS = {7, -7};
  private static final float[] LENGTH_HALVES = {3.5f, -3.5f};

  private static QuiverException expect(int code, List<String> inMessage, Executable call) {
    final QuiverException e = assertThrows(QuiverException.class, call);
    assertEquals(code, e.code(), e.getMessage());
    for (String part : inMessage) {
      assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' does not mention '" + part + "'");
    }
    return e;
  }

  private static long[] longs(int[] values) {
    final long[] out = new long[values.length];
    for (int i = 0; i < values.length; ++i) {
      out[i] = values[i];
    }
    return out;
  }

  @Test
  void aDeclaredInt32InputTakesInt32AndRefusesFloat32() {
    try (Predictor p = MxnetFiles.tokens("4", List.of());
         NDArray tokens = NDArray.of(IDS, IDS.length);
         NDArray length = NDArray.of(LENGTHS, 2);
         NDArray floatTokens = NDArray.of(new float[] {0, 4, 9, -1, 2, -7}, IDS.length)) {
      assertEquals(Map.of("tokens", DType.INT32, "length", DType.FLOAT32), p.inputDTypes());
      assertEquals(List.of("tokens", "length"), List.copyOf(p.inputDTypes().keySet()));
      assertEquals(DType.INT32, tokens.dtype());
      final NDArray[] out = p.predict(tokens, length);
      try {
        assertArrayEquals(EMBEDDED, out[0].toFloatArray(), 0f);
        assertArrayEquals(HALVES, out[1].toFloatArray(), 0f);
        assertArrayEquals(LENGTH_HALVES, out[2].toFloatArray(), 0f);
      } finally {
        for (NDArray o : out) {
          o.close();
        }
      }
      expect(QuiverException.SHAPE, List.of("input 'tokens' is float32", "int32", "symbol declares"),
          () -> p.predict(floatTokens, length));
      try (NDArray wide = NDArray.of(longs(IDS), IDS.length)) {
        expect(QuiverException.SHAPE, List.of("input 'tokens' is int64", "int32"), () -> p.predict(wide, length));
      }
    }
  }

  @Test
  void aDataDescDtypeSetsWhatTheInputTakes() {
    final List<DataDesc> descs = List.of(new DataDesc("tokens", new long[] {6}, DType.INT64, "N"),
                                         new DataDesc("length", new long[] {2}));
    try (Predictor p = MxnetFiles.tokens("4", descs);
         NDArray tokens = NDArray.of(longs(IDS), IDS.length);
         NDArray narrow = NDArray.of(IDS, IDS.length);
         NDArray length = NDArray.of(LENGTHS, 2)) {
      assertEquals(DType.INT64, p.inputDTypes().get("tokens"));
      assertEquals(DType.INT64, tokens.dtype());
      final NDArray[] out = p.predict(tokens, length);
      try {
        assertArrayEquals(EMBEDDED, out[0].toFloatArray(), 0f);
        assertArrayEquals(HALVES, out[1].toFloatArray(), 0f);
      } finally {
        for (NDArray o : out) {
          o.close();
        }
      }
      expect(QuiverException.SHAPE, List.of("input 'tokens' is int32", "int64", "as flag 'data_types' says"),
          () -> p.predict(narrow, length));
      expect(QuiverException.SHAPE, List.of("input 'tokens' takes INT64", "NDArray"),
          () -> p.predict(new float[6], new float[2]));
    }
    // Without a declaration or a DataDesc dtype, an input takes float32.
    try (Predictor p = MxnetFiles.tokens("", List.of())) {
      assertEquals(Map.of("tokens", DType.FLOAT32, "length", DType.FLOAT32), p.inputDTypes());
    }
  }

  @Test
  void namedPredictionsReturnEveryOutputByNameInOrder() {
    try (Predictor p = MxnetFiles.tokens("4", List.of());
         NDArray tokens = NDArray.of(IDS, 2, 3);
         NDArray length = NDArray.of(LENGTHS, 2)) {
      final Map<String, NDArray> inputs = Map.of("length", length, "tokens", tokens);
      for (Map<String, NDArray> out : List.of(p.predict(inputs), p.predictAsync(inputs).join())) {
        assertEquals(List.of("emb_output", "half_output", "length_half_output"), List.copyOf(out.keySet()));
        assertEquals(Shape.of(2, 3, 2), out.get("emb_output").shape());
        assertArrayEquals(EMBEDDED, out.get("emb_output").toFloatArray(), 0f);
        assertArrayEquals(HALVES, out.get("half_output").toFloatArray(), 0f);
        assertArrayEquals(LENGTH_HALVES, out.get("length_half_output").toFloatArray(), 0f);
        out.values().forEach(NDArray::close);
      }
      expect(QuiverException.INVALID_ARGUMENT, List.of("[tokens, length]", "missing [length]"),
          () -> p.predict(Map.of("tokens", tokens)));
      expect(QuiverException.INVALID_ARGUMENT, List.of("missing [tokens]", "words"),
          () -> p.predictAsync(Map.of("words", tokens, "length", length)));
      // Keys beyond the model's inputs are ignored.
      final Map<String, NDArray> wider = p.predict(Map.of("tokens", tokens, "length", length, "extra", length));
      assertArrayEquals(HALVES, wider.get("half_output").toFloatArray(), 0f);
      wider.values().forEach(NDArray::close);
    }
  }

  @Test
  void bucketingPadsToTheNextBucketAndCutsOutputsBack() {
    // Tokens (2, 3) run padded to (2, 8); every output comes back at the request's own length.
    try (Predictor p = MxnetFiles.tokens("4", List.of(), Map.of("buckets", "8,16"));
         NDArray tokens = NDArray.of(IDS, 2, 3);
         NDArray length = NDArray.of(LENGTHS, 2);
         NDArray longer = NDArray.of(new int[17], 1, 17);
         NDArray oneLength = NDArray.of(new float[] {1}, 1)) {
      final Map<String, NDArray> out = p.predict(Map.of("tokens", tokens, "length", length));
      try {
        assertEquals(Shape.of(2, 3, 2), out.get("emb_output").shape());
        assertArrayEquals(EMBEDDED, out.get("emb_output").toFloatArray(), 0f);
        assertArrayEquals(HALVES, out.get("half_output").toFloatArray(), 0f);
        assertArrayEquals(LENGTH_HALVES, out.get("length_half_output").toFloatArray(), 0f);
      } finally {
        out.values().forEach(NDArray::close);
      }
      expect(QuiverException.SHAPE, List.of("input 'tokens' has length 17 on axis 1", "largest bucket (16)"),
          () -> p.predict(Map.of("tokens", longer, "length", oneLength)));
    }
  }

  @Test
  void intArraysCheckTheirLength() {
    expect(QuiverException.SHAPE, List.of("int32 data has 6 elements", "(2, 2)", "holds 4"),
        () -> NDArray.of(IDS, 2, 2));
    expect(QuiverException.SHAPE, List.of("int64 data has 6 elements"), () -> NDArray.of(longs(IDS), 7));
  }

  @Test
  void closingEverythingFreesItsNativeMemory() {
    Quiver.waitAll();
    final long[] before = Quiver.memoryStats();
    try (Predictor p = MxnetFiles.tokens("4", List.of());
         NDArray tokens = NDArray.of(IDS, IDS.length);
         NDArray wide = NDArray.of(longs(IDS), IDS.length);
         NDArray length = NDArray.of(LENGTHS, 2)) {
      for (int i = 0; i < 50; ++i) {
        p.predict(Map.of("tokens", tokens, "length", length)).values().forEach(NDArray::close);
        assertThrows(QuiverException.class, () -> p.predictAsync(Map.of("tokens", wide, "length", length)));
        p.predictAsync(Map.of("tokens", tokens, "length", length)).join().values().forEach(NDArray::close);
      }
    }
    Quiver.waitAll();
    final long[] after = Quiver.memoryStats();
    assertEquals(before[1], after[1], "arrays alive");
    assertTrue(after[0] <= before[0], "bytes in use grew from " + before[0] + " to " + after[0]);
  }
}
