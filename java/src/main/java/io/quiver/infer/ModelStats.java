package io.quiver.infer;

import com.google.gson.FieldNamingPolicy;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.util.Map;

/**
 * What a model has done since it was loaded ({@code QvCachedOpGetStats}), counted as it happens: requests by
 * how they ended, queue waits and run times as percentiles, the rows of its batches, and its plans.
 *
 * <pre>{@code
 * ModelStats s = predictor.stats();
 * long done = s.requests().completed();
 * double p99 = s.runUs().p99();                  // microseconds
 * Map<Integer, Long> sizes = s.batches().sizes(); // rows of requests per batch -> batches
 * }</pre>
 *
 * @param requests requests admitted, refused and ended, by how they ended
 * @param queueWaitUs from submission to the start of the request's batch (models with a request queue)
 * @param runUs from the start of a run to its end (a batch counts once)
 * @param batches the runs of a request queue
 * @param plans the plans compiled (one per input shape), kept and evicted
 */
public record ModelStats(Requests requests, Durations queueWaitUs, Durations runUs, Batches batches, Plans plans) {

  /**
   * Requests counted when admitted, and again by how they ended once their outputs became readable.
   *
   * @param rejectedBusy submissions refused by {@code max_inflight} or {@code max_queue}
   */
  public record Requests(long admitted, long rejectedBusy, long completed, long failed, long cancelled,
                         long deadlineExceeded) {}

  /** A duration's count and percentiles, in microseconds (each within 12.5% of the true value). */
  public record Durations(long count, double p50, double p90, double p99) {}

  /**
   * Batches run, the rows of requests they held, the zero rows added to reach a compiled size, and the
   * batches by their rows of requests, up to {@code max_batch_size} (a request over it runs alone and is
   * counted in {@link Predictor#statsJson}'s {@code batches.oversize}).
   */
  public record Batches(long count, long rows, long paddingRows, Map<Integer, Long> sizes) {}

  /** Plans compiled, kept now, and dropped by the {@code max_plans} bound. */
  public record Plans(long compiled, long cached, long evicted) {}

  private static final Gson GSON =
      new GsonBuilder().setFieldNamingPolicy(FieldNamingPolicy.LOWER_CASE_WITH_UNDERSCORES).create();

  /** The statistics from {@code QvCachedOpGetStats}'s JSON. */
  public static ModelStats fromJson(String json) {
    return GSON.fromJson(json, ModelStats.class);
  }
}
