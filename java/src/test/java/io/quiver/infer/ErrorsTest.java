package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Bad inputs and files raise QuiverExceptions that name the problem, and leave the predictor usable. */
class ErrorsTest {
  private static QuiverException expect(int code, String inMessage, Executable call) {
    final QuiverException e = assertThrows(QuiverException.class, call);
    assertEquals(code, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains(inMessage), "'" + e.getMessage() + "' does not mention '" + inMessage + "'");
    return e;
  }

  @Test
  void badInputsAreRefusedAndThePredictorStaysUsable() {
    final Fixtures.Case c = Fixtures.tiny();
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())))) {
      final float[] reference = p.predict(c.input())[0];
      try (NDArray threeD = NDArray.of(new float[96], 2, 3, 16)) {
        expect(QuiverException.SHAPE, "expects 4-D", () -> p.predict(threeD));
        expect(QuiverException.SHAPE, "expects 4-D", () -> p.predictAsync(threeD));
      }
      try (NDArray wrongChannels = NDArray.of(new float[2 * 4 * 16 * 16], 2, 4, 16, 16)) {
        expect(QuiverException.SHAPE, "", () -> p.predict(wrongChannels));
      }
      expect(QuiverException.SHAPE, "not a whole number of samples", () -> p.predict(new float[100]));
      expect(QuiverException.INVALID_ARGUMENT, "takes 1 input", () -> p.predict(c.input(), c.input()));
      expect(QuiverException.INVALID_ARGUMENT, "null", () -> p.predict((float[]) null));
      expect(QuiverException.SHAPE, "element count", () -> NDArray.of(new float[5], 2, 3));
      expect(QuiverException.INVALID_ARGUMENT, "direct ByteBuffer",
          () -> NDArray.wrap(ByteBuffer.allocate(16), DType.FLOAT32, 4));
      assertArrayEquals(reference, p.predict(c.input())[0]);
    }
  }

  @Test
  void aClosedPredictorRefusesCallsButFinishesThoseInFlight() throws Exception {
    final Fixtures.Case c = Fixtures.tiny();
    final Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())));
    final CompletableFuture<float[][]> inFlight = p.predictAsync(c.input());
    p.close();
    p.close(); // idempotent
    assertTrue(p.isClosed());
    assertEquals(20, inFlight.get(60, TimeUnit.SECONDS)[0].length);
    expect(QuiverException.INVALID_ARGUMENT, "closed", () -> p.predict(c.input()));
    expect(QuiverException.INVALID_ARGUMENT, "closed", () -> p.predictAsync(c.input()));
  }

  @Test
  void missingFilesAreNamed(@TempDir Path dir) {
    expect(QuiverException.NOT_FOUND, "nothing-symbol.json",
        () -> new Predictor(dir.resolve("nothing").toString(), 0, List.of()));
    expect(QuiverException.NOT_FOUND, "0007.params", () -> new Predictor(Fixtures.tiny().prefix(), 7, List.of()));
  }

  @Test
  void corruptFilesRaiseParseErrors() throws IOException {
    final String prefix = Fixtures.tiny().prefix();
    final byte[] params = Files.readAllBytes(Path.of(prefix + "-0000.params"));
    final byte[] symbol = Files.readAllBytes(Path.of(prefix + "-symbol.json"));
    expect(QuiverException.PARSE, "byte", () -> Predictor.fromStreams(new ByteArrayInputStream(symbol),
        new ByteArrayInputStream(Arrays.copyOf(params, params.length / 2)), List.of()));
    expect(QuiverException.PARSE, "", () -> Predictor.fromStreams(new ByteArrayInputStream(Arrays.copyOf(symbol, 100)),
        new ByteArrayInputStream(params), List.of()));
    expect(QuiverException.PARSE, "", () -> Predictor.fromStreams(new ByteArrayInputStream(symbol),
        new ByteArrayInputStream(new byte[64]), List.of()));
  }

  @Test
  void badOptionsDescsAndParametersAreNamed() {
    final String prefix = Fixtures.tiny().prefix();
    expect(QuiverException.INVALID_ARGUMENT, "no_such_flag",
        () -> new Predictor(prefix, 0, List.of(), Map.of("no_such_flag", "1")));
    expect(QuiverException.NOT_FOUND, "'images'",
        () -> new Predictor(prefix, 0, List.of(new DataDesc("images", new long[] {1, 3, 16, 16}))));
    expect(QuiverException.INVALID_ARGUMENT, "'images'",
        () -> new Predictor(prefix, 0, List.of(new DataDesc("images", new long[0], DType.FLOAT32, ""))));
    expect(QuiverException.DEVICE, "", () -> new Predictor(prefix, 0, List.of(), Map.of("device", "gpu(7)")));
    final String json = MxnetFiles.symbolJson(List.of(new MxnetFiles.Node("null", "data", Map.of()),
        new MxnetFiles.Node("null", "fc_weight", Map.of()), new MxnetFiles.Node("null", "fc_bias", Map.of()),
        new MxnetFiles.Node("FullyConnected", "fc", Map.of("num_hidden", "2"), 0, 1, 2)), 3);
    final LinkedHashMap<String, MxnetFiles.Param> params = new LinkedHashMap<>();
    params.put("arg:fc_bias", new MxnetFiles.Param(new long[] {2}, new float[2]));
    final QuiverException missing = assertThrows(QuiverException.class, () -> Predictor.fromStreams(
        new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
        new ByteArrayInputStream(MxnetFiles.paramsBytes(params)), List.of(Fixtures.data(1, 4))));
    assertTrue(missing.getMessage().contains("fc_weight"), missing.getMessage());
  }
}
