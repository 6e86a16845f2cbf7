package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Segmenter on a hand-made model whose class scores are the normalised pixel itself. */
class SegmenterTest {
  private static final List<String> LABELS = List.of("red", "green", "blue");
  private static final int RED = 0xff0000;
  private static final int BLUE = 0x0000ff;
  private static final float[] MEAN = {123.675f, 116.28f, 103.53f};
  private static final float[] STD = {58.395f, 57.12f, 57.375f};

  @Test
  void segmentationIsAtTheImageSizeWithSoftmaxScores() {
    try (Segmenter seg = new Segmenter(rgbModel(), LABELS, ImageTransform.detection(8, 8))) {
      final Segmentation result = seg.segment(halves(40, 20));
      assertEquals(40, result.width());
      assertEquals(20, result.height());
      for (int y = 0; y < 20; ++y) {
        for (int x = 0; x < 40; ++x) {
          if (x < 14) {
            assertEquals("red", result.label(x, y));
          } else if (x >= 26) {
            assertEquals(2, result.classId(x, y));
          }
          if (x < 10) {
            assertEquals(softmaxMax(RED), result.score(x, y), 1e-5);
          } else if (x >= 30) {
            assertEquals(softmaxMax(BLUE), result.score(x, y), 1e-5);
          }
        }
      }
      final Map<String, Double> shares = result.classShares();
      assertEquals(0.5, shares.get("red"), 0.1);
      assertEquals(1.0, shares.values().stream().mapToDouble(Double::doubleValue).sum(), 1e-9);
      final BufferedImage mask = result.mask();
      assertEquals(BufferedImage.TYPE_BYTE_INDEXED, mask.getType());
      assertEquals(0, mask.getRaster().getSample(3, 10, 0));
      assertEquals(2, mask.getRaster().getSample(35, 10, 0));
    }
  }

  @Test
  void batchesKeepEachImageSize() {
    try (Segmenter seg = new Segmenter(rgbModel(), LABELS, ImageTransform.detection(8, 8))) {
      final List<Segmentation> both = seg.segment(List.of(halves(40, 20), halves(16, 30)));
      assertEquals(16, both.get(1).width());
      assertEquals(30, both.get(1).height());
      assertArrayEquals(seg.segment(halves(16, 30)).classIds(), both.get(1).classIds());
    }
  }

  @Test
  void resizingRules() {
    assertEquals(0, Segmenter.nearest(0, 2, 3)); // centres at 0.75 and 2.25 of the source
    assertEquals(2, Segmenter.nearest(1, 2, 3));
    assertEquals(0.0, Segmenter.centre(0, 4, 2)); // -0.25 clamped
    assertEquals(0.25, Segmenter.centre(1, 4, 2));
    assertEquals(1.0, Segmenter.centre(3, 4, 2)); // 1.25 clamped
  }

  @Test
  void modelsThatAreNotSegmentersAreRefused() {
    try (Segmenter seg = new Segmenter(rgbModel(), List.of("a", "b"), ImageTransform.detection(8, 8))) {
      final QuiverException e = assertThrows(QuiverException.class, () -> seg.segment(halves(8, 8)));
      assertEquals(QuiverException.SHAPE, e.code());
      assertTrue(e.getMessage().contains("3 classes but the synset has 2 labels"), e.getMessage());
    }
  }

  /** (N, 3, H, W) to the same map: a 1x1 convolution with identity weights, so class c scores channel c. */
  private static Predictor rgbModel() {
    final String json = MxnetFiles.symbolJson(List.of(new MxnetFiles.Node("null", "data", Map.of()),
        new MxnetFiles.Node("null", "conv_weight", Map.of()),
        new MxnetFiles.Node("Convolution", "conv", Map.of("kernel", "(1, 1)", "num_filter", "3", "no_bias", "True"),
            0, 1)), 2);
    final LinkedHashMap<String, MxnetFiles.Param> params = new LinkedHashMap<>();
    params.put("arg:conv_weight", new MxnetFiles.Param(new long[] {3, 3, 1, 1}, new float[] {1, 0, 0, 0, 1, 0, 0, 0, 1}));
    return Predictor.fromStreams(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
        new ByteArrayInputStream(MxnetFiles.paramsBytes(params)), List.of(Fixtures.data(1, 3, 8, 8)));
  }

  /** Red on the left half, blue on the right. */
  private static BufferedImage halves(int width, int height) {
    final BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        image.setRGB(x, y, x < width / 2 ? RED : BLUE);
      }
    }
    return image;
  }

  private static float softmaxMax(int rgb) {
    final double[] logits = new double[3];
    double max = Double.NEGATIVE_INFINITY;
    for (int c = 0; c < 3; ++c) {
      logits[c] = (((rgb >> (16 - 8 * c)) & 0xff) - MEAN[c]) / STD[c];
      max = Math.max(max, logits[c]);
    }
    double sum = 0;
    for (double v : logits) {
      sum += Math.exp(v - max);
    }
    return (float) (1 / sum);
  }
}
