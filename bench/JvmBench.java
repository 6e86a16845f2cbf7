/*
 * Latency and throughput of one model through the Java API, under concurrent client threads: the JVM
 * twin of quiver_bench and python_bench.py (same arguments, same one-line JSON on stdout).
 *
 *   java -cp java/target/quiver-java-VERSION.jar bench/JvmBench.java --prefix P [--epoch 0] [--batch 1]
 *        [--clients 1] [--iters 50] [--warmup 5] [--shape 3,224,224] [--api floats|ndarray]
 *
 * Client threads share ONE Predictor; each predicts on its own random input (fixed seed). A call's
 * latency runs from just before predict() to the result in hand: float[] in and out (--api floats,
 * copies both ways), or NDArrays over native memory (--api ndarray, no copies; the output is closed).
 */
import io.quiver.infer.DataDesc;
import io.quiver.infer.NDArray;
import io.quiver.infer.Predictor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;

public class JvmBench {
  public static void main(String[] args) throws Exception {
    final Map<String, String> o = new HashMap<>(Map.of("--epoch", "0", "--batch", "1", "--clients", "1",
        "--iters", "50", "--warmup", "5", "--shape", "3,224,224", "--api", "floats"));
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i], args[i + 1]);
    }
    if (!o.containsKey("--prefix")) {
      System.err.println("JvmBench: --prefix is required");
      System.exit(2);
    }
    final int batch = Integer.parseInt(o.get("--batch"));
    final int clients = Integer.parseInt(o.get("--clients"));
    final int iters = Integer.parseInt(o.get("--iters"));
    final int warmup = Integer.parseInt(o.get("--warmup"));
    final boolean ndarray = o.get("--api").equals("ndarray");
    final long[] shape = Arrays.stream((batch + "," + o.get("--shape")).split(",")).mapToLong(Long::parseLong).toArray();
    final int size = Math.toIntExact(Arrays.stream(shape).reduce(1, (a, b) -> a * b));
    final double[][] latencies = new double[clients][iters];
    final long elapsed;
    try (Predictor predictor = new Predictor(o.get("--prefix"), Integer.parseInt(o.get("--epoch")),
        List.of(new DataDesc("data", shape)))) {
      final CyclicBarrier startLine = new CyclicBarrier(clients + 1);
      final List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < clients; ++c) {
        final int client = c;
        threads.add(new Thread(() -> {
          final Random random = new Random(client);
          final float[] x = new float[size];
          for (int i = 0; i < size; ++i) {
            x[i] = (float) random.nextGaussian();
          }
          try (NDArray input = NDArray.of(x, shape)) {
            for (int i = 0; i < warmup + iters; ++i) {
              if (i == warmup) {
                await(startLine);
              }
              final long t0 = System.nanoTime();
              if (ndarray) {
                predictor.predict(input)[0].close();
              } else {
                predictor.predict(x);
              }
              if (i >= warmup) {
                latencies[client][i - warmup] = (System.nanoTime() - t0) / 1e6;
              }
            }
          }
        }));
      }
      threads.forEach(Thread::start);
      await(startLine);
      final long t0 = System.nanoTime();
      for (Thread t : threads) {
        t.join();
      }
      elapsed = System.nanoTime() - t0;
    }
    final double[] ms = Arrays.stream(latencies).flatMapToDouble(Arrays::stream).sorted().toArray();
    final String prefix = o.get("--prefix");
    System.out.println(String.format(Locale.ROOT, "{\"engine\": \"quiver-jvm%s\", \"model\": \"%s\", \"batch\": %d, "
            + "\"clients\": %d, \"iters\": %d, \"p50_ms\": %.6f, \"p90_ms\": %.6f, \"p99_ms\": %.6f, "
            + "\"throughput_per_s\": %.3f}", ndarray ? "-ndarray" : "", prefix.substring(prefix.lastIndexOf('/') + 1),
        batch, clients, iters, percentile(ms, 50), percentile(ms, 90), percentile(ms, 99),
        batch * clients * (double) iters / (elapsed / 1e9)));
  }

  private static double percentile(double[] sorted, double p) {
    final double rank = p / 100 * (sorted.length - 1);
    final int lo = (int) Math.floor(rank);
    final int hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
