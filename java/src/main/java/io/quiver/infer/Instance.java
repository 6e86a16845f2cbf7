package io.quiver.infer;

import java.util.BitSet;

/**
 * One detected object with its mask ({@link ObjectDetector#detectInstances}): the {@link Detection}
 * (label, score, box in the pixel coordinates of the image given) and which of the image's pixels
 * belong to the object. The mask covers the whole image ({@link #width()} x {@link #height()}); pixels
 * outside the detection's box never belong to it. Immutable.
 */
public final class Instance {
  private final Detection detection;
  private final int width;
  private final int height;
  private final BitSet mask;

  /** Takes {@code mask}: bit {@code y * width + x} is pixel (x, y). */
  Instance(Detection detection, int width, int height, BitSet mask) {
    this.detection = detection;
    this.width = width;
    this.height = height;
    this.mask = mask;
  }

  /** The detection alone, as {@link ObjectDetector#detect} gives it. */
  public Detection detection() {
    return detection;
  }

  public String label() {
    return detection.label();
  }

  public float score() {
    return detection.score();
  }

  public float xmin() {
    return detection.xmin();
  }

  public float ymin() {
    return detection.ymin();
  }

  public float xmax() {
    return detection.xmax();
  }

  public float ymax() {
    return detection.ymax();
  }

  /** The image's width, in pixels. */
  public int width() {
    return width;
  }

  /** The image's height, in pixels. */
  public int height() {
    return height;
  }

  /** Whether pixel (x, y) of the image belongs to the object. */
  public boolean contains(int x, int y) {
    if (x < 0 || x >= width || y < 0 || y >= height) {
      throw new IndexOutOfBoundsException("pixel (" + x + ", " + y + ") is outside " + width + " x " + height);
    }
    return mask.get(y * width + x);
  }

  /** The mask, row-major: bit {@code y * width + x} is set when pixel (x, y) belongs to the object (a copy). */
  public BitSet mask() {
    return (BitSet) mask.clone();
  }

  @Override
  public String toString() {
    return "Instance[" + detection + ", " + mask.cardinality() + " of " + width + " x " + height + " pixels]";
  }
}
