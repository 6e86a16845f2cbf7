package io.quiver.infer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A {@link Predictor} for classification models, with labels: the first output's rows become top-k
 * lists of {@link Classification}s, best first.
 *
 * <p>Labels come from {@code synset.txt} beside the model files (one label per line, in class order),
 * or are given. A softmax is applied to rows that are not probabilities already (non-negative and
 * summing to 1), such as Gluon's logits. Safe to share across threads.
 */
public class Classifier implements AutoCloseable {
  private final Predictor predictor;
  private final List<String> labels;

  /**
   * A model from files, labelled by the {@code synset.txt} in the model prefix's directory. The prefix
   * is a path or a URI, as for {@link Predictor#Predictor(String, int, List)}.
   */
  public Classifier(String modelPrefix, int epoch, List<DataDesc> inputs) {
    this(readSynset(synsetBeside(modelPrefix)), modelPrefix, epoch, inputs);
  }

  /** A classifier over a Predictor (made from streams, with options...), which it then owns and closes. */
  public Classifier(Predictor predictor, List<String> labels) {
    this.predictor = predictor;
    this.labels = List.copyOf(labels);
    if (this.labels.isEmpty()) {
      predictor.close();
      throw new QuiverException(QuiverException.INVALID_ARGUMENT, "a classifier needs at least one label");
    }
  }

  // Labels first: a missing synset fails before the model is loaded.
  private Classifier(List<String> labels, String modelPrefix, int epoch, List<DataDesc> inputs) {
    this(new Predictor(modelPrefix, epoch, inputs, Map.of()), labels);
  }

  /** The labels in class order. */
  public List<String> labels() {
    return labels;
  }

  /** The Predictor underneath (for raw outputs or asynchronous predictions). */
  public Predictor predictor() {
    return predictor;
  }

  /**
   * Classifies a batch (one row-major array for the model's single input, any batch size): for each
   * batch element, its {@code topK} best classes (all of them when {@code topK} exceeds their number).
   */
  public List<List<Classification>> classify(float[] batch, int topK) {
    final float[] scores = predictor.predict(batch)[0];
    return topK(scores, predictor.lastOutputShape(0), topK);
  }

  /** Turns class scores (rows of the given shape, batch first) into labelled top-k lists. */
  public List<List<Classification>> topK(float[] scores, long[] shape, int topK) {
    if (topK < 1) {
      throw new IllegalArgumentException("topK must be at least 1, got " + topK);
    }
    final int rows = shape.length == 0 ? 1 : Math.toIntExact(shape[0]);
    final int classes = rows == 0 ? labels.size() : scores.length / rows;
    if (classes != labels.size()) {
      throw new QuiverException(QuiverException.SHAPE, "the model gives " + classes + " class scores but the synset has "
          + labels.size() + " labels");
    }
    final List<List<Classification>> results = new ArrayList<>(rows);
    for (int r = 0; r < rows; ++r) {
      final double[] p = probabilities(scores, r * classes, classes);
      results.add(IntStream.range(0, classes).boxed()
          .sorted(Comparator.comparingDouble((Integer c) -> -p[c]))
          .limit(topK)
          .map(c -> new Classification(labels.get(c), (float) p[c]))
          .collect(Collectors.toUnmodifiableList()));
    }
    return results;
  }

  /** Releases the model. Idempotent. */
  @Override
  public void close() {
    predictor.close();
  }

  private static double[] probabilities(float[] scores, int offset, int n) {
    final double[] p = new double[n];
    double sum = 0;
    double max = Double.NEGATIVE_INFINITY;
    boolean nonNegative = true;
    for (int i = 0; i < n; ++i) {
      p[i] = scores[offset + i];
      sum += p[i];
      max = Math.max(max, p[i]);
      nonNegative &= p[i] >= 0;
    }
    if (nonNegative && Math.abs(sum - 1) <= 1e-3) {
      return p;
    }
    double total = 0;
    for (int i = 0; i < n; ++i) {
      p[i] = Math.exp(p[i] - max);
      total += p[i];
    }
    for (int i = 0; i < n; ++i) {
      p[i] /= total;
    }
    return p;
  }

  /** Where {@code synset.txt} beside a model prefix (a path or a URI) is. */
  static String synsetBeside(String modelPrefix) {
    return ModelFiles.join(ModelFiles.parent(modelPrefix), "synset.txt");
  }

  /** The labels of {@code synset.txt} beside the model, or null when there is none. */
  static List<String> synsetIfPresent(String modelPrefix) {
    final String location = synsetBeside(modelPrefix);
    final byte[] synset = ModelFiles.readIfPresent(location, "synset file");
    return synset == null ? null : labels(synset, location);
  }

  /** Labels from a synset file: one per line, in class order; blank lines are skipped. */
  public static List<String> readSynset(Path path) {
    try {
      return labels(Files.readAllBytes(path), path.toString());
    } catch (NoSuchFileException e) {
      throw new QuiverException(QuiverException.NOT_FOUND, "synset file not found: " + path);
    } catch (IOException e) {
      throw new QuiverException(QuiverException.NOT_FOUND, "cannot read the synset file " + path + ": " + e.getMessage());
    }
  }

  /**
   * Labels from a synset file at a path or a URI, read as a model prefix is (see
   * {@link Predictor#Predictor(String, int, List)}): {@code hdfs://}, {@code s3a://}, {@code https://}, ...
   */
  public static List<String> readSynset(String location) {
    return labels(ModelFiles.read(location, "synset file"), location);
  }

  private static List<String> labels(byte[] synset, String location) {
    return ModelFiles.text(synset, "synset file", location).lines()
        .filter(line -> !line.isBlank())
        .collect(Collectors.toUnmodifiableList());
  }
}
