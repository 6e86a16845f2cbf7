package io.quiver.infer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
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
 * native library as bytes. Failures throw {@link QuiverException} naming the URI without its user,
 * password or query ({@link #redact}): {@code NOT_FOUND} for a missing or unreadable file,
 * {@code UNSUPPORTED} for a scheme nothing here reads.
 *
 * <p>URLs: a user and password in the URL are sent as basic authentication to that host only; redirects
 * (at most {@value #MAX_REDIRECTS}) never go from https to http and never carry the credentials to
 * another host; a server that does not connect, or does not answer, within 60 seconds (the system
 * property {@code io.quiver.httpTimeoutSeconds}) fails the read; a file must fit in a Java array
 * (under 2 GiB).
 */
final class ModelFiles {
  /** A scheme of two letters or more before "://": "C:\\models" and "models/resnet:v2" stay paths. */
  private static final Pattern REMOTE = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+://");
  /** The system property of how long, in seconds, a URL's server may take to connect, and then to answer. */
  static final String TIMEOUT_PROPERTY = "io.quiver.httpTimeoutSeconds";
  static final int MAX_REDIRECTS = 10;
  /** The largest array the JVM allocates. */
  private static final long MAX_BYTES = Integer.MAX_VALUE - 8;

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
      throw new QuiverException(QuiverException.NOT_FOUND, what + " not found: " + redact(location));
    }
    return bytes;
  }

  /** A UTF-8 text file's contents (as read); malformed UTF-8 throws {@code PARSE}, as the native loader does. */
  static String text(byte[] bytes, String what, String location) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new QuiverException(QuiverException.PARSE, "the " + what + " " + redact(location) + " is not UTF-8 text");
    }
  }

  /**
   * {@code location} as messages show it: without a user or password, and without the query and
   * fragment (where signed URLs carry their tokens).
   */
  static String redact(String location) {
    if (!REMOTE.matcher(location).find()) {
      return location;
    }
    final int start = location.indexOf("://") + 3;
    int end = location.indexOf('/', start);
    end = end < 0 ? location.length() : end;
    final String authority = location.substring(start, end);
    String rest = location.substring(end);
    final int query = rest.indexOf('?');
    final int fragment = rest.indexOf('#');
    if (query >= 0) {
      rest = rest.substring(0, query) + "?...";
    } else if (fragment >= 0) {
      rest = rest.substring(0, fragment);
    }
    return location.substring(0, start) + authority.substring(authority.lastIndexOf('@') + 1) + rest;
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
        throw new QuiverException(QuiverException.UNSUPPORTED, "reading " + redact(location) + " needs Hadoop's FileSystem "
            + "on the classpath (hadoop-client-api and hadoop-client-runtime, with the scheme's module, such as "
            + "hadoop-aws for s3a://), as Spark provides; local paths, file: and https: URIs need none");
      }
      return HadoopFiles.readIfPresent(uri, what);
    } catch (IOException e) {
      throw new QuiverException(QuiverException.NOT_FOUND, "cannot read the " + what + " " + redact(location) + ": "
          + e.getClass().getName() + (e.getMessage() == null ? "" : ": " + redact(e.getMessage())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuiverException(QuiverException.CANCELLED, "interrupted while reading the " + what + " "
          + redact(location), e);
    }
  }

  private static byte[] readUrl(URI uri, String what) throws IOException, InterruptedException {
    final String shown = redact(uri.toString());
    // Credentials in the URL: basic authentication for its host, not a part of the address.
    final String user = uri.getRawUserInfo();
    final String authorization = user == null ? null : "Basic " + Base64.getEncoder().encodeToString(
        java.net.URLDecoder.decode(user.replace("+", "%2B"), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
    final String host = uri.getHost() + ":" + uri.getPort();
    URI at = withoutUserInfo(uri);
    // A client per read: the default SSLContext as it is now, not as it was at the first read.
    final Duration timeout = Duration.ofSeconds(Long.getLong(TIMEOUT_PROPERTY, 60));
    final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(timeout).build();
    for (int hop = 0; ; ++hop) {
      final HttpRequest.Builder request = HttpRequest.newBuilder(at).GET().timeout(timeout);
      if (authorization != null && (at.getHost() + ":" + at.getPort()).equalsIgnoreCase(host)) {
        request.header("Authorization", authorization);
      }
      final HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      final int status = response.statusCode();
      try (InputStream body = response.body()) {
        final Optional<String> location = response.headers().firstValue("Location");
        if (status / 100 == 3 && location.isPresent()) {
          final URI next = at.resolve(location.get());
          if (at.getScheme().equalsIgnoreCase("https") && !"https".equalsIgnoreCase(next.getScheme())) {
            throw new QuiverException(QuiverException.NOT_FOUND, "cannot read the " + what + " " + shown
                + ": a redirect from https to " + next.getScheme() + " is refused");
          }
          if (hop == MAX_REDIRECTS) {
            throw new QuiverException(QuiverException.NOT_FOUND, "cannot read the " + what + " " + shown
                + ": more than " + MAX_REDIRECTS + " redirects");
          }
          at = withoutUserInfo(next);
          continue;
        }
        if (status == 404 || status == 410) {
          return null;
        }
        if (status / 100 != 2) {
          throw new QuiverException(QuiverException.NOT_FOUND, "cannot read the " + what + " " + shown + ": HTTP " + status);
        }
        final long declared = response.headers().firstValueAsLong("Content-Length").orElse(-1);
        if (declared > MAX_BYTES) {
          throw new QuiverException(QuiverException.OUT_OF_MEMORY, "the " + what + " " + shown + " is " + declared
              + " bytes: a Java array holds under 2 GiB");
        }
        return readAtMost(body, what, shown);
      }
    }
  }

  private static byte[] readAtMost(InputStream body, String what, String shown) throws IOException {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final byte[] chunk = new byte[1 << 16];
    long total = 0;
    for (int n; (n = body.read(chunk)) > 0; ) {
      total += n;
      if (total > MAX_BYTES) {
        throw new QuiverException(QuiverException.OUT_OF_MEMORY, "the " + what + " " + shown
            + " is over 2 GiB: a Java array holds less");
      }
      out.write(chunk, 0, n);
    }
    return out.toByteArray();
  }

  private static URI withoutUserInfo(URI uri) {
    if (uri.getRawUserInfo() == null) {
      return uri;
    }
    return URI.create(uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
        + (uri.getRawPath() == null ? "" : uri.getRawPath()) + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
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
      throw new QuiverException(QuiverException.INVALID_ARGUMENT, "not a URI: " + redact(location)
          + " (characters such as spaces are written %20)");
    }
  }
}
