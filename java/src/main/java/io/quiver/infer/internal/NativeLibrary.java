package io.quiver.infer.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Loads Quiver's native libraries from this jar, without LD_LIBRARY_PATH or anything installed:
 * libquiver.so.1 (oneDNN is linked into it) and the JNI library libquiver_jni.so.
 *
 * <p>A library inside a jar cannot be mapped directly, so they are copied out once per machine and user:
 * into {@code ~/.cache/quiver/native/KEY/} (or {@code $XDG_CACHE_HOME/quiver/native}, or the directory
 * the system property {@value #CACHE_PROPERTY} names), where KEY is a digest of the libraries' SHA-256
 * sums, which the build records in the jar ({@code natives.sha256}). Every JVM checks each cached file
 * against its sum before loading it; a missing or damaged one is copied out again, to a temporary name
 * and then renamed into place, so JVMs starting at once on one host never load a partial file (each
 * finds the file whole, whoever wrote it). Where the cache cannot be written, or this JVM has already
 * loaded the cached files through another class loader (say, two Spark applications in one JVM: the
 * JVM refuses one file to two loaders), a fresh temporary copy is loaded and deleted.
 *
 * <p>The system property {@value #PATH_PROPERTY} names a directory to load the same files from instead
 * (say, a build for another CPU): each one found there is taken from there, the rest from the jar.
 * Called once, from the JNI class's static initializer.
 */
final class NativeLibrary {
  /** A directory whose native libraries take the place of the jar's. */
  static final String PATH_PROPERTY = "quiver.native.path";
  /** The directory the jar's libraries are copied out to, once per content. */
  static final String CACHE_PROPERTY = "quiver.native.cache";
  private static final String PLATFORM = "linux-x86_64";
  private static final String RESOURCES = "native/" + PLATFORM + "/";
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
    final String override = System.getProperty(PATH_PROPERTY, "");
    final Map<String, String> sums = recordedSums();
    // Without the build's sums (a jar not made by scripts/build_jvm.sh) nothing is cached.
    final Path dir = sums.keySet().containsAll(List.of(LIBRARIES)) ? cacheRoot().resolve(cacheKey(sums)) : null;
    for (String name : LIBRARIES) {
      final Path own = override.isEmpty() ? null : Path.of(override, name);
      if (own != null && Files.isRegularFile(own)) {
        System.load(own.toString());
      } else {
        loadFromJar(name, dir, sums.get(name));
      }
    }
  }

  /** The cached copy of the jar's library when it can be had, else a private temporary one. */
  private static void loadFromJar(String name, Path dir, String sum) {
    Path cached = null;
    try {
      cached = dir == null ? null : cached(dir, name, sum);
    } catch (IOException e) {
      // An unwritable cache: the temporary copy below serves.
    }
    if (cached != null) {
      try {
        System.load(cached.toString());
        return;
      } catch (UnsatisfiedLinkError e) {
        if (!String.valueOf(e.getMessage()).contains("another classloader")) {
          throw e;
        }
      }
    }
    loadTemporaryCopy(name);
  }

  /** The SHA-256 sums the build recorded for the jar's libraries (name -> hex), empty if none. */
  private static Map<String, String> recordedSums() {
    final Map<String, String> sums = new HashMap<>();
    try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCES + "natives.sha256")) {
      if (in != null) {
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          final String[] parts = line.trim().split("\\s+");
          if (parts.length == 2) {
            sums.put(parts[1], parts[0]);
          }
        }
      }
    } catch (IOException e) {
      sums.clear();
    }
    return sums;
  }

  /** The library's file in the cache directory `dir`, checked against `sum` (copied out first if needed). */
  private static Path cached(Path dir, String name, String sum) throws IOException {
    final Path file = dir.resolve(name);
    if (Files.isRegularFile(file) && sum.equals(sha256(file))) {
      return file;
    }
    Files.createDirectories(dir);
    final Path partial = Files.createTempFile(dir, name + ".", ".partial");
    try {
      final String copied = copyResource(name, partial);
      if (!copied.equals(sum)) {
        throw new UnsatisfiedLinkError("Quiver's native library " + name + " in the jar does not match its "
            + "recorded SHA-256 (a damaged or mixed-up jar?)");
      }
      try {
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
      }
      return file;
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  /** The libraries' directory name: a digest of their recorded sums, so another build gets its own. */
  private static String cacheKey(Map<String, String> sums) {
    final MessageDigest digest = newDigest();
    for (String name : LIBRARIES) {
      digest.update((sums.get(name) + " " + name + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return HexFormat.of().formatHex(digest.digest()).substring(0, 32);
  }

  private static Path cacheRoot() {
    final String property = System.getProperty(CACHE_PROPERTY, "");
    if (!property.isEmpty()) {
      return Path.of(property);
    }
    final String xdg = System.getenv("XDG_CACHE_HOME");
    final Path base = xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("quiver").resolve("native");
  }

  private static void loadTemporaryCopy(String name) {
    final Path dir;
    try {
      dir = Files.createTempDirectory("quiver-native-");
    } catch (IOException e) {
      throw linkError("cannot create a temporary directory for Quiver's native libraries", e);
    }
    final Path file = dir.resolve(name);
    try {
      copyResource(name, file);
      System.load(file.toString());
    } catch (IOException e) {
      throw linkError("cannot copy Quiver's native library " + name + " to " + dir, e);
    } finally {
      file.toFile().delete();
      dir.toFile().delete();
    }
  }

  /** Copies the jar's library to `file`; returns the SHA-256 of what was copied. */
  private static String copyResource(String name, Path file) throws IOException {
    try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new UnsatisfiedLinkError("Quiver's native library " + RESOURCES + name + " is missing from the "
            + "class path (a jar built without scripts/build_jvm.sh?)");
      }
      final DigestInputStream digesting = new DigestInputStream(in, newDigest());
      Files.copy(digesting, file, StandardCopyOption.REPLACE_EXISTING);
      return HexFormat.of().formatHex(digesting.getMessageDigest().digest());
    }
  }

  private static String sha256(Path file) throws IOException {
    final MessageDigest digest = newDigest();
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static UnsatisfiedLinkError linkError(String message, IOException cause) {
    final UnsatisfiedLinkError error = new UnsatisfiedLinkError(message + ": " + cause.getMessage());
    error.initCause(cause);
    return error;
  }
}
