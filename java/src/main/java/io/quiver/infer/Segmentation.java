package io.quiver.infer;

import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One image's segmentation, at the image's size: the class of every pixel and the probability the
 * model gives it there, row-major ({@code y * width + x}). Immutable.
 */
public final class Segmentation {
  private final int width;
  private final int height;
  private final int[] classIds;
  private final float[] scores;
  private final List<String> labels;

  Segmentation(int width, int height, int[] classIds, float[] scores, List<String> labels) {
    this.width = width;
    this.height = height;
    this.classIds = classIds;
    this.scores = scores;
    this.labels = List.copyOf(labels);
  }

  public int width() {
    return width;
  }

  public int height() {
    return height;
  }

  /** Every class's label, indexed by class id. */
  public List<String> labels() {
    return labels;
  }

  public int classId(int x, int y) {
    return classIds[index(x, y)];
  }

  public float score(int x, int y) {
    return scores[index(x, y)];
  }

  public String label(int x, int y) {
    return labels.get(classId(x, y));
  }

  /** The class ids, row-major (a copy). */
  public int[] classIds() {
    return classIds.clone();
  }

  /** The scores, row-major (a copy). */
  public float[] scores() {
    return scores.clone();
  }

  /** The classes present, each with its share of the image's pixels, largest first. */
  public Map<String, Double> classShares() {
    final long[] counts = new long[labels.size()];
    for (int id : classIds) {
      ++counts[id];
    }
    final List<Integer> present = new ArrayList<>();
    for (int c = 0; c < counts.length; ++c) {
      if (counts[c] > 0) {
        present.add(c);
      }
    }
    present.sort(Comparator.comparingLong((Integer c) -> -counts[c]));
    final Map<String, Double> shares = new LinkedHashMap<>();
    for (int c : present) {
      shares.put(labels.get(c), (double) counts[c] / classIds.length);
    }
    return shares;
  }

  /**
   * The classes as an indexed-colour image: each pixel's index is its class id, coloured by the PASCAL
   * VOC palette (class 0 black). Models with more than 256 classes do not fit one.
   */
  public BufferedImage mask() {
    if (labels.size() > 256) {
      throw new QuiverException(QuiverException.INVALID_ARGUMENT,
          "a palette image holds 256 classes; this model has " + labels.size());
    }
    final byte[][] rgb = new byte[3][256];
    for (int id = 0; id < 256; ++id) {
      for (int level = 0; level < 8; ++level) {
        for (int channel = 0; channel < 3; ++channel) {
          rgb[channel][id] |= (byte) (((id >> (3 * level + channel)) & 1) << (7 - level));
        }
      }
    }
    final BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_INDEXED,
        new IndexColorModel(8, 256, rgb[0], rgb[1], rgb[2]));
    final byte[] pixels = new byte[classIds.length];
    for (int i = 0; i < pixels.length; ++i) {
      pixels[i] = (byte) classIds[i];
    }
    image.getRaster().setDataElements(0, 0, width, height, pixels);
    return image;
  }

  private int index(int x, int y) {
    if (x < 0 || x >= width || y < 0 || y >= height) {
      throw new IndexOutOfBoundsException("pixel (" + x + ", " + y + ") is outside " + width + " x " + height);
    }
    return y * width + x;
  }
}
