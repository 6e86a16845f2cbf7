package io.quiver.infer;

import io.quiver.infer.internal.QuiverCapi;

/**
 * The runtime's profiler, for every model of the process ({@code QvProfilerStart} and the calls beside it).
 * While it is on, each prediction records a span from its start to its end, each request that waited in a
 * queue a span for the wait, and each operator of the plan a span with its node name, operator type, input
 * shapes and fused nodes (on a GPU timed by CUDA events, on a track per stream). Spans stay in memory until
 * {@link #clear()}.
 *
 * <pre>{@code
 * Profiler.clear();
 * Profiler.start();
 * predictor.predict(input);
 * Profiler.stop();
 * Profiler.dumpTrace("trace.json");            // chrome://tracing or ui.perfetto.dev
 * String table = Profiler.aggregateJson();     // per operator type and per node: count, total, mean, share
 * }</pre>
 */
public final class Profiler {
  private Profiler() {}

  /** Starts recording; spans kept so far stay. */
  public static void start() {
    QuiverCapi.QvProfilerStart();
  }

  /** Stops recording; the spans stay until {@link #clear()}. */
  public static void stop() {
    QuiverCapi.QvProfilerStop();
  }

  /** Drops every span kept. */
  public static void clear() {
    QuiverCapi.QvProfilerClear();
  }

  /** The spans as a Chrome trace: {@code {"traceEvents": [...], ...}}, times in microseconds. */
  public static String traceJson() {
    final String[] json = new String[1];
    QuiverCapi.QvProfilerGetTrace(json);
    return json[0];
  }

  /** Writes the Chrome trace to {@code path}; throws QuiverException (INVALID_ARGUMENT) if it cannot. */
  public static void dumpTrace(String path) {
    QuiverCapi.QvProfilerDumpTrace(path);
  }

  /**
   * Totals per operator type ({@code "operators"}) and per node ({@code "nodes"}, which also name the
   * {@code kernel} that computed the node where the runtime chose one), each row with {@code
   * count}, {@code total_us}, {@code mean_us} and {@code share} of all operator time, longest first; and
   * {@code "invocations"} and {@code "queue"} totals, as JSON.
   */
  public static String aggregateJson() {
    final String[] json = new String[1];
    QuiverCapi.QvProfilerGetAggregate(json);
    return json[0];
  }
}
