package io.quiver.infer;

import java.util.Arrays;

/** An immutable tensor shape, outermost dimension first. */
public final class Shape {
  private final long[] dims;

  private Shape(long[] dims) {
    for (long d : dims) {
      if (d < 0) {
        throw new IllegalArgumentException("negative dimension in " + Arrays.toString(dims));
      }
    }
    this.dims = dims;
  }

  public static Shape of(long... dims) {
    return new Shape(dims.clone());
  }

  /** A copy of the dimensions. */
  public long[] dims() {
    return dims.clone();
  }

  public int ndim() {
    return dims.length;
  }

  public long get(int axis) {
    return dims[axis];
  }

  /** The number of elements (1 for a scalar). */
  public long size() {
    long n = 1;
    for (long d : dims) {
      n = Math.multiplyExact(n, d);
    }
    return n;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Shape && Arrays.equals(dims, ((Shape) other).dims);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(dims);
  }

  /** {@code (1, 3, 224, 224)}. */
  @Override
  public String toString() {
    final StringBuilder s = new StringBuilder("(");
    for (int i = 0; i < dims.length; ++i) {
      s.append(i == 0 ? "" : ", ").append(dims[i]);
    }
    return s.append(dims.length == 1 ? ",)" : ")").toString();
  }
}
