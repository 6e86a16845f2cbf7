package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The MXNet-made models and MXNet's outputs of scripts/make_fixtures.sh (directory: the system property
 * quiver.fixtures.dir), and the C API oracle (tests/jvm/capi_predict.c, under quiver.jvm.dir/bin).
 * Without fixtures the oracle tests fail when quiver.require.fixtures=1 (scripts/test_jvm.sh) and are
 * skipped with the reason otherwise.
 */
final class Fixtures {
  static final Path DIR = Path.of(System.getProperty("quiver.fixtures.dir",
      System.getProperty("user.home") + "/.cache/quiver/fixtures"));

  private Fixtures() {}

  /** One recorded case: a model, an input of a shape, and MXNet's float32 output for it. */
  record Case(String model, long[] inputShape, long[] outputShape) {
    String prefix() {
      return prefix(model);
    }

    float[] input() {
      return floats("%s-in-%s.f32".formatted(model, dims(inputShape)));
    }

    float[] mxnetOutput() {
      return floats("%s-out-%s.f32".formatted(model, dims(inputShape)));
    }

    static String prefix(String model) {
      return DIR.resolve(model).toString();
    }

    @Override
    public String toString() {
      return model + " " + Shape.of(inputShape);
    }
  }

  /** Every model case the fixtures record (manifest.json lists the same). */
  static List<Case> cases() {
    require();
    return List.of(
        new Case("resnet18_v1", new long[] {1, 3, 224, 224}, new long[] {1, 1000}),
        new Case("resnet18_v1", new long[] {4, 3, 224, 224}, new long[] {4, 1000}),
        new Case("resnet18_v1", new long[] {2, 3, 160, 160}, new long[] {2, 1000}),
        new Case("resnet50_v2", new long[] {1, 3, 224, 224}, new long[] {1, 1000}),
        new Case("tiny", new long[] {2, 3, 16, 16}, new long[] {2, 10}),
        new Case("tiny_legacy_v08", new long[] {2, 3, 16, 16}, new long[] {2, 10}));
  }

  static Case tiny() {
    return cases().get(4);
  }

  /** Skips (or fails, when required) without the fixtures, naming the directory. */
  static void require() {
    if (Files.exists(DIR.resolve("manifest.json"))) {
      return;
    }
    final String message = "no fixtures at " + DIR + ": run scripts/make_fixtures.sh";
    if ("1".equals(System.getProperty("quiver.require.fixtures"))) {
      fail(message);
    }
    Assumptions.abort(message);
  }

  static float[] floats(String file) {
    return floats(DIR.resolve(file));
  }

  /** A file of little-endian float32 values. */
  static float[] floats(Path file) {
    try {
      final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
      final float[] values = new float[bytes.remaining() / 4];
      bytes.asFloatBuffer().get(values);
      return values;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String dims(long[] shape) {
    return String.join("x", Arrays.stream(shape).mapToObj(Long::toString).toArray(String[]::new));
  }

  static DataDesc data(long... shape) {
    return new DataDesc("data", shape);
  }

  /** A direct buffer in native byte order holding the values (for NDArray.wrap). */
  static ByteBuffer direct(float[] values) {
    final ByteBuffer buffer = ByteBuffer.allocateDirect(values.length * 4).order(ByteOrder.nativeOrder());
    buffer.asFloatBuffer().put(values);
    return buffer;
  }

  /** max |a - b|. */
  static float maxAbsDiff(float[] a, float[] b) {
    assertTrue(a.length == b.length, "lengths " + a.length + " vs " + b.length);
    float max = 0;
    for (int i = 0; i < a.length; ++i) {
      max = Math.max(max, Math.abs(a[i] - b[i]));
    }
    return max;
  }

  static float maxAbs(float[] a) {
    float max = 0;
    for (float v : a) {
      max = Math.max(max, Math.abs(v));
    }
    return max;
  }

  /** The outputs of one prediction made by the C program tests/jvm/capi_predict (libquiver.so alone). */
  static float[] capiPredict(Case c) {
    final Path program = Path.of(System.getProperty("quiver.jvm.dir", "build/glibc2.28/jvm"), "bin", "capi_predict");
    assertTrue(Files.isExecutable(program), program + " is missing: build with scripts/build_jvm.sh");
    try {
      final Path in = Files.createTempFile("capi-in", ".f32");
      final Path out = Files.createTempFile("capi-out", ".f32");
      try {
        final float[] input = c.input();
        final ByteBuffer bytes = ByteBuffer.allocate(input.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(input);
        Files.write(in, bytes.array());
        final List<String> command = new ArrayList<>(List.of(program.toString(), c.prefix(), "0", in.toString(),
            dims(c.inputShape()).replace('x', ','), out.toString()));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String log = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(300, TimeUnit.SECONDS) && process.exitValue() == 0,
            String.format(Locale.ROOT, "%s failed: %s", command, log));
        return floats(out);
      } finally {
        Files.deleteIfExists(in);
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
