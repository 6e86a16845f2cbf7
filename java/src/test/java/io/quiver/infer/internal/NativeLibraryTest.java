package io.quiver.infer.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.infer.Quiver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's native libraries are all the process needs (none comes from the machine), copied out once
 * per machine into a cache that concurrent JVMs share.
 */
class NativeLibraryTest {
  private static final String[] LIBRARIES = {"libquiver.so.1", "libquiver_jni.so"};

  /** Paths of the shared libraries mapped into this process whose file name contains {@code name}. */
  private static List<String> mapped(String name) throws IOException {
    return Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .map(line -> line.replaceFirst("^(\\S+\\s+){5}", "").trim())
        .map(path -> path.replace(" (deleted)", ""))
        .filter(path -> path.startsWith("/") && Path.of(path).getFileName().toString().contains(name))
        .distinct()
        .collect(Collectors.toList());
  }

  private static Path defaultCacheRoot() {
    final String xdg = System.getenv("XDG_CACHE_HOME");
    final Path base = xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("quiver").resolve("native");
  }

  /** A JVM on this test's class path that loads the natives with {@code cache} as its cache root. */
  private static Process startJvm(Path cache, Path log) throws IOException {
    final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
        "-D" + NativeLibrary.CACHE_PROPERTY + "=" + cache, "io.quiver.infer.Quiver")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void awaitSuccess(Process jvm, Path log) throws Exception {
    assertTrue(jvm.waitFor(120, TimeUnit.SECONDS), "the JVM did not finish");
    assertEquals(0, jvm.exitValue(), Files.readString(log));
    assertTrue(Files.readString(log).startsWith("Quiver "), Files.readString(log));
  }

  /** Everything under the cache root, as paths relative to it. */
  private static List<String> contents(Path cache) throws IOException {
    try (Stream<Path> files = Files.walk(cache)) {
      return files.filter(Files::isRegularFile).map(f -> cache.relativize(f).toString()).sorted()
          .collect(Collectors.toList());
    }
  }

  @Test
  void runtimeComesFromTheJarsCopyInTheCache() throws IOException {
    Quiver.version();  // loads the natives
    for (String name : LIBRARIES) {
      final List<String> paths = mapped(name);
      assertEquals(1, paths.size(), name + " mapped from " + paths);
      assertTrue(Path.of(paths.get(0)).startsWith(defaultCacheRoot()),
          name + " mapped from " + paths.get(0) + ", not the cached copy under " + defaultCacheRoot());
    }
    assertEquals(List.of(), mapped("libdnnl"), "oneDNN is linked into libquiver.so.1: no separate library");
    assertEquals(List.of(), mapped("libgomp"), "oneDNN runs on Quiver's own threads: no OpenMP runtime");
  }

  @Test
  void twoJvmsStartingAtOnceShareOneCopy(@TempDir Path folder) throws Exception {
    final Path cache = folder.resolve("cache");
    final List<Process> jvms = new ArrayList<>();
    for (int i = 0; i < 2; ++i) {
      jvms.add(startJvm(cache, folder.resolve("jvm" + i + ".log")));
    }
    for (int i = 0; i < 2; ++i) {
      awaitSuccess(jvms.get(i), folder.resolve("jvm" + i + ".log"));
    }
    final List<String> files = contents(cache);
    assertEquals(2, files.size(), "one copy of each library, no partial files: " + files);
    final String key = Path.of(files.get(0)).getParent().toString();
    assertEquals(List.of(key + "/" + LIBRARIES[0], key + "/" + LIBRARIES[1]), files);
  }

  @Test
  void aDamagedCopyIsReplacedAndAnUnwritableCacheFallsBackToATemporaryOne(@TempDir Path folder) throws Exception {
    final Path cache = folder.resolve("cache");
    awaitSuccess(startJvm(cache, folder.resolve("first.log")), folder.resolve("first.log"));
    final Path library = cache.resolve(contents(cache).get(0));
    final byte[] whole = Files.readAllBytes(library);
    final byte[] damaged = whole.clone();
    damaged[damaged.length / 2] ^= 0x5a;
    Files.write(library, damaged);
    awaitSuccess(startJvm(cache, folder.resolve("second.log")), folder.resolve("second.log"));
    assertArrayEquals(whole, Files.readAllBytes(library), "the damaged copy was not replaced");

    final Path notADirectory = folder.resolve("file");
    Files.writeString(notADirectory, "a file where the cache would be");
    awaitSuccess(startJvm(notADirectory, folder.resolve("third.log")), folder.resolve("third.log"));
  }
}
