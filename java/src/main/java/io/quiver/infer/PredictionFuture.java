package io.quiver.infer;

import io.quiver.infer.internal.QuiverCapi;
import io.quiver.infer.internal.ReadyListener;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The future of one invocation: completed when every output is readable, driven by the runtime's
 * OnReady callbacks (no thread waits or polls). Owns the output handles until it hands them to
 * {@code collect} (which takes them over) or frees them after a failure.
 *
 * <p>The last callback hands the completion to the {@code quiver-completions} threads: stages chained
 * with {@code thenApply} run there, never on the runtime's one callback thread, so a stage that waits
 * for another prediction ({@code join()}) holds one completion thread while the callbacks go on.
 *
 * <p>{@link #cancel(boolean)} cancels the invocation itself (QvCancel): a queued prediction is dropped,
 * a running one stops at its next operator or leaves its batch. What the computation reads stays alive
 * until the runtime has let go of it (the last OnReady), even though the future completes at once.
 */
final class PredictionFuture<T> extends CompletableFuture<T> implements ReadyListener {
  // Grows only while every thread is busy in a stage; idle threads end after a minute.
  private static final Executor COMPLETIONS = Executors.newCachedThreadPool(task -> {
    final Thread thread = new Thread(task, "quiver-completions");
    thread.setDaemon(true);
    return thread;
  });

  private final long[] outputs;
  private final Function<long[], T> collect;
  private final Consumer<T> discard;
  private final AtomicInteger pending;
  // Guarded by this: the outputs stay valid (for QvCancel) until finished is set.
  private boolean finished;
  private Object keepalive; // what the computation reads (caller buffers), dropped once it has finished
  private int failure;
  private String failureMessage;

  private PredictionFuture(long[] outputs, Function<long[], T> collect, Consumer<T> discard, Object keepalive) {
    this.outputs = outputs;
    this.collect = collect;
    this.discard = discard;
    this.keepalive = keepalive;
    this.pending = new AtomicInteger(outputs.length);
  }

  /**
   * A future for the outputs. {@code collect} turns readable outputs into the result (owning the
   * handles from then on); {@code discard} disposes of a result nobody can receive (a future completed
   * or cancelled before the outputs were ready).
   */
  static <T> CompletableFuture<T> of(long[] outputs, Function<long[], T> collect, Consumer<T> discard,
                                     Object keepalive) {
    final PredictionFuture<T> future = new PredictionFuture<>(outputs, collect, discard, keepalive);
    future.register();
    return future;
  }

  /**
   * Cancels the prediction unless it has finished (or is delivering its results already: then this
   * returns false and the future completes normally). When it takes effect the future completes with a
   * {@link CancellationException} at once. Never blocks; {@code mayInterruptIfRunning} has no effect.
   */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    synchronized (this) {
      if (finished || isDone()) {
        return isCancelled();
      }
      final int[] cancelled = new int[1];
      QuiverCapi.QvCancel(outputs[0], cancelled); // one output ends the whole invocation
      if (cancelled[0] == 0) {
        return false;
      }
    }
    // The outputs' callbacks may have completed it with a CancellationException already.
    return super.cancel(mayInterruptIfRunning) || isCancelled();
  }

  private void register() {
    if (outputs.length == 0) {
      finish();
      return;
    }
    for (int i = 0; i < outputs.length; ++i) {
      try {
        QuiverCapi.QvjOnReady(outputs[i], this);
      } catch (QuiverException e) { // the outputs from i on will never call back: count them done
        recordFailure(e.code(), e.getMessage());
        if (pending.addAndGet(-(outputs.length - i)) == 0) {
          finish();
        }
        return;
      }
    }
  }

  @Override
  public void onReady(int status, String message) {
    if (status != 0) {
      recordFailure(status, message);
    }
    if (pending.decrementAndGet() == 0) {
      COMPLETIONS.execute(this::finish);
    }
  }

  private synchronized void recordFailure(int status, String message) {
    if (failure == 0) {
      failure = status;
      failureMessage = message;
    }
  }

  private void finish() {
    final int status;
    final String message;
    synchronized (this) {
      finished = true;
      keepalive = null;
      status = failure;
      message = failureMessage;
    }
    if (status != 0) {
      for (long handle : outputs) {
        QuiverCapi.QvNDArrayFree(handle);
      }
      completeExceptionally(status == QuiverException.CANCELLED ? new CancellationException(message)
                                                                 : new QuiverException(status, message));
      return;
    }
    final T result;
    try {
      result = collect.apply(outputs);
    } catch (RuntimeException | Error e) {
      completeExceptionally(e);
      return;
    }
    if (!complete(result)) {
      discard.accept(result);
    }
  }
}
