package io.quiver.infer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.infer.Quiver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The jar's native libraries are all the process needs: none comes from the machine. */
class NativeLibraryTest {
  /** Paths of the shared libraries mapped into this process whose file name contains {@code name}. */
  private static List<String> mapped(String name) throws IOException {
    return Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .map(line -> line.replaceFirst("^(\\S+\\s+){5}", "").trim())
        .map(path -> path.replace(" (deleted)", ""))
        .filter(path -> path.startsWith("/") && Path.of(path).getFileName().toString().contains(name))
        .distinct()
        .collect(Collectors.toList());
  }

  @Test
  void runtimeComesFromTheJar() throws IOException {
    Quiver.version();  // loads the natives
    for (String name : new String[] {"libquiver.so.1", "libquiver_jni.so"}) {
      final List<String> paths = mapped(name);
      assertEquals(1, paths.size(), name + " mapped from " + paths);
      assertTrue(paths.get(0).contains("/quiver-native-"),
          name + " mapped from " + paths.get(0) + ", not the jar's copy");
    }
    assertEquals(List.of(), mapped("libdnnl"), "oneDNN is linked into libquiver.so.1: no separate library");
    assertEquals(List.of(), mapped("libgomp"), "oneDNN runs on Quiver's own threads: no OpenMP runtime");
  }
}
