package io.quiver.infer;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Detects objects with models whose outputs follow MXNet's detection layout, returning boxes in the
 * pixel coordinates of the image given. Two output forms are read:
 * <ul>
 *   <li>one (N, K, 6) output of rows {@code [class_id, score, xmin, ymin, xmax, ymax]} with coordinates
 *       relative to the input (0..1), as {@code _contrib_MultiBoxDetection} gives;
 *   <li>three outputs, ids (N, K, 1), scores (N, K, 1) and boxes (N, K, 4) in input pixels, as GluonCV's
 *       SSD exports give.
 * </ul>
 * Rows with a negative class id are padding. Preprocessing is {@link ImageTransform#detection} for the
 * input's DataDesc size (default 512 x 512). Labels come from {@code synset.txt} beside the model when
 * it exists, else class ids are the labels. Safe to share across threads.
 */
public class ObjectDetector implements AutoCloseable {
  private final Predictor predictor;
  private final List<String> labels; // null: class ids as labels
  private final ImageTransform transform;
  private final String layout;

  public ObjectDetector(String modelPrefix, int epoch, List<DataDesc> inputs) {
    this(new Predictor(modelPrefix, epoch, inputs, Map.of()), Classifier.synsetIfPresent(modelPrefix), null);
  }

  /**
   * Over a Predictor (which it then owns); {@code labels} may be null (class ids become the labels),
   * {@code transform} null for the default.
   */
  public ObjectDetector(Predictor predictor, List<String> labels, ImageTransform transform) {
    this.predictor = predictor;
    this.labels = labels == null ? null : List.copyOf(labels);
    this.layout = ImageClassifier.imageLayout(predictor);
    this.transform = transform != null ? transform : ImageClassifier.defaultTransform(predictor, 512, 512, false);
  }

  public Predictor predictor() {
    return predictor;
  }

  /** The objects scoring at least {@code threshold}, best first, in the image's pixel coordinates. */
  public List<Detection> detect(BufferedImage image, float threshold) {
    final float[][] outputs = predictor.predict(transform.apply(List.of(image), layout));
    final long[][] shapes = new long[outputs.length][];
    for (int i = 0; i < outputs.length; ++i) {
      shapes[i] = predictor.lastOutputShape(i);
    }
    final float sx;
    final float sy;
    final float[] ids;
    final float[] scores;
    final float[] boxes;
    if (outputs.length == 1 && shapes[0].length == 3 && shapes[0][2] == 6) {
      final int k = Math.toIntExact(shapes[0][1]);
      ids = new float[k];
      scores = new float[k];
      boxes = new float[4 * k];
      for (int i = 0; i < k; ++i) {
        ids[i] = outputs[0][6 * i];
        scores[i] = outputs[0][6 * i + 1];
        System.arraycopy(outputs[0], 6 * i + 2, boxes, 4 * i, 4);
      }
      sx = image.getWidth();
      sy = image.getHeight();
    } else if (outputs.length == 3 && shapes[2].length == 3 && shapes[2][2] == 4
        && outputs[0].length * 4 == outputs[2].length && outputs[1].length * 4 == outputs[2].length) {
      ids = outputs[0];
      scores = outputs[1];
      boxes = outputs[2];
      sx = (float) image.getWidth() / transform.width();
      sy = (float) image.getHeight() / transform.height();
    } else {
      final List<String> found = new ArrayList<>();
      for (long[] shape : shapes) {
        found.add(Shape.of(shape).toString());
      }
      throw new QuiverException(QuiverException.SHAPE, "not a detection model: outputs " + found
          + "; expected one (N, K, 6) output or (N, K, 1), (N, K, 1), (N, K, 4)");
    }
    final List<Detection> detections = new ArrayList<>();
    for (int i = 0; i < ids.length; ++i) {
      if (ids[i] < 0 || scores[i] < threshold) {
        continue;
      }
      detections.add(new Detection(label((int) ids[i]), scores[i],
          clip(boxes[4 * i] * sx, image.getWidth()), clip(boxes[4 * i + 1] * sy, image.getHeight()),
          clip(boxes[4 * i + 2] * sx, image.getWidth()), clip(boxes[4 * i + 3] * sy, image.getHeight())));
    }
    detections.sort(Comparator.comparingDouble((Detection d) -> -d.score()));
    return detections;
  }

  /** Releases the model. Idempotent. */
  @Override
  public void close() {
    predictor.close();
  }

  private String label(int id) {
    return labels != null && id < labels.size() ? labels.get(id) : Integer.toString(id);
  }

  private static float clip(float value, int limit) {
    return Math.max(0, Math.min(value, limit));
  }
}
