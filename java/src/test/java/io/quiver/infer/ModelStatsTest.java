package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Predictor.stats(): the typed statistics agree with the runtime's own JSON and count exactly what the
 * test did: completed requests, requests past their deadline, batches of merged requests.
 */
class ModelStatsTest {
  private static final long[] SAMPLE = {1, 3, 16, 16};

  @Test
  void statsCountRequestsDeadlinesAndBatches() throws Exception {
    Fixtures.require();
    final Map<String, String> options = Map.of("max_batch_size", "8", "batch_timeout_us", "200000");
    try (Predictor p = new Predictor(Fixtures.Case.prefix("tiny"), 0, List.of(Fixtures.data(SAMPLE)), options)) {
      final ModelStats fresh = p.stats();
      assertEquals(0, fresh.requests().admitted());
      // The shape given at creation, compiled at creation for each padded batch size: 1, 2, 4 and 8.
      assertEquals(4, fresh.plans().compiled());
      assertEquals(4, fresh.plans().cached());

      // Eight requests at once fill one batch; then one request whose deadline passes in the queue.
      final List<CompletableFuture<float[][]>> futures = new ArrayList<>();
      for (int i = 0; i < 8; ++i) {
        futures.add(p.predictAsync(new float[3 * 16 * 16]));
      }
      for (CompletableFuture<float[][]> f : futures) {
        f.get();
      }
      final ExecutionException late = assertThrows(ExecutionException.class,
          () -> p.predictAsync(Duration.ofMillis(5), 0, new float[3 * 16 * 16]).get());
      assertEquals(QuiverException.class, late.getCause().getClass());

      final ModelStats s = p.stats();
      assertEquals(9, s.requests().admitted());
      assertEquals(8, s.requests().completed());
      assertEquals(1, s.requests().deadlineExceeded());
      assertEquals(0, s.requests().failed() + s.requests().cancelled() + s.requests().rejectedBusy());
      assertEquals(Map.of(8, 1L), s.batches().sizes());
      assertEquals(8, s.batches().rows());
      assertEquals(1, s.runUs().count());
      assertTrue(s.runUs().p50() > 0 && s.runUs().p50() <= s.runUs().p99(), s.toString());
      assertTrue(s.queueWaitUs().count() >= 8, s.toString());
      // The record is the JSON, read: the same numbers either way.
      assertEquals(s.requests(), ModelStats.fromJson(p.statsJson()).requests());
    }
  }
}
