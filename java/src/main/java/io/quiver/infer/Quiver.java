package io.quiver.infer;

import io.quiver.infer.internal.QuiverCapi;

/** The runtime as a whole: its version, the native memory it holds and its compute-thread budget. */
public final class Quiver {
  private Quiver() {}

  /** The loaded libquiver.so's version, "major.minor.patch". */
  public static String version() {
    final int[] major = new int[1];
    final int[] minor = new int[1];
    final int[] patch = new int[1];
    QuiverCapi.QvGetVersion(major, minor, patch);
    return major[0] + "." + minor[0] + "." + patch[0];
  }

  /**
   * {@code {bytes_in_use, arrays_alive}} from {@code QvGetMemoryStats}: bytes of array storage,
   * parameters and workspaces, and the number of arrays alive (including those held for work in flight).
   */
  public static long[] memoryStats() {
    final long[] bytes = new long[1];
    final long[] arrays = new long[1];
    QuiverCapi.QvGetMemoryStats(bytes, arrays);
    return new long[] {bytes[0], arrays[0]};
  }

  /**
   * Sets how many threads may compute at once in this process, across every model ({@code
   * QvSetNumThreads}, 1 to 4096). It starts as the smallest of the CPUs the process may use, {@code
   * QUIVER_NUM_THREADS} and {@code OMP_NUM_THREADS}; kernels started afterwards share the new budget.
   */
  public static void setNumThreads(int threads) {
    QuiverCapi.QvSetNumThreads(threads);
  }

  /** The compute-thread budget ({@code QvGetNumThreads}). */
  public static int numThreads() {
    final int[] threads = new int[1];
    QuiverCapi.QvGetNumThreads(threads);
    return threads[0];
  }

  /**
   * Blocks until all work submitted so far, by any thread, has finished and the callbacks it triggered
   * (future completions included) have returned. Must not be called from such a callback.
   */
  public static void waitAll() {
    QuiverCapi.QvWaitAll();
  }

  /** {@code java -jar quiver-java.jar}: loads the native libraries from the jar and prints the version. */
  public static void main(String[] args) {
    final long[] stats = memoryStats();
    System.out.println("Quiver " + version() + " (native libraries loaded from the jar; " + stats[0]
        + " bytes in use, " + stats[1] + " arrays alive)");
  }
}
