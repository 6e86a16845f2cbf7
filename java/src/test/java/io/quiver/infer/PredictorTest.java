package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Outputs equal to the C API's and (within tolerance) to real MXNet's, every input form, models from streams. */
class PredictorTest {
  static Stream<Fixtures.Case> cases() {
    return Fixtures.cases().stream();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void outputsEqualTheCApisAndFollowMxnets(Fixtures.Case c) {
    final float[] got;
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())))) {
      got = p.predict(c.input())[0];
      assertArrayEquals(c.outputShape(), p.lastOutputShape(0));
    }
    // The same library through C alone: the binding adds nothing and loses nothing.
    assertArrayEquals(Fixtures.capiPredict(c), got);
    final float[] mxnet = c.mxnetOutput();
    assertTrue(Fixtures.maxAbsDiff(got, mxnet) <= 1e-4f * Fixtures.maxAbs(mxnet), c + " differs from MXNet");
  }

  @Test
  void anyBatchSizeRunsOnOnePredictor() {
    final Fixtures.Case c = Fixtures.cases().get(1); // resnet18_v1, batch 4
    final float[] x = c.input();
    final float[] expected = c.mxnetOutput();
    final int sample = 3 * 224 * 224;
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(1, 3, 224, 224)))) {
      for (int batch : new int[] {1, 3, 4, 2}) {
        final float[] got = p.predict(Arrays.copyOf(x, batch * sample))[0];
        assertArrayEquals(new long[] {batch, 1000}, p.lastOutputShape(0));
        final float[] want = Arrays.copyOf(expected, batch * 1000);
        assertTrue(Fixtures.maxAbsDiff(got, want) <= 1e-4f * Fixtures.maxAbs(want), "batch " + batch);
      }
    }
  }

  @Test
  void ndArraysGoInAndOutWithoutCopies() throws InterruptedException {
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())))) {
      final float[] reference = p.predict(x)[0];
      final ByteBuffer direct = Fixtures.direct(x);
      try (NDArray input = NDArray.wrap(direct, DType.FLOAT32, c.inputShape())) {
        final NDArray[] outputs = p.predict(input);
        assertEquals(1, outputs.length);
        assertEquals(Shape.of(2, 10), outputs[0].shape());
        assertTrue(outputs[0].isReady());
        assertArrayEquals(reference, outputs[0].toFloatArray());
        Quiver.waitAll(); // the runtime's own references to the invocation's arrays are gone now
        final long alive = Quiver.memoryStats()[1];
        outputs[0].close(); // the output NDArray owned the native array
        outputs[0].close(); // idempotent
        assertEquals(alive - 1, Quiver.memoryStats()[1]);
        viewOutlivesClose(p, input, reference);
      }
      try (NDArray copied = NDArray.of(x, c.inputShape())) {
        final NDArray out = p.predict(copied)[0];
        assertArrayEquals(reference, out.toFloatArray());
        out.close();
      }
    }
  }

  /** A buffer() view is the runtime's memory itself, and keeps it alive past close() until it is collected. */
  private static void viewOutlivesClose(Predictor p, NDArray input, float[] reference) throws InterruptedException {
    final long alive = Quiver.memoryStats()[1];
    readViewAfterClose(p, input, reference);
    for (int i = 0; i < 100 && Quiver.memoryStats()[1] > alive; ++i) {
      System.gc();
      Thread.sleep(20);
    }
    assertTrue(Quiver.memoryStats()[1] <= alive, "freed once both closed and unreachable");
  }

  // Its own frame, so that nothing of it stays reachable from the caller's.
  private static void readViewAfterClose(Predictor p, NDArray input, float[] reference) {
    final NDArray out = p.predict(input)[0];
    final ByteBuffer view = out.buffer();
    out.buffer().putFloat(12, 42f); // a second view writes the same memory
    assertEquals(42f, view.getFloat(12));
    view.putFloat(12, reference[3]);
    out.close();
    final float[] viewed = new float[20];
    view.asFloatBuffer().get(viewed); // still valid after close()
    assertArrayEquals(reference, viewed);
  }

  @Test
  void modelsFromStreamsEqualModelsFromFiles() throws IOException {
    final Fixtures.Case c = Fixtures.tiny();
    final List<DataDesc> inputs = List.of(Fixtures.data(c.inputShape()));
    final float[] fromFiles;
    try (Predictor p = new Predictor(c.prefix(), 0, inputs)) {
      fromFiles = p.predict(c.input())[0];
    }
    try (InputStream symbol = new FileInputStream(c.prefix() + "-symbol.json");
         InputStream params = new ByteArrayInputStream(Files.readAllBytes(Path.of(c.prefix() + "-0000.params")));
         Predictor p = Predictor.fromStreams(symbol, params, inputs)) {
      assertEquals(List.of("data"), p.inputNames());
      assertArrayEquals(fromFiles, p.predict(c.input())[0]);
    }
  }

  @Test
  void multipleOutputsComeBackInOrder() {
    final float[] x = new float[12];
    for (int i = 0; i < x.length; ++i) {
      x[i] = -2 + 4f * i / 11;
    }
    try (Predictor p = MxnetFiles.reluAndSigmoid(3, 4)) {
      assertEquals(List.of("relu_output", "sig_output"), p.outputNames());
      final float[][] out = p.predict(x);
      for (int i = 0; i < x.length; ++i) {
        assertEquals(Math.max(x[i], 0), out[0][i], 0f);
        assertEquals(1 / (1 + Math.exp(-x[i])), out[1][i], 1e-6);
      }
      assertArrayEquals(new long[] {3, 4}, p.lastOutputShape(1));
    }
  }

  @Test
  void theNativeLibrariesReportTheirVersion() {
    assertEquals("1.0.0", Quiver.version());
  }
}
