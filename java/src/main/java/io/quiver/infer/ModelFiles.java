package io.quiver.infer;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where model files come from. A model prefix (or a synset location) is a local path, a {@code file:}
 * URI, an {@code http://} or {@code https://} URL, or any URI Hadoop's {@code FileSystem} reads when
 * Hadoop is on the classpath, as it is on every Spark executor: {@code hdfs://}, {@code s3a://},
 * {@code abfs://}, {@code gs://}, {@code viewfs://}, ...
 *
 * <p>Local paths and {@code file:} URIs are read by the native library from the path, as before.
 * URLs are read with the JDK's {@code HttpClient} (redirects followed, certificates checked against the
 * JVM's default {@code SSLContext}: {@code javax.net.ssl.trustStore} or {@code SSLContext.setDefault});
 * other URIs through {@link HadoopFiles}. Remote files are read whole into memory and handed to the
 * native library as bytes. Failures throw {@link QuiverException} naming the URI: {@code NOT_FOUND} for a
 * missing or unreadable file, {@code UNSUPPORTED} for a scheme nothing here reads.
 */
final class ModelFiles {
  /** A scheme of two letters or more before "://": "C:\\models" and "models/resnet:v2" stay paths. */
  private static final Pattern REMOTE = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+://");
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

  private ModelFiles() {}

  /** The local path a location names (the location itself, a file: URI's path), null for a remote URI. */
  static String localPath(String location) {
    if (location.regionMatches(true, 0, "file:", 0, 5)) {
      final URI uri = uri(location);
      if (uri.getAuthority() != null && !uri.getAuthority().equalsIgnoreCase("localhost")) {
        throw new QuiverException(QuiverException.UNSUPPORTED, location + ": a file URI names a file on this "
            + "machine (file:///path), not on " + uri.getAuthority());
      }
      return uri.isOpaque() ? uri.getSchemeSpecificPart() : uri.getPath();
    }
    return REMOTE.matcher(location).find() ? null : location;
  }

  /** The directory of a model prefix: a path for local locations, a URI for remote ones. */
  static String parent(String prefix) {
    final String local = localPath(prefix);
    if (local != null) {
      final Path parent = Path.of(local).toAbsolutePath().getParent();
      return parent == null ? "/" : parent.toString();
    }
    final String head = prefix.substring(0, Math.max(prefix.lastIndexOf('/'), 0));
    return head.endsWith(":/") ? head + "/" : head; // "s3a://bucket/resnet" -> "s3a://bucket"
  }

  /** {@code name} in {@code directory} (as {@link #parent} gives it). */
  static String join(String directory, String name) {
    if (localPath(directory) != null) {
      return Path.of(directory).resolve(name).toString();
    }
    return (directory.endsWith("/") ? directory : directory + "/") + name;
  }

  /** The bytes of the file at {@code location}; {@code what} it is ("params file") names it in errors. */
  static byte[] read(String location, String what) {
    final byte[] bytes = readIfPresent(location, what);
    if (bytes == null) {
      throw new QuiverException(QuiverException.NOT_FOUND, what + " not found: " + location);
    }
    return bytes;
  }

  /**
   * The bytes of the file at {@code location}, or null when there is no such file. Other failures (no
   * access, a server error, no Hadoop for the scheme) throw a QuiverException naming the location.
   */
  static byte[] readIfPresent(String location, String what) {
    final String local = localPath(location);
    try {
      if (local != null) {
        try {
          return Files.readAllBytes(Path.of(local));
        } catch (NoSuchFileException e) {
          return null;
        }
      }
      final URI uri = uri(location);
      final String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
      if (scheme.equals("http") || scheme.equals("https")) {
        return readUrl(uri, what);
      }
      if (!hadoopPresent()) {
        throw new QuiverException(QuiverException.UNSUPPORTED, "reading " + location + " needs Hadoop's FileSystem "
            + "on the classpath (hadoop-client-api and hadoop-client-runtime, with the scheme's module, such as "
            + "hadoop-aws for s3a://), as Spark provides; local paths, file: and https: URIs need none");
      }
      return HadoopFiles.readIfPresent(uri, what);
    } catch (IOException e) {
      throw new QuiverException(QuiverException.NOT_FOUND, "cannot read the " + what + " " + location + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuiverException(QuiverException.CANCELLED, "interrupted while reading the " + what + " " + location, e);
    }
  }

  private static byte[] readUrl(URI uri, String what) throws IOException, InterruptedException {
    // A client per read: the default SSLContext as it is now, not as it was at the first read.
    final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
        .connectTimeout(CONNECT_TIMEOUT).build();
    final HttpResponse<byte[]> response =
        client.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    final int status = response.statusCode();
    if (status == 404 || status == 410) {
      return null;
    }
    if (status / 100 != 2) {
      throw new QuiverException(QuiverException.NOT_FOUND, "cannot read the " + what + " " + uri + ": HTTP " + status);
    }
    return response.body();
  }

  /** Whether Hadoop's FileSystem can be loaded where this class was. */
  static boolean hadoopPresent() {
    try {
      Class.forName("org.apache.hadoop.fs.FileSystem", false, ModelFiles.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static URI uri(String location) {
    try {
      return new URI(location);
    } catch (URISyntaxException e) {
      throw new QuiverException(QuiverException.INVALID_ARGUMENT, "not a URI: " + location + " (" + e.getMessage()
          + "; characters such as spaces are written %20)");
    }
  }
}
