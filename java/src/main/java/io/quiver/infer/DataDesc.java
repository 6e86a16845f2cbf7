package io.quiver.infer;

import java.util.Arrays;
import java.util.Objects;

/**
 * Describes one model input: its name in the symbol, its shape (batch first; the batch size given here
 * is the one compiled ahead of time, any batch size runs), its element type and its layout (axis
 * letters: {@code "NCHW"} for images, which image classes use to find C, H and W). Immutable.
 */
public final class DataDesc {
  private final String name;
  private final long[] shape;
  private final DType dtype;
  private final String layout;

  /** A float32 input with the default layout for its rank: "NC", "NCW", "NCHW" or "NCDHW". */
  public DataDesc(String name, long[] shape) {
    this(name, shape, DType.FLOAT32, defaultLayout(shape.length));
  }

  public DataDesc(String name, long[] shape, DType dtype, String layout) {
    this.name = Objects.requireNonNull(name, "name");
    this.shape = Shape.of(Objects.requireNonNull(shape, "shape")).dims();
    this.dtype = Objects.requireNonNull(dtype, "dtype");
    this.layout = Objects.requireNonNull(layout, "layout");
    if (!layout.isEmpty() && layout.length() != shape.length) {
      throw new IllegalArgumentException("input '" + name + "': layout '" + layout + "' has " + layout.length()
          + " axes but shape " + Shape.of(shape) + " has " + shape.length);
    }
  }

  public String name() {
    return name;
  }

  /** A copy of the shape. */
  public long[] shape() {
    return shape.clone();
  }

  public DType dtype() {
    return dtype;
  }

  public String layout() {
    return layout;
  }

  /** The position of an axis letter in the layout ({@code axis('C')}), or -1. */
  public int axis(char letter) {
    return layout.indexOf(letter);
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof DataDesc)) {
      return false;
    }
    final DataDesc d = (DataDesc) other;
    return name.equals(d.name) && Arrays.equals(shape, d.shape) && dtype == d.dtype && layout.equals(d.layout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, Arrays.hashCode(shape), dtype, layout);
  }

  @Override
  public String toString() {
    return "DataDesc(" + name + ", " + Shape.of(shape) + ", " + dtype + ", " + layout + ")";
  }

  private static String defaultLayout(int rank) {
    switch (rank) {
      case 2: return "NC";
      case 3: return "NCW";
      case 4: return "NCHW";
      case 5: return "NCDHW";
      default: return "";
    }
  }
}
