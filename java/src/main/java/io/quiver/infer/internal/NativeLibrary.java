package io.quiver.infer.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads libquiver.so.1 and the JNI library libquiver_jni.so from this jar, without LD_LIBRARY_PATH.
 *
 * <p>Both are copied to a fresh temporary directory and loaded from there (a library inside a jar cannot
 * be mapped directly); the files are deleted once loaded. A fresh copy per load also lets a second class
 * loader (say, two Spark applications in one JVM) load its own: the JVM refuses one file to two loaders.
 * Called once, from the JNI class's static initializer.
 */
final class NativeLibrary {
  private static final String PLATFORM = "linux-x86_64";
  // Dependency order: the JNI library needs libquiver.so.1 (found beside it through its $ORIGIN run path).
  private static final String[] LIBRARIES = {"libquiver.so.1", "libquiver_jni.so"};

  private NativeLibrary() {}

  static void load() {
    final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    final String arch = System.getProperty("os.arch", "");
    if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new UnsatisfiedLinkError("Quiver's jar carries native libraries for " + PLATFORM + " only, not "
          + os + "-" + arch);
    }
    final Path dir;
    try {
      dir = Files.createTempDirectory("quiver-native-");
    } catch (IOException e) {
      throw linkError("cannot create a temporary directory for Quiver's native libraries", e);
    }
    try {
      for (String name : LIBRARIES) {
        System.load(extract(name, dir).toString());
      }
    } finally {
      for (String name : LIBRARIES) {
        dir.resolve(name).toFile().delete();
      }
      dir.toFile().delete();
    }
  }

  private static Path extract(String name, Path dir) {
    final String resource = "native/" + PLATFORM + "/" + name;
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError("Quiver's native library " + resource + " is missing from the class path "
            + "(a jar built without scripts/build_jvm.sh?)");
      }
      final Path file = dir.resolve(name);
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    } catch (IOException e) {
      throw linkError("cannot copy " + resource + " to " + dir, e);
    }
  }

  private static UnsatisfiedLinkError linkError(String message, IOException cause) {
    final UnsatisfiedLinkError error = new UnsatisfiedLinkError(message + ": " + cause.getMessage());
    error.initCause(cause);
    return error;
  }
}
