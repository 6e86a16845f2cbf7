import io.quiver.infer.DataDesc;
import io.quiver.infer.Predictor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * One prediction through the jar alone, held to MXNet's recorded output: how tests/packaging/test_old_glibc.sh
 * runs the jar in an older Linux userland, where no Maven or test framework is installed.
 *
 * <pre>java -cp quiver-java.jar:CLASSES PredictFixture PREFIX INPUT.f32 OUTPUT.f32 TOLERANCE N C H W</pre>
 */
public final class PredictFixture {
  private PredictFixture() {}

  private static float[] readFloats(String path) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(Path.of(path))).order(ByteOrder.LITTLE_ENDIAN);
    float[] values = new float[bytes.remaining() / Float.BYTES];
    bytes.asFloatBuffer().get(values);
    return values;
  }

  public static void main(String[] args) throws IOException {
    long[] shape = Arrays.stream(args, 4, args.length).mapToLong(Long::parseLong).toArray();
    float[] input = readFloats(args[1]);
    float[] want = readFloats(args[2]);
    double tolerance = Double.parseDouble(args[3]);
    float[] got;
    try (Predictor predictor = new Predictor(args[0], 0, List.of(new DataDesc("data", shape)))) {
      got = predictor.predict(input)[0];
    }
    if (got.length != want.length) {
      System.err.printf("PredictFixture: %d outputs, MXNet recorded %d%n", got.length, want.length);
      System.exit(1);
    }
    double error = 0;
    for (int i = 0; i < got.length; i++) {
      error = Math.max(error, Math.abs(got[i] - want[i]));
    }
    System.out.printf("PredictFixture: max|quiver - mxnet| = %.2e (tolerance %.2e)%n", error, tolerance);
    if (!(error <= tolerance)) {
      System.exit(1);
    }
  }
}
