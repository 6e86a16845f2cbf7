package io.quiver.infer;

import io.quiver.infer.internal.QuiverCapi;
import io.quiver.infer.internal.ReadyListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Completes a future when every output of one invocation is readable, driven by the runtime's OnReady
 * callbacks (no thread waits or polls). Owns the output handles until it hands them to {@code collect}
 * (which takes them over) or frees them after a failure.
 */
final class PendingOutputs<T> implements ReadyListener {
  private final long[] outputs;
  private final Function<long[], T> collect;
  private final Consumer<T> discard;
  private final CompletableFuture<T> future = new CompletableFuture<>();
  private final AtomicInteger pending;
  private Object keepalive; // what the computation reads (caller buffers), dropped once it has finished
  private int failure;
  private String failureMessage;

  private PendingOutputs(long[] outputs, Function<long[], T> collect, Consumer<T> discard, Object keepalive) {
    this.outputs = outputs;
    this.collect = collect;
    this.discard = discard;
    this.keepalive = keepalive;
    this.pending = new AtomicInteger(outputs.length);
  }

  /**
   * A future for the outputs. {@code collect} turns readable outputs into the result (owning the
   * handles from then on); {@code discard} disposes of a result nobody can receive (a cancelled future).
   */
  static <T> CompletableFuture<T> of(long[] outputs, Function<long[], T> collect, Consumer<T> discard,
                                     Object keepalive) {
    final PendingOutputs<T> pending = new PendingOutputs<>(outputs, collect, discard, keepalive);
    pending.register();
    return pending.future;
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
      finish();
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
      keepalive = null;
      status = failure;
      message = failureMessage;
    }
    if (status != 0) {
      for (long handle : outputs) {
        QuiverCapi.QvNDArrayFree(handle);
      }
      future.completeExceptionally(new QuiverException(status, message));
      return;
    }
    final T result;
    try {
      result = collect.apply(outputs);
    } catch (RuntimeException | Error e) {
      future.completeExceptionally(e);
      return;
    }
    if (!future.complete(result)) {
      discard.accept(result);
    }
  }
}
