package io.quiver.infer;

/**
 * A failure reported by the Quiver runtime (or found before calling it): {@link #code()} is the native
 * {@code QvStatus} value, the message names what was wrong (a path, a node, a shape).
 */
public class QuiverException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A null handle, a bad flag, a wrong count, a closed object. */
  public static final int INVALID_ARGUMENT = 1;
  /** A missing file, parameter or name. */
  public static final int NOT_FOUND = 2;
  /** Malformed symbol JSON or .params bytes. */
  public static final int PARSE = 3;
  /** Shapes or element types that do not fit the model. */
  public static final int SHAPE = 4;
  /** An operator, element type, device or file version Quiver does not run. */
  public static final int UNSUPPORTED = 5;
  /** {@code max_inflight} predictions are in flight already, or {@code max_queue} are queued. */
  public static final int BUSY = 6;
  /** An allocation failed or a size exceeds what can be allocated. */
  public static final int OUT_OF_MEMORY = 7;
  /** A device that is missing or failed. */
  public static final int DEVICE = 8;
  /** A bug in Quiver: please report it with the message. */
  public static final int INTERNAL = 9;
  /**
   * The prediction was cancelled (QvCancel). A cancelled future reports it as a
   * {@link java.util.concurrent.CancellationException} instead, as {@code CompletableFuture} users expect.
   */
  public static final int CANCELLED = 10;
  /** The prediction's timeout passed before it finished: the runtime dropped it, it never runs late. */
  public static final int DEADLINE_EXCEEDED = 11;

  private final int code;

  public QuiverException(int code, String message) {
    super(message);
    this.code = code;
  }

  /** With the failure underneath (an {@code IOException} reading a model file, say). */
  public QuiverException(int code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /** The {@code QvStatus} code. */
  public int code() {
    return code;
  }
}
