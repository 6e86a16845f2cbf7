package io.quiver.infer;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Detects objects with models whose outputs follow MXNet's detection layout, returning boxes in the
 * pixel coordinates of the image given. These output forms are read:
 * <ul>
 *   <li>one (N, K, 6) output of rows {@code [class_id, score, xmin, ymin, xmax, ymax]} with coordinates
 *       relative to the input (0..1), as {@code _contrib_MultiBoxDetection} gives;
 *   <li>three outputs, ids (N, K, 1), scores (N, K, 1) and boxes (N, K, 4) in input pixels, as GluonCV's
 *       SSD exports give;
 *   <li>those three and a fourth, masks (N, K, mh, mw): each detection's object probabilities over its
 *       box, as GluonCV's Mask R-CNN gives; {@link #detectInstances} returns them as image masks
 *       ({@link Instance}), {@link #detect} ignores them.
 * </ul>
 * Rows with a negative class id are padding. Preprocessing is {@link ImageTransform#detection} for the
 * input's DataDesc size (default 512 x 512), or, for models that take any input size (YOLOv3, Faster and
 * Mask R-CNN, CenterNet), each image resized keeping its aspect ratio as GluonCV's presets do
 * ({@link #keepingAspect}, {@link ImageTransform#sizeShortWithin}). Boxes come back in the pixels of the
 * image given either way. Labels come from {@code synset.txt} beside the model when it exists, else class
 * ids are the labels. Safe to share across threads.
 */
public class ObjectDetector implements AutoCloseable {
  private final Predictor predictor;
  private final List<String> labels; // null: class ids as labels
  private final ImageTransform transform;
  private final String layout;
  private final int[] within; // {shortSide, maxSize, stride}, or null: the transform's fixed size

  public ObjectDetector(String modelPrefix, int epoch, List<DataDesc> inputs) {
    this(new Predictor(modelPrefix, epoch, inputs, Map.of()), Classifier.synsetIfPresent(modelPrefix), null);
  }

  /**
   * Over a Predictor (which it then owns); {@code labels} may be null (class ids become the labels),
   * {@code transform} null for the default.
   */
  public ObjectDetector(Predictor predictor, List<String> labels, ImageTransform transform) {
    this(predictor, labels, transform, null);
  }

  /**
   * Over a Predictor (which it then owns) of a model that takes any input size, resizing each image
   * keeping its aspect ratio: its shorter side to {@code shortSide} unless the longer would pass
   * {@code maxSize}, both rounded to multiples of {@code stride} ({@link ImageTransform#sizeShortWithin});
   * normalised with ImageNet's mean and std. {@code labels} may be null (class ids become the labels).
   */
  public ObjectDetector(Predictor predictor, List<String> labels, int shortSide, int maxSize, int stride) {
    this(predictor, labels, ImageTransform.detection(shortSide, shortSide), checkedWithin(shortSide, maxSize, stride));
  }

  private static int[] checkedWithin(int shortSide, int maxSize, int stride) {
    ImageTransform.sizeShortWithin(shortSide, shortSide, shortSide, maxSize, stride); // throws for bad arguments
    return new int[] {shortSide, maxSize, stride};
  }

  private ObjectDetector(Predictor predictor, List<String> labels, ImageTransform transform, int[] within) {
    this.predictor = predictor;
    this.labels = labels == null ? null : List.copyOf(labels);
    this.layout = ImageClassifier.imageLayout(predictor);
    this.transform = transform != null ? transform : ImageClassifier.defaultTransform(predictor, 512, 512, false);
    this.within = within;
  }

  /**
   * A model from files (a path or URI prefix) that takes any input size, each image resized keeping its
   * aspect ratio as {@link #ObjectDetector(Predictor, List, int, int, int)} says (GluonCV's presets:
   * YOLOv3 416, 1024, 1; Faster and Mask R-CNN 600, 1000, 1; CenterNet 512, 1024, 1). Labels from
   * {@code synset.txt} beside the model when it exists.
   */
  public static ObjectDetector keepingAspect(String modelPrefix, int epoch, int shortSide, int maxSize, int stride) {
    final int[] within = checkedWithin(shortSide, maxSize, stride);
    return new ObjectDetector(new Predictor(modelPrefix, epoch, List.of(), Map.of()),
        Classifier.synsetIfPresent(modelPrefix), ImageTransform.detection(shortSide, shortSide), within);
  }

  public Predictor predictor() {
    return predictor;
  }

  /** The objects scoring at least {@code threshold}, best first, in the image's pixel coordinates. */
  public List<Detection> detect(BufferedImage image, float threshold) {
    final Rows rows = rows(image);
    final List<Detection> detections = new ArrayList<>();
    for (int i = 0; i < rows.ids.length; ++i) {
      if (rows.kept(i, threshold)) {
        detections.add(detection(rows, i, image));
      }
    }
    detections.sort(Comparator.comparingDouble((Detection d) -> -d.score()));
    return detections;
  }

  /**
   * {@link #detect}'s detections, each with its mask over the image: the model's mask probabilities
   * stretched over the detection's box (bilinear), the pixels above {@code maskThreshold}. For models
   * with a mask output (Mask R-CNN); others throw {@link QuiverException} with {@code SHAPE}.
   */
  public List<Instance> detectInstances(BufferedImage image, float threshold, float maskThreshold) {
    final Rows rows = rows(image);
    if (rows.masks == null) {
      throw new QuiverException(QuiverException.SHAPE, "the model has no mask output: detectInstances() needs "
          + "a fourth output (N, K, mh, mw), as Mask R-CNN gives");
    }
    final int width = image.getWidth();
    final int height = image.getHeight();
    final List<Instance> instances = new ArrayList<>();
    for (int i = 0; i < rows.ids.length; ++i) {
      if (rows.kept(i, threshold)) {
        final BitSet mask = pasteMask(rows.masks, i * rows.maskHeight * rows.maskWidth, rows.maskHeight,
            rows.maskWidth, rows.box(i), width, height, maskThreshold);
        instances.add(new Instance(detection(rows, i, image), width, height, mask));
      }
    }
    instances.sort(Comparator.comparingDouble((Instance d) -> -d.score()));
    return instances;
  }

  /**
   * One image's detection rows: class ids, scores, boxes (4 per row) times the scale to the image's
   * pixels, and the masks ({@code maskHeight x maskWidth} per row, row-major) or null.
   */
  private record Rows(float[] ids, float[] scores, float[] boxes, double sx, double sy, float[] masks,
      int maskHeight, int maskWidth) {
    boolean kept(int i, float threshold) {
      return ids[i] >= 0 && scores[i] >= threshold;
    }

    /** Row i's box in image pixels, unclipped: xmin, ymin, xmax, ymax. */
    double[] box(int i) {
      return new double[] {boxes[4 * i] * sx, boxes[4 * i + 1] * sy, boxes[4 * i + 2] * sx, boxes[4 * i + 3] * sy};
    }
  }

  /** Predicts on the image and reads the rows of whichever output form the model gives. */
  private Rows rows(BufferedImage image) {
    final ImageTransform fitted = fitted(image);
    final long[] inputShape = layout.equals("NHWC") ? new long[] {1, fitted.height(), fitted.width(), 3}
        : new long[] {1, 3, fitted.height(), fitted.width()};
    final float[][] outputs;
    final long[][] shapes;
    // Through arrays of explicit shapes: the input's size may be the image's own (keepingAspect).
    try (NDArray input = NDArray.of(fitted.apply(List.of(image), layout), inputShape)) {
      final NDArray[] results = predictor.predict(input);
      try {
        outputs = new float[results.length][];
        shapes = new long[results.length][];
        for (int i = 0; i < results.length; ++i) {
          outputs[i] = results[i].toFloatArray();
          shapes[i] = results[i].shape().dims();
        }
      } finally {
        for (NDArray r : results) {
          r.close();
        }
      }
    }
    if (outputs.length == 1 && shapes[0].length == 3 && shapes[0][2] == 6) {
      final int k = Math.toIntExact(shapes[0][1]);
      final float[] ids = new float[k];
      final float[] scores = new float[k];
      final float[] boxes = new float[4 * k];
      for (int i = 0; i < k; ++i) {
        ids[i] = outputs[0][6 * i];
        scores[i] = outputs[0][6 * i + 1];
        System.arraycopy(outputs[0], 6 * i + 2, boxes, 4 * i, 4);
      }
      return new Rows(ids, scores, boxes, image.getWidth(), image.getHeight(), null, 0, 0);
    }
    if ((outputs.length == 3 || outputs.length == 4 && isMasks(shapes[3], shapes[2]))
        && shapes[2].length == 3 && shapes[2][2] == 4
        && outputs[0].length * 4 == outputs[2].length && outputs[1].length * 4 == outputs[2].length) {
      final boolean masked = outputs.length == 4;
      return new Rows(outputs[0], outputs[1], outputs[2], (double) image.getWidth() / fitted.width(),
          (double) image.getHeight() / fitted.height(), masked ? outputs[3] : null,
          masked ? Math.toIntExact(shapes[3][2]) : 0, masked ? Math.toIntExact(shapes[3][3]) : 0);
    }
    final List<String> found = new ArrayList<>();
    for (long[] shape : shapes) {
      found.add(Shape.of(shape).toString());
    }
    throw new QuiverException(QuiverException.SHAPE, "not a detection model: outputs " + found
        + "; expected one (N, K, 6) output or (N, K, 1), (N, K, 1), (N, K, 4) and optionally masks (N, K, mh, mw)");
  }

  /** The transform for this image: the fixed one, or one of the image's own size keeping its aspect. */
  private ImageTransform fitted(BufferedImage image) {
    if (within == null) {
      return transform;
    }
    final int[] size = ImageTransform.sizeShortWithin(image.getWidth(), image.getHeight(), within[0], within[1],
        within[2]);
    return transform.withSize(size[1], size[0]);
  }

  /** Whether {@code shape} is (N, K, mh, mw) masks, non-empty, for the rows of boxes of {@code boxesShape}. */
  private static boolean isMasks(long[] shape, long[] boxesShape) {
    return shape.length == 4 && boxesShape.length == 3 && shape[0] == boxesShape[0] && shape[1] == boxesShape[1]
        && shape[2] > 0 && shape[3] > 0;
  }

  private Detection detection(Rows rows, int i, BufferedImage image) {
    final double[] box = rows.box(i);
    return new Detection(label((int) rows.ids[i]), rows.scores[i], clip(box[0], image.getWidth()),
        clip(box[1], image.getHeight()), clip(box[2], image.getWidth()), clip(box[3], image.getHeight()));
  }

  /**
   * A (gridHeight, gridWidth) grid of object probabilities, at {@code offset} in {@code grid}, laid over
   * {@code box} (image pixels, possibly reaching outside the image): each image pixel inside the box
   * takes the bilinear sample of the grid at its centre, the grid's cells spanning the box evenly with
   * their centres the sample points. The pixels whose sample is above {@code threshold} are set, row-major.
   */
  private static BitSet pasteMask(float[] grid, int offset, int gridHeight, int gridWidth, double[] box,
      int width, int height, float threshold) {
    final BitSet mask = new BitSet(width * height);
    if (!(box[2] > box[0] && box[3] > box[1])) {
      return mask;
    }
    final Taps cols = Taps.over(box[0], box[2], gridWidth, width);
    final Taps rows = Taps.over(box[1], box[3], gridHeight, height);
    for (int r = 0; r < rows.low.length; ++r) {
      final int top = offset + rows.low[r] * gridWidth;
      final int bottom = offset + rows.high[r] * gridWidth;
      final float fy = rows.weight[r];
      for (int c = 0; c < cols.low.length; ++c) {
        final float fx = cols.weight[c];
        final float upper = grid[top + cols.low[c]] * (1 - fx) + grid[top + cols.high[c]] * fx;
        final float lower = grid[bottom + cols.low[c]] * (1 - fx) + grid[bottom + cols.high[c]] * fx;
        if (upper * (1 - fy) + lower * fy > threshold) {
          mask.set((rows.first + r) * width + cols.first + c);
        }
      }
    }
    return mask;
  }

  /**
   * How the image pixels {@code first, first + 1, ...} of one axis that lie in {@code [start, end)}
   * sample a grid of {@code cells} spanning that range: the two cells each pixel's centre falls
   * between, and the weight of the second.
   */
  private record Taps(int first, int[] low, int[] high, float[] weight) {
    static Taps over(double start, double end, int cells, int pixels) {
      final int first = (int) Math.max(0, Math.floor(start));
      final int count = (int) Math.max(0, Math.min(pixels, Math.ceil(end)) - first);
      final Taps taps = new Taps(first, new int[count], new int[count], new float[count]);
      for (int i = 0; i < count; ++i) {
        final double at = Math.max(0, Math.min((first + i + 0.5 - start) / (end - start) * cells - 0.5, cells - 1));
        taps.low[i] = (int) Math.floor(at);
        taps.high[i] = Math.min(taps.low[i] + 1, cells - 1);
        taps.weight[i] = (float) (at - taps.low[i]);
      }
      return taps;
    }
  }

  /** Releases the model. Idempotent. */
  @Override
  public void close() {
    predictor.close();
  }

  private String label(int id) {
    return labels != null && id < labels.size() ? labels.get(id) : Integer.toString(id);
  }

  private static float clip(double value, int limit) {
    return (float) Math.max(0, Math.min(value, limit));
  }
}
