package io.quiver.infer;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Semantic segmentation with models whose first output is (N, classes, h, w) class scores, as GluonCV's
 * FCN, PSPNet and DeepLab exports give (an auxiliary head's output, if exported, is ignored).
 *
 * <p>Preprocessing is {@link ImageTransform#detection} for the input's DataDesc size (default 480 x 480):
 * the whole image resized, ImageNet's mean and std, as GluonCV's segmentation models expect. The scores
 * become probabilities over the classes (a softmax, unless they already are non-negative and sum to 1
 * at every pixel), each pixel of the model's map takes its best class, and the map is brought back to
 * the image's size: class ids by nearest neighbour, scores bilinearly (pixel centres aligned, edges
 * clamped), as Python's {@code quiver.Segmenter} does. Labels come from {@code synset.txt} beside the
 * model when it exists, else class ids are the labels. Safe to share across threads.
 */
public class Segmenter implements AutoCloseable {
  private final Predictor predictor;
  private final List<String> labels; // null: class ids as labels
  private final ImageTransform transform;
  private final String layout;

  public Segmenter(String modelPrefix, int epoch, List<DataDesc> inputs) {
    this(new Predictor(modelPrefix, epoch, inputs, Map.of()), Classifier.synsetIfPresent(modelPrefix), null);
  }

  /**
   * Over a Predictor (which it then owns); {@code labels} may be null (class ids become the labels),
   * {@code transform} null for the default.
   */
  public Segmenter(Predictor predictor, List<String> labels, ImageTransform transform) {
    this.predictor = predictor;
    this.labels = labels == null ? null : List.copyOf(labels);
    this.layout = ImageClassifier.imageLayout(predictor);
    this.transform = transform != null ? transform : ImageClassifier.defaultTransform(predictor, 480, 480, false);
  }

  public Predictor predictor() {
    return predictor;
  }

  public ImageTransform transform() {
    return transform;
  }

  /** The segmentation of one image, at its own size. */
  public Segmentation segment(BufferedImage image) {
    return segment(List.of(image)).get(0);
  }

  /** {@link #segment(BufferedImage)} for several images at once (one batch). */
  public List<Segmentation> segment(List<BufferedImage> images) {
    final float[] scores = predictor.predict(transform.apply(images, layout))[0];
    final long[] shape = predictor.lastOutputShape(0);
    if (shape.length != 4 || shape[0] != images.size()) {
      throw new QuiverException(QuiverException.SHAPE, "not a segmentation model: its first output is "
          + Shape.of(shape) + "; expected (N, classes, height, width)");
    }
    final int classes = Math.toIntExact(shape[1]);
    final List<String> names = labels != null ? labels : idLabels(classes);
    if (classes != names.size()) {
      throw new QuiverException(QuiverException.SHAPE,
          "the model gives " + classes + " classes but the synset has " + names.size() + " labels");
    }
    final int mapHeight = Math.toIntExact(shape[2]);
    final int mapWidth = Math.toIntExact(shape[3]);
    final List<Segmentation> results = new ArrayList<>();
    for (int n = 0; n < images.size(); ++n) {
      results.add(perPixel(scores, n, classes, mapHeight, mapWidth, images.get(n), names));
    }
    return results;
  }

  /** Releases the model. Idempotent. */
  @Override
  public void close() {
    predictor.close();
  }

  private static Segmentation perPixel(float[] scores, int n, int classes, int mapHeight, int mapWidth,
      BufferedImage image, List<String> labels) {
    final int plane = mapHeight * mapWidth;
    final int base = n * classes * plane;
    final boolean softmax = !areProbabilities(scores, base, classes, plane);
    final int[] ids = new int[plane];
    final float[] best = new float[plane];
    for (int i = 0; i < plane; ++i) {
      int top = 0;
      float max = scores[base + i];
      for (int c = 1; c < classes; ++c) {
        final float v = scores[base + c * plane + i];
        if (v > max) {
          max = v;
          top = c;
        }
      }
      ids[i] = top;
      if (softmax) {
        double sum = 0;
        for (int c = 0; c < classes; ++c) {
          sum += Math.exp(scores[base + c * plane + i] - max);
        }
        best[i] = (float) (1 / sum);
      } else {
        best[i] = max;
      }
    }
    final int width = image.getWidth();
    final int height = image.getHeight();
    final int[] outIds = new int[width * height];
    final float[] outScores = new float[width * height];
    for (int y = 0; y < height; ++y) {
      final int ny = nearest(y, height, mapHeight);
      final double fy = centre(y, height, mapHeight);
      final int y0 = (int) Math.floor(fy);
      final int y1 = Math.min(y0 + 1, mapHeight - 1);
      final float wy = (float) (fy - y0);
      for (int x = 0; x < width; ++x) {
        final double fx = centre(x, width, mapWidth);
        final int x0 = (int) Math.floor(fx);
        final int x1 = Math.min(x0 + 1, mapWidth - 1);
        final float wx = (float) (fx - x0);
        final float top = best[y0 * mapWidth + x0] * (1 - wx) + best[y0 * mapWidth + x1] * wx;
        final float bottom = best[y1 * mapWidth + x0] * (1 - wx) + best[y1 * mapWidth + x1] * wx;
        outIds[y * width + x] = ids[ny * mapWidth + nearest(x, width, mapWidth)];
        outScores[y * width + x] = top * (1 - wy) + bottom * wy;
      }
    }
    return new Segmentation(width, height, outIds, outScores, labels);
  }

  /** The source cell that holds the centre of output position {@code i} of {@code out}. */
  static int nearest(int i, int out, int src) {
    return Math.min((int) ((i + 0.5) * src / out), src - 1);
  }

  /** Where output position {@code i}'s centre falls on the source grid, clamped to it. */
  static double centre(int i, int out, int src) {
    return Math.max(0, Math.min((i + 0.5) * src / out - 0.5, src - 1));
  }

  private static boolean areProbabilities(float[] scores, int base, int classes, int plane) {
    for (int i = 0; i < plane; ++i) {
      double sum = 0;
      for (int c = 0; c < classes; ++c) {
        final float v = scores[base + c * plane + i];
        if (v < 0) {
          return false;
        }
        sum += v;
      }
      if (Math.abs(sum - 1) > 1e-3) {
        return false;
      }
    }
    return true;
  }

  private static List<String> idLabels(int classes) {
    final List<String> ids = new ArrayList<>();
    for (int c = 0; c < classes; ++c) {
      ids.add(Integer.toString(c));
    }
    return ids;
  }
}
