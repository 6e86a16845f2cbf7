package io.quiver.infer;

import java.awt.image.BufferedImage;
import java.util.List;

/**
 * A {@link Classifier} that takes images. The input's DataDesc (N, 3, H, W) (or layout "NHWC") gives
 * the size images are brought to; preprocessing is {@link ImageTransform#classification} unless a
 * transform is given.
 */
public class ImageClassifier extends Classifier {
  private final ImageTransform transform;
  private final String layout;

  public ImageClassifier(String modelPrefix, int epoch, List<DataDesc> inputs) {
    super(modelPrefix, epoch, inputs);
    this.layout = imageLayout(predictor());
    this.transform = defaultTransform(predictor(), 224, 224, true);
  }

  /** Over a Predictor (which it then owns), with labels and preprocessing of your choice. */
  public ImageClassifier(Predictor predictor, List<String> labels, ImageTransform transform) {
    super(predictor, labels);
    this.layout = imageLayout(predictor);
    this.transform = transform;
  }

  public ImageTransform transform() {
    return transform;
  }

  /** The image's {@code topK} best classes, best first. */
  public List<Classification> classify(BufferedImage image, int topK) {
    return classify(List.of(image), topK).get(0);
  }

  /** For each image (classified in one batch), its {@code topK} best classes. */
  public List<List<Classification>> classify(List<BufferedImage> images, int topK) {
    return classify(transform.apply(images, layout), topK);
  }

  /** The first input's layout: NHWC when its DataDesc says so, else NCHW. */
  static String imageLayout(Predictor predictor) {
    return predictor.inputDesc(predictor.inputNames().get(0))
        .map(d -> d.layout().equals("NHWC") ? "NHWC" : "NCHW").orElse("NCHW");
  }

  /** The default transform for the first input's DataDesc (its H and W axes), else the given size. */
  static ImageTransform defaultTransform(Predictor predictor, int height, int width, boolean classification) {
    final DataDesc desc = predictor.inputDesc(predictor.inputNames().get(0)).orElse(null);
    // A layout with H and W is not empty, so DataDesc has checked it against the shape.
    if (desc != null && desc.axis('H') >= 0 && desc.axis('W') >= 0) {
      final long[] shape = desc.shape();
      height = Math.toIntExact(shape[desc.axis('H')]);
      width = Math.toIntExact(shape[desc.axis('W')]);
    }
    return classification ? ImageTransform.classification(height, width) : ImageTransform.detection(height, width);
  }
}
