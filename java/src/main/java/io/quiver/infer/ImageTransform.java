package io.quiver.infer;

import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.util.List;

/**
 * How images become a model's float input: resize (and center-crop), then per channel
 * {@code (pixel - mean) / std} on 0-255 RGB values. Immutable.
 *
 * <p>Defaults are the Gluon model zoo's: {@link #classification} resizes the shorter side to 256/224 of
 * the input size (256 for 224) and center-crops; {@link #detection} resizes the whole image to the input
 * size (no crop, as SSD does); both use ImageNet's mean (123.675, 116.28, 103.53) and std
 * (58.395, 57.12, 57.375). Resizing is Java 2D's bilinear interpolation.
 */
public final class ImageTransform {
  private static final float[] IMAGENET_MEAN = {123.675f, 116.28f, 103.53f};
  private static final float[] IMAGENET_STD = {58.395f, 57.12f, 57.375f};

  private final int height;
  private final int width;
  private final int resizeShort;
  private final float[] mean;
  private final float[] std;

  /**
   * @param height the model input's height
   * @param width the model input's width
   * @param resizeShort the shorter side is resized to this before a center crop of height x width; 0
   *     resizes the whole image to height x width instead
   * @param mean per-channel (R, G, B) means on 0-255 values
   * @param std per-channel (R, G, B) standard deviations on 0-255 values
   */
  public ImageTransform(int height, int width, int resizeShort, float[] mean, float[] std) {
    if (height < 1 || width < 1 || resizeShort < 0 || mean.length != 3 || std.length != 3) {
      throw new IllegalArgumentException("an ImageTransform needs a positive size, resizeShort >= 0, and three "
          + "means and standard deviations");
    }
    this.height = height;
    this.width = width;
    this.resizeShort = resizeShort;
    this.mean = mean.clone();
    this.std = std.clone();
  }

  /** The classifiers' default for a height x width input. */
  public static ImageTransform classification(int height, int width) {
    return new ImageTransform(height, width, Math.round(Math.min(height, width) * 256f / 224f), IMAGENET_MEAN,
        IMAGENET_STD);
  }

  /** The detectors' default for a height x width input. */
  public static ImageTransform detection(int height, int width) {
    return new ImageTransform(height, width, 0, IMAGENET_MEAN, IMAGENET_STD);
  }

  /** The same preprocessing for an input of another size. */
  public ImageTransform withSize(int height, int width) {
    return new ImageTransform(height, width, resizeShort, mean, std);
  }

  /**
   * {width, height} of an image of {@code width} x {@code height} resized keeping its aspect ratio: the
   * shorter side {@code shortSide}, unless the longer would then pass {@code maxSize} (the longer side is
   * then {@code maxSize}), each rounded to a multiple of {@code stride} (half to even). These are the sizes
   * of GluonCV's {@code resize_short_within}, which its detectors' presets use (YOLOv3: 416, 1024; Faster
   * and Mask R-CNN: 600, 1000; SSD and CenterNet: 512, 1024).
   */
  public static int[] sizeShortWithin(int width, int height, int shortSide, int maxSize, int stride) {
    if (width < 1 || height < 1 || shortSide < 1 || maxSize < 1 || stride < 1) {
      throw new IllegalArgumentException("sizeShortWithin needs positive sizes and stride");
    }
    final int small = Math.min(width, height);
    final int large = Math.max(width, height);
    double scale = (double) shortSide / small;
    if (Math.rint(scale * large / stride) * stride > maxSize) {
      scale = (double) (maxSize / stride * stride) / large;
    }
    return new int[] {(int) (Math.rint(width * scale / stride) * stride),
        (int) (Math.rint(height * scale / stride) * stride)};
  }

  public int height() {
    return height;
  }

  public int width() {
    return width;
  }

  public int resizeShort() {
    return resizeShort;
  }

  public float[] mean() {
    return mean.clone();
  }

  public float[] std() {
    return std.clone();
  }

  /** One batch of images as a row-major float input, in layout "NCHW" or "NHWC". */
  public float[] apply(List<BufferedImage> images, String layout) {
    final boolean channelsLast = layout.equals("NHWC");
    if (!channelsLast && !layout.equals("NCHW")) {
      throw new QuiverException(QuiverException.SHAPE, "images go to inputs of layout NCHW or NHWC, not '" + layout + "'");
    }
    final int plane = height * width;
    final float[] batch = new float[Math.multiplyExact(images.size(), 3 * plane)];
    final int[] rgb = new int[plane];
    for (int n = 0; n < images.size(); ++n) {
      fitted(images.get(n)).getRGB(0, 0, width, height, rgb, 0, width);
      final int base = n * 3 * plane;
      for (int i = 0; i < plane; ++i) {
        for (int c = 0; c < 3; ++c) {
          final int value = (rgb[i] >> (16 - 8 * c)) & 0xff;
          batch[base + (channelsLast ? 3 * i + c : c * plane + i)] = (value - mean[c]) / std[c];
        }
      }
    }
    return batch;
  }

  /** The image resized (and cropped) to height x width, as RGB. */
  private BufferedImage fitted(BufferedImage image) {
    int scaledWidth = width;
    int scaledHeight = height;
    if (resizeShort > 0) {
      final double scale = (double) resizeShort / Math.min(image.getWidth(), image.getHeight());
      scaledWidth = Math.max(width, (int) Math.round(image.getWidth() * scale));
      scaledHeight = Math.max(height, (int) Math.round(image.getHeight() * scale));
    }
    final BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    final Graphics2D g = out.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
      // Drawn scaled and shifted so that the center crop lands on the output.
      g.drawImage(image, -(scaledWidth - width) / 2, -(scaledHeight - height) / 2, scaledWidth, scaledHeight, null);
    } finally {
      g.dispose();
    }
    return out;
  }
}
