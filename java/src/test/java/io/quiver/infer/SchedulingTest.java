package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The scheduling options (request queue, dynamic batching) through the options map, timeouts (deadlines),
 * priorities and CompletableFuture.cancel, driven from many threads on the tiny fixture: every result
 * that is not cancelled or past its deadline equals, bit for bit, the unbatched Predictor's.
 */
class SchedulingTest {
  private static final long[] SAMPLE = {1, 3, 16, 16};
  private static final int SAMPLE_SIZE = 3 * 16 * 16;

  private static Predictor open(Map<String, String> options) {
    return new Predictor(Fixtures.Case.prefix("tiny"), 0, List.of(Fixtures.data(SAMPLE)), options);
  }

  /** Distinct batch-1 inputs, so that a request handed another's rows would be caught. */
  private static List<float[]> samples(int count, long seed) {
    final Random random = new Random(seed);
    final List<float[]> samples = new ArrayList<>();
    for (int i = 0; i < count; ++i) {
      final float[] x = new float[SAMPLE_SIZE];
      for (int j = 0; j < x.length; ++j) {
        x[j] = (float) random.nextGaussian();
      }
      samples.add(x);
    }
    return samples;
  }

  private static List<float[]> unbatched(List<float[]> samples) {
    try (Predictor plain = open(Map.of())) {
      final List<float[]> outputs = new ArrayList<>();
      for (float[] x : samples) {
        outputs.add(plain.predict(x)[0]);
      }
      return outputs;
    }
  }

  private static QuiverException quiverCause(ExecutionException e) {
    return assertInstanceOf(QuiverException.class, e.getCause());
  }

  @Test
  void manyThreadsThroughABatchingPredictorMatchUnbatchedRunsAndMxnet() throws Exception {
    Fixtures.require();
    final Fixtures.Case tiny = Fixtures.tiny(); // MXNet's rows: each request must get its own
    final float[] mxnetIn = tiny.input();
    final float[] mxnetOut = tiny.mxnetOutput();
    final List<float[]> samples = samples(62, 9);
    samples.add(Arrays.copyOfRange(mxnetIn, 0, SAMPLE_SIZE));
    samples.add(Arrays.copyOfRange(mxnetIn, SAMPLE_SIZE, 2 * SAMPLE_SIZE));
    final List<float[]> expected = unbatched(samples);

    final int threads = 32;
    final int perThread = 20;
    final ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Predictor p = open(Map.of("max_batch_size", "8", "batch_timeout_us", "2000", "max_inflight", "1024"))) {
      final List<Future<List<float[]>>> clients = new ArrayList<>();
      for (int t = 0; t < threads; ++t) {
        final int first = t;
        clients.add(pool.submit(() -> {
          final List<CompletableFuture<float[][]>> async = new ArrayList<>();
          final List<float[]> got = new ArrayList<>();
          for (int k = 0; k < perThread; ++k) {
            final float[] x = samples.get((first + k) % samples.size());
            if (k % 2 == 0) {
              got.add(p.predict(x)[0]);
              async.add(null);
            } else {
              got.add(null);
              async.add(p.predictAsync(null, k % 3, x));
            }
          }
          for (int k = 0; k < perThread; ++k) {
            if (async.get(k) != null) {
              got.set(k, async.get(k).get(60, TimeUnit.SECONDS)[0]);
            }
          }
          return got;
        }));
      }
      for (int t = 0; t < threads; ++t) {
        final List<float[]> got = clients.get(t).get(120, TimeUnit.SECONDS);
        for (int k = 0; k < perThread; ++k) {
          final int i = (t + k) % samples.size();
          assertArrayEquals(expected.get(i), got.get(k), "thread " + t + ", request " + k + " (sample " + i + ")");
        }
      }
    } finally {
      pool.shutdown();
    }
    final float scale = Fixtures.maxAbs(mxnetOut);
    final float[] mxnetRows = new float[mxnetOut.length];
    System.arraycopy(expected.get(62), 0, mxnetRows, 0, 10);
    System.arraycopy(expected.get(63), 0, mxnetRows, 10, 10);
    assertTrue(Fixtures.maxAbsDiff(mxnetRows, mxnetOut) <= 1e-4f * scale, "against MXNet");
  }

  @Test
  void maxQueueGivesBusyAndCancellingAQueuedPredictionCompletesItAtOnce() throws Exception {
    Fixtures.require();
    final float[] x = samples(1, 1).get(0);
    try (Predictor p = open(Map.of("max_batch_size", "4", "batch_timeout_us", "60000000", "max_queue", "1"))) {
      final CompletableFuture<float[][]> first = p.predictAsync(x);
      final QuiverException busy = assertThrows(QuiverException.class, () -> p.predictAsync(x));
      assertEquals(QuiverException.BUSY, busy.code());
      assertTrue(busy.getMessage().contains("max_queue"), busy.getMessage());
      final long start = System.nanoTime();
      assertTrue(first.cancel(true));
      assertTrue(first.isCancelled() && first.isDone());
      assertThrows(CancellationException.class, () -> first.get(5, TimeUnit.SECONDS));
      assertTrue(first.cancel(false), "cancelling again reports the cancellation");
      // The queue's place is free again: a prediction with a timeout takes it and is dropped at its deadline.
      final ExecutionException late = assertThrows(ExecutionException.class,
          () -> p.predictAsync(Duration.ofMillis(20), 0, x).get(5, TimeUnit.SECONDS));
      assertEquals(QuiverException.DEADLINE_EXCEEDED, quiverCause(late).code());
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "nothing waited for the batch timeout");
    }
  }

  @Test
  void aTimeoutEndsAQueuedPredictionWithDeadlineExceeded() throws Exception {
    Fixtures.require();
    final float[] x = samples(1, 2).get(0);
    try (Predictor p = open(Map.of("max_batch_size", "8", "batch_timeout_us", "60000000"))) {
      final long start = System.nanoTime();
      final QuiverException late = assertThrows(QuiverException.class, () -> p.predict(Duration.ofMillis(100), 0, x));
      final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertEquals(QuiverException.DEADLINE_EXCEEDED, late.code());
      assertTrue(late.getMessage().contains("deadline"), late.getMessage());
      assertTrue(elapsedMs >= 90 && elapsedMs < 5000, "answered after " + elapsedMs + " ms");
      for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1))) {
        final QuiverException invalid = assertThrows(QuiverException.class, () -> p.predictAsync(bad, 0, x));
        assertEquals(QuiverException.INVALID_ARGUMENT, invalid.code());
        assertTrue(invalid.getMessage().contains("timeout"), invalid.getMessage());
      }
    }
  }

  /** One submitted prediction: kind 0 plain, 1 cancelled at once, 2 given a 1 us deadline. */
  private record Request(int sample, int kind, CompletableFuture<float[][]> future, boolean cancelTookEffect) {}

  @Test
  void cancellationAndShortDeadlinesUnderLoadLeaveTheOtherResultsExact() throws Exception {
    Fixtures.require();
    final List<float[]> samples = samples(32, 3);
    final List<float[]> expected = unbatched(samples);
    final int threads = 8;
    final int perThread = 40;
    final ExecutorService pool = Executors.newFixedThreadPool(threads);
    int cancelled = 0;
    int lateOnes = 0;
    int correct = 0;
    try (Predictor p = open(Map.of("max_batch_size", "16", "batch_timeout_us", "2000", "max_inflight", "1024"))) {
      final List<Future<List<Request>>> clients = new ArrayList<>();
      for (int t = 0; t < threads; ++t) {
        final int first = t;
        clients.add(pool.submit(() -> {
          final List<Request> submitted = new ArrayList<>();
          for (int k = 0; k < perThread; ++k) {
            final int i = (first * perThread + k) % samples.size();
            final int kind = k % 3;
            final Duration timeout = kind == 2 ? Duration.ofNanos(1000) : null;
            final CompletableFuture<float[][]> f = p.predictAsync(timeout, k % 4, samples.get(i));
            final boolean tookEffect = kind == 1 && f.cancel(true);
            submitted.add(new Request(i, kind, f, tookEffect));
          }
          return submitted;
        }));
      }
      for (Future<List<Request>> client : clients) {
        for (Request request : client.get(120, TimeUnit.SECONDS)) {
          final int i = request.sample();
          final int kind = request.kind();
          final CompletableFuture<float[][]> f = request.future();
          if (request.cancelTookEffect()) {
            assertTrue(f.isCancelled());
            assertThrows(CancellationException.class, () -> f.get(60, TimeUnit.SECONDS));
            ++cancelled;
            continue;
          }
          try {
            assertArrayEquals(expected.get(i), f.get(60, TimeUnit.SECONDS)[0], "sample " + i + ", kind " + kind);
            ++correct;
          } catch (ExecutionException e) {
            assertEquals(2, kind, "only a request with a deadline may fail: " + e.getCause());
            assertEquals(QuiverException.DEADLINE_EXCEEDED, quiverCause(e).code());
            ++lateOnes;
          }
        }
      }
    } finally {
      pool.shutdown();
    }
    assertEquals(threads * perThread, cancelled + lateOnes + correct);
    assertTrue(cancelled > 0, "no cancellation took effect");
    assertTrue(lateOnes > 0, "no 1 us deadline passed");
    assertTrue(correct >= threads * perThread / 3, correct + " correct results");
  }

  @Test
  void cancellingAQueuedNDArrayPredictionEndsItAndLeavesItsInputUsable() throws Exception {
    Fixtures.require();
    final float[] x = samples(1, 4).get(0);
    final float[] expected = unbatched(List.of(x)).get(0);
    try (Predictor queued = open(Map.of("max_batch_size", "4", "batch_timeout_us", "60000000"));
         Predictor plain = open(Map.of());
         NDArray input = NDArray.wrap(Fixtures.direct(x), DType.FLOAT32, SAMPLE)) {
      final CompletableFuture<NDArray[]> f = queued.predictAsync(null, 0, input);
      final long start = System.nanoTime();
      assertTrue(f.cancel(false));
      assertThrows(CancellationException.class, f::join);
      Quiver.waitAll(); // the dropped request has ended: nothing waits for the 60 s batch timeout
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
      final NDArray[] out = plain.predict(input);
      try {
        final float[] values = new float[10];
        out[0].buffer().asFloatBuffer().get(values);
        assertArrayEquals(expected, values);
      } finally {
        out[0].close();
      }
    }
  }

  @Test
  void cancellingAFinishedPredictionChangesNothing() throws Exception {
    Fixtures.require();
    final float[] x = samples(1, 5).get(0);
    try (Predictor p = open(Map.of())) {
      final CompletableFuture<float[][]> f = p.predictAsync(x);
      final float[] result = f.get(60, TimeUnit.SECONDS)[0];
      assertFalse(f.cancel(true));
      assertFalse(f.isCancelled());
      assertArrayEquals(p.predict(x)[0], result);
      assertArrayEquals(result, f.join()[0]);
    }
  }
}
