package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Futures completed by the runtime's OnReady callbacks: many in flight from one thread, errors, BUSY. */
class AsyncTest {
  @Test
  void aThousandAsyncPredictionsCompleteWithTheSynchronousResults() throws Exception {
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    final float[] y = new float[x.length];
    for (int i = 0; i < x.length; ++i) {
      y[i] = -x[i];
    }
    final Set<String> completingThreads = ConcurrentHashMap.newKeySet();
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())), Map.of("max_inflight", "1000"))) {
      final float[] forX = p.predict(x)[0];
      final float[] forY = p.predict(y)[0];
      final List<CompletableFuture<float[][]>> futures = new ArrayList<>();
      for (int i = 0; i < 1000; ++i) {
        futures.add(p.predictAsync(i % 2 == 0 ? x : y)
            .whenComplete((r, e) -> completingThreads.add(Thread.currentThread().getName())));
      }
      CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
      for (int i = 0; i < futures.size(); ++i) {
        assertArrayEquals(i % 2 == 0 ? forX : forY, futures.get(i).join()[0], "prediction " + i);
      }
    }
    // Completed on the completion threads, handed over by the runtime's callbacks (no polling thread exists).
    // (A stage attached after its future completed runs on the attaching thread instead.)
    assertTrue(completingThreads.contains("quiver-completions"), "completed on " + completingThreads);
    assertFalse(completingThreads.contains("quiver-callbacks"), "completed on " + completingThreads);
  }

  @Test
  void aStageThatWaitsForAnotherPredictionDoesNotStallTheCallbacks() throws Exception {
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())))) {
      final float[] reference = p.predict(x)[0];
      // Each stage blocks on a prediction submitted inside it: on the runtime's callback thread the inner
      // future could never complete (its callback would wait behind the stage).
      final List<CompletableFuture<float[]>> chained = new ArrayList<>();
      for (int i = 0; i < 8; ++i) {
        chained.add(p.predictAsync(x).thenApply(first -> p.predictAsync(x).join()[0]));
      }
      for (CompletableFuture<float[]> f : chained) {
        assertArrayEquals(reference, f.get(60, TimeUnit.SECONDS));
      }
    }
  }

  @Test
  void asyncNdArrayPredictionsKeepTheirInputsAlive() throws Exception {
    final Fixtures.Case c = Fixtures.tiny();
    final float[] x = c.input();
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())))) {
      final float[] reference = p.predict(x)[0];
      final ByteBuffer direct = Fixtures.direct(x);
      final CompletableFuture<NDArray[]> future;
      try (NDArray input = NDArray.wrap(direct, DType.FLOAT32, c.inputShape())) {
        future = p.predictAsync(input);
      } // closed while the prediction may still read it
      final NDArray[] out = future.get(60, TimeUnit.SECONDS);
      assertArrayEquals(reference, out[0].toFloatArray());
      out[0].close();
    }
  }

  @Test
  void busyWhenMaxInflightIsReached() throws Exception {
    final Fixtures.Case c = Fixtures.cases().get(1); // resnet18_v1 batch 4: long enough to overlap
    try (Predictor p = new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())), Map.of("max_inflight", "1"))) {
      final float[] x = c.input();
      p.predict(x); // compile first
      final CompletableFuture<float[][]> first = p.predictAsync(x);
      final QuiverException busy = assertThrows(QuiverException.class, () -> p.predictAsync(x));
      assertEquals(QuiverException.BUSY, busy.code());
      assertEquals(4000, first.get(120, TimeUnit.SECONDS)[0].length);
      assertEquals(4000, p.predict(x)[0].length); // admitted again once the first finished
    }
  }
}
