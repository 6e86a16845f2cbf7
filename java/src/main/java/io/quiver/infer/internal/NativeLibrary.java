package io.quiver.infer.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads Quiver's native libraries from this jar, without LD_LIBRARY_PATH or anything installed:
 * libquiver.so.1 (oneDNN is linked into it) and the JNI library libquiver_jni.so.
 *
 * <p>They are copied to a fresh temporary directory and loaded from there (a library inside a jar cannot
 * be mapped directly); the files are deleted once loaded. A fresh copy per load also lets a second class
 * loader (say, two Spark applications in one JVM) load its own: the JVM refuses one file to two loaders.
 *
 * <p>The system property {@value #PATH_PROPERTY} names a directory to load the same files from instead
 * (say, a build for another CPU): each one found there is taken from
 * there, the rest from the jar. Called once, from the JNI class's static initializer.
 */
final class NativeLibrary {
  /** A directory whose native libraries take the place of the jar's. */
  static final String PATH_PROPERTY = "quiver.native.path";
  private static final String PLATFORM = "linux-x86_64";
  // Dependency order: the JNI library finds the already loaded libquiver.so.1 by its soname.
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
    final String override = System.getProperty(PATH_PROPERTY, "");
    try {
      for (String name : LIBRARIES) {
        final Path own = override.isEmpty() ? null : Path.of(override, name);
        System.load((own != null && Files.isRegularFile(own) ? own : extract(name, dir)).toString());
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
