package io.quiver.infer.internal;

import io.quiver.infer.QuiverException;
import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * Ownership of one native handle used by many threads.
 *
 * <p>Each call that passes the handle to the runtime brackets its use with {@link #acquire()} and
 * {@link #release()}; {@link #close()} frees the handle at once if no call uses it, otherwise when the
 * last one releases it, so closing never pulls a handle from under a running call. If the owner becomes
 * unreachable without being closed, a {@link Cleaner} frees the handle and logs the leak (the safety
 * net; closing is the way).
 */
public final class NativeHandle {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final System.Logger LOG = System.getLogger("io.quiver.infer");

  private final State state;
  private final Cleaner.Cleanable cleanable;

  /**
   * @param owner the object whose reachability bounds the handle's life (not referenced by the cleanup)
   * @param handle the native handle, now owned by this object
   * @param free the Qv*Free call for it
   * @param what the owner's class as messages name it ("Predictor")
   */
  public NativeHandle(Object owner, long handle, LongConsumer free, String what) {
    this.state = new State(handle, free, what);
    this.cleanable = CLEANER.register(owner, state);
  }

  /** The handle, in use until the matching {@link #release()}; throws once closed. */
  public long acquire() {
    return state.acquire();
  }

  public void release() {
    state.release();
  }

  /**
   * Keeps the handle alive, even past {@link #close()}, while {@code holder} is reachable (for views of
   * native memory handed out to callers, which must never outlive it).
   */
  public void holdWhileReachable(Object holder) {
    state.acquire();
    CLEANER.register(holder, state::release);
  }

  /** Frees the handle now, or when the last call using it releases it. Idempotent. */
  public void close() {
    state.closedByOwner = true;
    cleanable.clean();
  }

  public boolean isClosed() {
    return state.isClosed();
  }

  /** The handle's state; also the Cleaner's action, so it must not refer to the owner. */
  private static final class State implements Runnable {
    private final LongConsumer free;
    private final String what;
    private long handle;
    private int users;
    private boolean closed;
    private volatile boolean closedByOwner;

    State(long handle, LongConsumer free, String what) {
      this.handle = handle;
      this.free = free;
      this.what = what;
    }

    synchronized long acquire() {
      if (closed) {
        throw new QuiverException(QuiverException.INVALID_ARGUMENT, "this " + what + " is closed");
      }
      ++users;
      return handle;
    }

    void release() {
      final long unused;
      synchronized (this) {
        --users;
        unused = takeIfUnused();
      }
      freeIfSet(unused);
    }

    synchronized boolean isClosed() {
      return closed;
    }

    @Override
    public void run() {
      if (!closedByOwner) {
        LOG.log(System.Logger.Level.WARNING, "LEAK: a {0} was never closed; the garbage collector frees its native "
            + "memory now. Close it (try-with-resources) to free memory when you are done.", what);
      }
      final long unused;
      synchronized (this) {
        closed = true;
        unused = takeIfUnused();
      }
      freeIfSet(unused);
    }

    private long takeIfUnused() {
      if (!closed || users > 0 || handle == 0) {
        return 0;
      }
      final long taken = handle;
      handle = 0;
      return taken;
    }

    private void freeIfSet(long taken) {
      if (taken != 0) {
        free.accept(taken);
      }
    }
  }
}
