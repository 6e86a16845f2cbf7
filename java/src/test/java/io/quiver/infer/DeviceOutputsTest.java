package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A GPU model's results reach Java: float[] predictions, NDArray outputs and their buffers, synchronous
 * and asynchronous. Surefire runs the JVM with QUIVER_EMULATED_GPU=1, which gives this CPU-only build a
 * gpu(0) in host memory behind a device of its own (engine/backends/emulated_gpu): its arrays cannot be
 * viewed, only copied, as on a real GPU.
 */
class DeviceOutputsTest {
  private static final Map<String, String> GPU = Map.of("device", "gpu(0)");

  private static void requireEmulatedGpu() {
    assertEquals("1", System.getenv("QUIVER_EMULATED_GPU"),
        "the JVM suites run with QUIVER_EMULATED_GPU=1 (pom.xml's surefire configuration)");
  }

  @Test
  void gpuPredictionsEqualTheCpusBitForBit() throws Exception {
    requireEmulatedGpu();
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    try (Predictor cpu = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())));
         Predictor gpu = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())), GPU)) {
      final float[] expected = cpu.predict(x)[0];
      assertArrayEquals(expected, gpu.predict(x)[0]);
      final CompletableFuture<float[][]> pending = gpu.predictAsync(x);
      assertArrayEquals(expected, pending.get()[0]);
    }
  }

  @Test
  void gpuNdArrayOutputsAreCopiedToTheHost() {
    requireEmulatedGpu();
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    try (Predictor cpu = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())));
         Predictor gpu = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())), GPU);
         NDArray input = NDArray.of(x, c.inputShape())) {
      final float[] expected = cpu.predict(x)[0];
      final NDArray out = gpu.predict(input)[0];
      try {
        assertEquals(Shape.of(2, 10), out.shape());
        assertArrayEquals(expected, out.toFloatArray());
        final ByteBuffer bytes = out.buffer();
        assertEquals(expected.length * 4, bytes.capacity());
        final float[] viewed = new float[expected.length];
        bytes.order(ByteOrder.nativeOrder()).asFloatBuffer().get(viewed);
        assertArrayEquals(expected, viewed);
      } finally {
        out.close();
      }
    }
  }

  @Test
  void thousandsOfGpuPredictionsLeakNothing() {
    requireEmulatedGpu();
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    try (Predictor gpu = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())), GPU)) {
      gpu.predict(x); // the plan and its workspace exist from here on
      Quiver.waitAll();
      final long[] before = Quiver.memoryStats();
      for (int i = 0; i < 2000; ++i) {
        gpu.predict(x);
        try (NDArray in = NDArray.of(x, c.inputShape())) {
          gpu.predict(in)[0].close();
        }
      }
      Quiver.waitAll();
      final long[] after = Quiver.memoryStats();
      assertEquals(before[1], after[1], "arrays alive before and after 4000 gpu(0) predictions");
      assertTrue(after[0] <= before[0] + 64 * 1024, "bytes in use grew from " + before[0] + " to " + after[0]);
    }
  }
}
