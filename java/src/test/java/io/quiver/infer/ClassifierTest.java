package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Classifier, ImageClassifier and ObjectDetector on real and hand-made models. */
class ClassifierTest {
  @Test
  void topKFollowsMxnetsOutputs() {
    Fixtures.require();
    final long[] shape = {360, 1, 8, 8};
    final float[] x = Arrays.copyOf(Fixtures.floats("digits_cnn-in-360x1x8x8.f32"), 40 * 64);
    final float[] mxnet = Fixtures.floats("digits_cnn-out-360x1x8x8.f32");
    final List<String> labels = Classifier.readSynset(Fixtures.DIR.resolve("digits_cnn_synset.txt"));
    try (Classifier clf = new Classifier(new Predictor(Fixtures.Case.prefix("digits_cnn"), 0,
        List.of(Fixtures.data(1, shape[1], shape[2], shape[3]))), labels)) {
      final List<List<Classification>> results = clf.classify(x, 3);
      assertEquals(40, results.size());
      for (int r = 0; r < 40; ++r) {
        final float[] row = Arrays.copyOfRange(mxnet, r * 10, r * 10 + 10);
        final List<String> best = IntStream.range(0, 10).boxed().sorted(Comparator.comparingDouble(i -> -row[i]))
            .limit(3).map(labels::get).collect(Collectors.toList());
        assertEquals(best, results.get(r).stream().map(Classification::label).collect(Collectors.toList()));
        assertEquals(softmaxMax(row), results.get(r).get(0).probability(), 1e-4);
      }
      final List<Classification> all = clf.classify(Arrays.copyOf(x, 64), 1000).get(0);
      assertEquals(10, all.size());
      assertEquals(1.0, all.stream().mapToDouble(Classification::probability).sum(), 1e-5);
    }
  }

  @Test
  void wrongSynsetsAreRefused() {
    final Fixtures.Case c = Fixtures.tiny();
    try (Classifier clf = new Classifier(new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape()))),
        List.of("a", "b"))) {
      final QuiverException e = assertThrows(QuiverException.class, () -> clf.classify(c.input(), 1));
      assertEquals(QuiverException.SHAPE, e.code());
      assertTrue(e.getMessage().contains("2 labels"), e.getMessage());
    }
    final QuiverException missing = assertThrows(QuiverException.class,
        () -> new Classifier(c.prefix(), 0, List.of(Fixtures.data(c.inputShape()))));
    assertEquals(QuiverException.NOT_FOUND, missing.code());
    assertTrue(missing.getMessage().contains("synset.txt"), missing.getMessage());
  }

  @Test
  void imagePreprocessingOfAFlatColourIsExact() {
    final ImageTransform t = ImageTransform.classification(224, 224);
    assertEquals(256, t.resizeShort());
    final BufferedImage image = new BufferedImage(400, 300, BufferedImage.TYPE_INT_RGB);
    for (int y = 0; y < 300; ++y) {
      for (int x = 0; x < 400; ++x) {
        image.setRGB(x, y, (200 << 16) | (100 << 8) | 50);
      }
    }
    final float[] batch = t.apply(List.of(image), "NCHW");
    assertEquals(3 * 224 * 224, batch.length);
    final float[] want = {(200 - 123.675f) / 58.395f, (100 - 116.28f) / 57.12f, (50 - 103.53f) / 57.375f};
    for (int ch = 0; ch < 3; ++ch) {
      for (int i = 0; i < 224 * 224; ++i) {
        assertEquals(want[ch], batch[ch * 224 * 224 + i], 1e-6f);
      }
    }
    final float[] nhwc = t.apply(List.of(image), "NHWC");
    assertArrayEquals(want, Arrays.copyOfRange(nhwc, 3 * 1000, 3 * 1000 + 3), 1e-6f);
  }

  @Test
  void imageClassifierRanksThePredictorsProbabilities() {
    Fixtures.require();
    final List<String> labels = IntStream.range(0, 1000).mapToObj(i -> "class" + i).collect(Collectors.toList());
    final Random random = new Random(5);
    final List<BufferedImage> images = new ArrayList<>();
    for (int n = 0; n < 2; ++n) {
      final BufferedImage image = new BufferedImage(320, 240, BufferedImage.TYPE_INT_RGB);
      for (int y = 0; y < 240; ++y) {
        for (int x = 0; x < 320; ++x) {
          image.setRGB(x, y, random.nextInt(1 << 24));
        }
      }
      images.add(image);
    }
    try (ImageClassifier clf = new ImageClassifier(new Predictor(Fixtures.Case.prefix("resnet18_v1"), 0,
        List.of(Fixtures.data(1, 3, 224, 224))), labels, ImageTransform.classification(224, 224))) {
      final List<List<Classification>> both = clf.classify(images, 5);
      final List<Classification> alone = clf.classify(images.get(1), 5); // batch 1 vs 2: float rounding only
      for (int i = 0; i < 5; ++i) {
        assertEquals(alone.get(i).label(), both.get(1).get(i).label());
        assertEquals(alone.get(i).probability(), both.get(1).get(i).probability(), 1e-6);
      }
      final float[] scores = clf.predictor().predict(clf.transform().apply(images.subList(0, 1), "NCHW"))[0];
      final List<String> best = IntStream.range(0, 1000).boxed().sorted(Comparator.comparingDouble(i -> -scores[i]))
          .limit(5).map(labels::get).collect(Collectors.toList());
      assertEquals(best, both.get(0).stream().map(Classification::label).collect(Collectors.toList()));
      assertEquals(softmaxMax(scores), both.get(0).get(0).probability(), 1e-5);
    }
  }

  @Test
  void objectDetectorMapsBoxesToImagePixels() {
    final float[] rows = {
        1, 0.9f, 0.1f, 0.2f, 0.5f, 0.6f,    // kept
        0, 0.3f, 0.0f, 0.0f, 1.0f, 1.0f,    // below the threshold
        -1, 0.99f, 0.0f, 0.0f, 0.5f, 0.5f,  // padding row
        2, 0.7f, 0.5f, 0.5f, 1.2f, 0.9f};   // clipped to the image
    try (ObjectDetector det = new ObjectDetector(constantOutputs(new float[][] {rows}, new long[] {4, 6}),
        List.of("cat", "dog", "bird"), ImageTransform.detection(64, 64))) {
      final List<Detection> found = det.detect(new BufferedImage(400, 200, BufferedImage.TYPE_INT_RGB), 0.5f);
      assertEquals(List.of(new Detection("dog", 0.9f, 40, 40, 200, 120), new Detection("bird", 0.7f, 200, 100, 400, 180)),
          found.stream().map(ClassifierTest::rounded).collect(Collectors.toList()));
    }
  }

  @Test
  void sizeShortWithinGivesGluonCvSizes() {
    // resize_short_within's documented examples (GluonCV 0.10, gluoncv/data/transforms/image.py).
    assertArrayEquals(new int[] {1000, 667}, ImageTransform.sizeShortWithin(3482, 2321, 800, 1000, 1));
    assertArrayEquals(new int[] {1200, 800}, ImageTransform.sizeShortWithin(3482, 2321, 800, 1200, 1));
    assertArrayEquals(new int[] {1184, 800}, ImageTransform.sizeShortWithin(3482, 2321, 800, 1200, 32));
    assertArrayEquals(new int[] {832, 416}, ImageTransform.sizeShortWithin(400, 200, 416, 1024, 1));
    assertArrayEquals(new int[] {64, 128}, ImageTransform.sizeShortWithin(200, 400, 64, 1024, 1));
    assertThrows(IllegalArgumentException.class, () -> ImageTransform.sizeShortWithin(10, 10, 0, 100, 1));
  }

  @Test
  void objectDetectorKeepsEachImagesAspectRatio() {
    // GluonCV's form, boxes in input pixels: with shortSide 64 each image keeps its own aspect ratio.
    try (ObjectDetector det = new ObjectDetector(constantOutputs(new float[][] {{0}, {0.9f}, {8, 16, 40, 48}},
        new long[] {1, 1}, new long[] {1, 1}, new long[] {1, 4}), List.of("cat"), 64, 1024, 1)) {
      // 400 x 200 runs as 128 x 64 (scale 0.32); 100 x 300 as 64 x 192 (scale 0.64).
      final Detection wide = det.detect(new BufferedImage(400, 200, BufferedImage.TYPE_INT_RGB), 0.5f).get(0);
      assertEquals(new Detection("cat", 0.9f, 25, 50, 125, 150), rounded(wide));
      final Detection tall = det.detect(new BufferedImage(100, 300, BufferedImage.TYPE_INT_RGB), 0.5f).get(0);
      assertEquals(new Detection("cat", 0.9f, 13, 25, 63, 75), rounded(tall));
    }
  }

  @Test
  void objectDetectorReadsMaskRcnnOutputs() {
    // GluonCV Mask R-CNN's form: ids, scores, boxes (input pixels) and (N, K, mh, mw) mask probabilities.
    final float[] ids = {1, 0, -1};
    final float[] scores = {0.9f, 0.8f, -1};
    final float[] boxes = {8, 16, 40, 48, -16, 0, 16, 64, -1, -1, -1, -1};  // on a 64 x 64 input
    final float[] masks = new float[3 * 4 * 4];
    for (int r = 0; r < 4; ++r) {
      masks[4 * r] = masks[4 * r + 1] = 1;  // the first object fills the left half of its box
    }
    Arrays.fill(masks, 16, 32, 0.7f);      // the second all of its box (clipped to the image)
    try (ObjectDetector det = new ObjectDetector(constantOutputs(new float[][] {ids, scores, boxes, masks},
        new long[] {3, 1}, new long[] {3, 1}, new long[] {3, 4}, new long[] {3, 4, 4}), List.of("cat", "dog"),
        ImageTransform.detection(64, 64))) {
      final BufferedImage image = new BufferedImage(256, 128, BufferedImage.TYPE_INT_RGB);  // 4x as wide, 2x as high
      final List<Detection> found = det.detect(image, 0.5f);
      assertEquals(List.of(new Detection("dog", 0.9f, 32, 32, 160, 96), new Detection("cat", 0.8f, 0, 0, 64, 128)),
          found.stream().map(ClassifierTest::rounded).collect(Collectors.toList()));
      final List<Instance> instances = det.detectInstances(image, 0.5f, 0.5f);
      assertEquals(found, instances.stream().map(Instance::detection).collect(Collectors.toList()));
      final Instance dog = instances.get(0);
      final Instance cat = instances.get(1);
      assertEquals(List.of(256, 128, 256, 128), List.of(dog.width(), dog.height(), cat.width(), cat.height()));
      // The left half of (32, 32)-(160, 96), and on to column 95, where the grid's samples fall to 0.5.
      assertTrue(dog.mask().equals(rectangle(256, 32, 96, 32, 96)), () -> describe(dog));
      assertTrue(cat.mask().equals(rectangle(256, 0, 64, 0, 128)), () -> describe(cat));  // its box starts left of the image
      assertTrue(cat.contains(63, 127) && !cat.contains(64, 0));
      assertThrows(IndexOutOfBoundsException.class, () -> cat.contains(256, 0));
    }
  }

  @Test
  void objectDetectorWithoutMasksRefusesDetectInstances() {
    try (ObjectDetector det = new ObjectDetector(constantOutputs(new float[][] {{1, 0.9f, 0.1f, 0.2f, 0.5f, 0.6f}},
        new long[] {1, 6}), null, ImageTransform.detection(64, 64))) {
      final BufferedImage image = new BufferedImage(32, 32, BufferedImage.TYPE_INT_RGB);
      final QuiverException e = assertThrows(QuiverException.class, () -> det.detectInstances(image, 0.5f, 0.5f));
      assertEquals(QuiverException.SHAPE, e.code());
      assertTrue(e.getMessage().contains("no mask output"), e.getMessage());
      assertEquals(1, det.detect(image, 0.5f).size());
    }
  }

  /**
   * A model that ignores its 64 x 64 image and always gives {@code values}, batch 1, each output shaped
   * (1, shapes[i]...): per output, a zero-weight FullyConnected whose bias holds it, reshaped.
   */
  private static Predictor constantOutputs(float[][] values, long[]... shapes) {
    final List<MxnetFiles.Node> nodes = new ArrayList<>(List.of(new MxnetFiles.Node("null", "data", Map.of()),
        new MxnetFiles.Node("Pooling", "pool", Map.of("global_pool", "True", "kernel", "(1, 1)", "pool_type", "avg"), 0)));
    final LinkedHashMap<String, MxnetFiles.Param> params = new LinkedHashMap<>();
    final int[] heads = new int[values.length];
    for (int i = 0; i < values.length; ++i) {
      final int n = values[i].length;
      final int fc = nodes.size();
      final String dims = Arrays.stream(shapes[i]).mapToObj(Long::toString).collect(Collectors.joining(", "));
      nodes.add(new MxnetFiles.Node("null", "fc" + i + "_weight", Map.of()));
      nodes.add(new MxnetFiles.Node("null", "fc" + i + "_bias", Map.of()));
      nodes.add(new MxnetFiles.Node("FullyConnected", "fc" + i, Map.of("num_hidden", Integer.toString(n)), 1, fc, fc + 1));
      nodes.add(new MxnetFiles.Node("Reshape", "out" + i, Map.of("shape", "(0, " + dims + ")"), fc + 2));
      params.put("arg:fc" + i + "_weight", new MxnetFiles.Param(new long[] {n, 3}, new float[3 * n]));
      params.put("arg:fc" + i + "_bias", new MxnetFiles.Param(new long[] {n}, values[i]));
      heads[i] = fc + 3;
    }
    final String json = MxnetFiles.symbolJson(nodes, heads);
    return Predictor.fromStreams(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
        new ByteArrayInputStream(MxnetFiles.paramsBytes(params)), List.of(Fixtures.data(1, 3, 64, 64)));
  }

  /** Pixels [x0, x1) x [y0, y1) of an image {@code width} wide, row-major. */
  private static BitSet rectangle(int width, int x0, int x1, int y0, int y1) {
    final BitSet pixels = new BitSet();
    for (int y = y0; y < y1; ++y) {
      pixels.set(y * width + x0, y * width + x1);
    }
    return pixels;
  }

  /** The mask's size and bounding box, for failure messages. */
  private static String describe(Instance instance) {
    final BitSet mask = instance.mask();
    if (mask.isEmpty()) {
      return instance.label() + ": empty mask";
    }
    final int width = instance.width();
    int x0 = width;
    int x1 = -1;
    for (int i = mask.nextSetBit(0); i >= 0; i = mask.nextSetBit(i + 1)) {
      x0 = Math.min(x0, i % width);
      x1 = Math.max(x1, i % width);
    }
    return String.format(Locale.ROOT, "%s: %d pixels in columns %d..%d, rows %d..%d", instance.label(),
        mask.cardinality(), x0, x1, mask.nextSetBit(0) / width, (mask.length() - 1) / width);
  }

  private static Detection rounded(Detection d) {
    return new Detection(d.label(), d.score(), Math.round(d.xmin()), Math.round(d.ymin()), Math.round(d.xmax()),
        Math.round(d.ymax()));
  }

  private static float softmaxMax(float[] row) {
    double max = Double.NEGATIVE_INFINITY;
    for (float v : row) {
      max = Math.max(max, v);
    }
    double sum = 0;
    for (float v : row) {
      sum += Math.exp(v - max);
    }
    return (float) (1 / sum);
  }
}
