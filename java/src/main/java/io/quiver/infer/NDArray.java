package io.quiver.infer;

import io.quiver.infer.internal.NativeHandle;
import io.quiver.infer.internal.QuiverCapi;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A dense, row-major tensor in native memory: the input and output type of
 * {@link Predictor#predict(NDArray...)}, for data that should not be copied, and of inputs that are not
 * float32 ({@link #of(int[], long...)} for token ids).
 *
 * <p>{@link #wrap} makes an array over a direct {@link ByteBuffer} without copying it; outputs of a
 * prediction hand their native memory out through {@link #buffer()} without copying either (a GPU
 * model's outputs live in GPU memory: {@link #buffer()} copies them to the host once). An array is
 * safe to read from several threads. Close it to free its native memory (a {@code Cleaner} frees
 * forgotten ones and logs them); memory viewed through {@link #buffer()} stays until the view is gone too.
 */
public final class NDArray implements AutoCloseable {
  private final NativeHandle handle;
  private final Shape shape;
  private final DType dtype;
  private final ByteBuffer wrapped; // the caller memory a wrapping array reads, kept alive with it
  private ByteBuffer view; // the native memory, once buffer() handed it out

  /** Takes ownership of a native array handle (once constructed: if this throws, the caller keeps it). */
  NDArray(long handle, ByteBuffer wrapped) {
    final long[][] dims = new long[1][];
    final int[] code = new int[1];
    QuiverCapi.QvNDArrayGetShape(handle, dims);
    QuiverCapi.QvNDArrayGetDType(handle, code);
    this.shape = Shape.of(dims[0]);
    this.dtype = DType.fromCode(code[0]);
    this.wrapped = wrapped;
    this.handle = new NativeHandle(this, handle, h -> QuiverCapi.QvNDArrayFree(h), "NDArray");
  }

  /** A new float32 array holding a copy of {@code data}, whose length must be the shape's size. */
  public static NDArray of(float[] data, long... shape) {
    return adopt(newFloats(data, shape), null);
  }

  /** A new native float32 array (a handle the caller owns) holding a copy of {@code data}. */
  static long newFloats(float[] data, long[] shape) {
    final long[] out = new long[1];
    QuiverCapi.QvNDArrayCreate(shape, QuiverCapi.QV_CPU, 0, DType.FLOAT32.code(), out);
    try {
      QuiverCapi.QvjWriteFloats(out[0], data);
    } catch (RuntimeException e) {
      QuiverCapi.QvNDArrayFree(out[0]);
      throw e;
    }
    return out[0];
  }

  /**
   * A new int32 array holding a copy of {@code data} (token ids, lengths), whose length must be the
   * shape's size. An input takes exactly the type {@link Predictor#inputDTypes()} says.
   */
  public static NDArray of(int[] data, long... shape) {
    Objects.requireNonNull(data, "data");
    return adopt(newArray(DType.INT32, data.length, shape, memory -> memory.asIntBuffer().put(data)), null);
  }

  /** A new int64 array holding a copy of {@code data}, whose length must be the shape's size. */
  public static NDArray of(long[] data, long... shape) {
    Objects.requireNonNull(data, "data");
    return adopt(newArray(DType.INT64, data.length, shape, memory -> memory.asLongBuffer().put(data)), null);
  }

  /** A new native CPU array (a handle the caller owns) of {@code length} elements, filled through its memory. */
  private static long newArray(DType dtype, int length, long[] shape, Consumer<ByteBuffer> fill) {
    final Shape dims = Shape.of(shape);
    if (length != dims.size()) {
      throw new QuiverException(QuiverException.SHAPE, "the " + dtype.name().toLowerCase(Locale.ROOT) + " data has "
          + length + " elements, but shape " + dims + " holds " + dims.size());
    }
    final long[] out = new long[1];
    QuiverCapi.QvNDArrayCreate(shape, QuiverCapi.QV_CPU, 0, dtype.code(), out);
    try {
      // A new array: nothing reads or writes its memory yet, and the view is dropped before it is shared.
      fill.accept(QuiverCapi.QvjDirectBuffer(out[0]).order(ByteOrder.nativeOrder()));
    } catch (RuntimeException e) {
      QuiverCapi.QvNDArrayFree(out[0]);
      throw e;
    }
    return out[0];
  }

  private static NDArray adopt(long handle, ByteBuffer wrapped) {
    try {
      return new NDArray(handle, wrapped);
    } catch (RuntimeException e) {
      QuiverCapi.QvNDArrayFree(handle);
      throw e;
    }
  }

  /**
   * An array over a direct buffer's memory, without copying: exactly the shape's size in bytes, its
   * elements in native byte order ({@code ByteBuffer.allocateDirect(n).order(ByteOrder.nativeOrder())}).
   * Predictions read the buffer while they run: do not write to it until they have finished.
   */
  public static NDArray wrap(ByteBuffer buffer, DType dtype, long... shape) {
    Objects.requireNonNull(buffer, "buffer");
    if (!buffer.isDirect() || buffer.order() != ByteOrder.nativeOrder()) {
      throw new QuiverException(QuiverException.INVALID_ARGUMENT,
          "NDArray.wrap needs a direct ByteBuffer in native byte order (ByteBuffer.allocateDirect(n).order("
              + "ByteOrder.nativeOrder()))");
    }
    final long[] out = new long[1];
    QuiverCapi.QvjWrapDirectBuffer(buffer, shape, dtype.code(), out);
    return adopt(out[0], buffer);
  }

  public Shape shape() {
    return shape;
  }

  public DType dtype() {
    return dtype;
  }

  /** Whether the work producing this array has finished (successfully or not). Never blocks. */
  public boolean isReady() {
    final int[] ready = new int[1];
    final long h = handle.acquire();
    try {
      QuiverCapi.QvNDArrayCanRead(h, ready);
    } finally {
      handle.release();
    }
    return ready[0] != 0;
  }

  /** Blocks until the work producing this array has finished; throws its failure if it failed. */
  public void waitToRead() {
    final long h = handle.acquire();
    try {
      QuiverCapi.QvNDArrayWaitToRead(h);
    } finally {
      handle.release();
    }
  }

  /**
   * The array's native memory as a direct buffer in native byte order, without copying (waits until it
   * is readable first). The memory stays valid while the buffer (or any view of it) is reachable, even
   * after {@link #close()}: it is freed once both have happened. An array on a GPU (a model created with
   * {@code device=gpu(N)}) has no host memory to view: its elements are copied into a new direct buffer
   * once, which later calls view again.
   */
  public ByteBuffer buffer() {
    synchronized (this) {
      if (view == null) {
        final long h = handle.acquire();
        try {
          QuiverCapi.QvNDArrayWaitToRead(h);
          if (isOnCpu(h)) {
            view = QuiverCapi.QvjDirectBuffer(h);
            handle.holdWhileReachable(view);
          } else {
            view = ByteBuffer.allocateDirect(Math.toIntExact(shape.size() * dtype.byteSize()));
            QuiverCapi.QvjCopyToDirectBuffer(h, view);
          }
        } finally {
          handle.release();
        }
      }
    }
    // Duplicates (and their views) keep `view` reachable: the JDK links derived direct buffers to it.
    return view.duplicate().order(ByteOrder.nativeOrder());
  }

  /** A copy of a float32 array's elements (waits until it is readable first). */
  public float[] toFloatArray() {
    final long h = handle.acquire();
    try {
      QuiverCapi.QvNDArrayWaitToRead(h);
      final float[] values = new float[Math.toIntExact(shape.size())];
      QuiverCapi.QvjReadFloats(h, values);
      return values;
    } finally {
      handle.release();
    }
  }

  /** Frees the native memory (safe while work on the array is pending). Idempotent. */
  @Override
  public void close() {
    handle.close();
  }

  @Override
  public String toString() {
    return "NDArray" + shape + " " + dtype + (handle.isClosed() ? " (closed)" : "");
  }

  private static boolean isOnCpu(long h) {
    final int[] type = new int[1];
    final int[] id = new int[1];
    QuiverCapi.QvNDArrayGetDevice(h, type, id);
    return type[0] == QuiverCapi.QV_CPU;
  }

  long acquire() {
    return handle.acquire();
  }

  void release() {
    handle.release();
  }
}
