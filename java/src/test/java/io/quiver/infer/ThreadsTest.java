package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * One Predictor shared by 8 threads gives results identical, bit for bit, to sequential runs; the
 * compute-thread budget is set and read from Java.
 */
class ThreadsTest {
  @Test
  void theThreadBudgetIsSetAndReadAtAnyTime() {
    final int start = Quiver.numThreads();
    assertTrue(start >= 1);
    try {
      Quiver.setNumThreads(1);
      assertEquals(1, Quiver.numThreads());
      final QuiverException e = assertThrows(QuiverException.class, () -> Quiver.setNumThreads(0));
      assertTrue(e.getMessage().contains("thread budget of 0"), e.getMessage());
    } finally {
      Quiver.setNumThreads(start);
    }
    assertEquals(start, Quiver.numThreads());
  }

  @Test
  void eightThreadsSharingOnePredictorMatchSequentialRuns() throws Exception {
    final long[] shape = {2, 3, 160, 160};
    final Random random = new Random(8);
    final List<float[]> inputs = new ArrayList<>();
    for (int i = 0; i < 16; ++i) {
      final float[] x = new float[2 * 3 * 160 * 160];
      for (int j = 0; j < x.length; ++j) {
        x[j] = (float) random.nextGaussian();
      }
      inputs.add(x);
    }
    Fixtures.require();
    final ExecutorService pool = Executors.newFixedThreadPool(8);
    try (Predictor p = new Predictor(Fixtures.Case.prefix("resnet18_v1"), 0, List.of(Fixtures.data(shape)))) {
      final List<float[]> sequential = new ArrayList<>();
      for (float[] x : inputs) {
        sequential.add(p.predict(x)[0]);
      }
      for (int round = 0; round < 2; ++round) {
        final List<Future<float[]>> concurrent = new ArrayList<>();
        for (float[] x : inputs) {
          concurrent.add(pool.submit(() -> p.predict(x)[0]));
        }
        for (int i = 0; i < inputs.size(); ++i) {
          assertArrayEquals(sequential.get(i), concurrent.get(i).get(), "input " + i + ", round " + round);
        }
      }
    } finally {
      pool.shutdown();
    }
  }
}
