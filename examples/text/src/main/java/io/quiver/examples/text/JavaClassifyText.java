package io.quiver.examples.text;

import io.quiver.infer.Classification;
import io.quiver.infer.DType;
import io.quiver.infer.DataDesc;
import io.quiver.infer.NDArray;
import io.quiver.infer.Predictor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Text classification from token ids, in Java: a model whose input {@code tokens} takes int32 ids of shape
 * (N, T), such as an Embedding + pooling + dense classifier exported from MXNet. Tokenizing (a vocabulary
 * lookup, WordPiece, ...) is the application's; this takes the ids.
 *
 * <pre>
 *   java -cp quiver-scala_2.13-1.0.0-all.jar:quiver-text-example-1.0.0.jar \
 *     io.quiver.examples.text.JavaClassifyText MODEL_PREFIX SEQ_LEN "IDS" ["IDS" ...]
 * </pre>
 *
 * Each IDS is one sentence's space-separated ids, padded with 0 or cut to SEQ_LEN. Labels come from
 * {@code synset.txt} beside the model files, one per line. Prints each sentence's best label and probability.
 */
public final class JavaClassifyText {
  private JavaClassifyText() {}

  /** Each sentence's best class: one batch of (sentences, seqLen) int32 ids, padded with 0. */
  public static List<Classification> classify(Predictor model, List<String> labels, int seqLen, List<int[]> sentences) {
    final int[] ids = new int[sentences.size() * seqLen];
    for (int i = 0; i < sentences.size(); ++i) {
      final int[] sentence = sentences.get(i);
      System.arraycopy(sentence, 0, ids, i * seqLen, Math.min(sentence.length, seqLen));
    }
    final float[] probabilities;
    try (NDArray tokens = NDArray.of(ids, sentences.size(), seqLen)) {
      final Map<String, NDArray> outputs = model.predict(Map.of("tokens", tokens));
      try {
        probabilities = outputs.get(model.outputNames().get(0)).toFloatArray();
      } finally {
        outputs.values().forEach(NDArray::close);
      }
    }
    final List<Classification> best = new ArrayList<>();
    for (int row = 0; row < sentences.size(); ++row) {
      int top = 0;
      for (int k = 1; k < labels.size(); ++k) {
        if (probabilities[row * labels.size() + k] > probabilities[row * labels.size() + top]) {
          top = k;
        }
      }
      best.add(new Classification(labels.get(top), probabilities[row * labels.size() + top]));
    }
    return best;
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 3) {
      System.err.println("usage: JavaClassifyText MODEL_PREFIX SEQ_LEN \"IDS\" [\"IDS\" ...]");
      System.exit(2);
    }
    final int seqLen = Integer.parseInt(args[1]);
    final List<String> labels = Files.readAllLines(Path.of(args[0]).resolveSibling("synset.txt"), StandardCharsets.UTF_8);
    final List<int[]> sentences = new ArrayList<>();
    for (String ids : Arrays.asList(args).subList(2, args.length)) {
      sentences.add(Arrays.stream(ids.trim().split("\\s+")).mapToInt(Integer::parseInt).toArray());
    }
    // The DataDesc's dtype makes the input take int32 ids, whatever the symbol declares.
    final DataDesc tokens = new DataDesc("tokens", new long[] {1, seqLen}, DType.INT32, "NT");
    try (Predictor model = new Predictor(args[0], 0, List.of(tokens))) {
      final List<Classification> best = classify(model, labels, seqLen, sentences);
      for (int i = 0; i < best.size(); ++i) {
        System.out.printf("%s\t%s %.4f%n", args[2 + i], best.get(i).label(), best.get(i).probability());
      }
    }
  }
}
