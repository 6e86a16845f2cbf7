package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Native memory (QvGetMemoryStats) stays flat over 10,000 predictions; forgotten objects are freed by the Cleaner. */
class MemoryTest {
  @Test
  void tenThousandPredictionsKeepNativeMemoryFlat() {
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    long[] warm = null;
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())))) {
      final float[] expected = p.predict(x)[0];
      for (int i = 0; i < 10_000; ++i) {
        if (i == 200) { // after warm-up: plans and pools settled
          Quiver.waitAll();
          warm = Quiver.memoryStats();
        }
        final float[] got = i % 2 == 0 ? p.predict(x)[0] : p.predictAsync(x).join()[0];
        if (i % 1000 == 0) {
          assertArrayEquals(expected, got);
        }
      }
      Quiver.waitAll();
      final long[] after = Quiver.memoryStats();
      System.out.printf("native memory after warm-up %d bytes / %d arrays, after 10k %d / %d%n", warm[0], warm[1],
          after[0], after[1]);
      assertEquals(warm[1], after[1], "arrays alive");
      assertTrue(after[0] <= warm[0] + 64 * 1024, "bytes in use grew from " + warm[0] + " to " + after[0]);
    }
  }

  @Test
  void anUnclosedPredictorIsFreedByTheCleaner() throws InterruptedException {
    final Fixtures.Case c = Fixtures.tiny();
    Quiver.waitAll();
    final long before = Quiver.memoryStats()[0];
    System.out.println("(the LEAK warning that follows is this test's deliberate leak)");
    openAndForget(c);
    assertTrue(Quiver.memoryStats()[0] > before, "the forgotten predictor holds memory");
    for (int i = 0; i < 100 && Quiver.memoryStats()[0] > before; ++i) {
      System.gc();
      Thread.sleep(50);
    }
    // At most `before`: other tests' garbage may be collected meanwhile too.
    assertTrue(Quiver.memoryStats()[0] <= before, "memory of the forgotten predictor");
  }

  private static void openAndForget(Fixtures.Case c) {
    new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape()))).predict(c.input());
  }
}
