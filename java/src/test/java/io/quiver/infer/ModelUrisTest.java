package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Models at URIs: file: URIs as paths, Hadoop's local file system, HDFS (MiniDFSCluster), and HTTPS (a
 * server on loopback with a self-signed certificate made here, trusted explicitly); missing and
 * unreadable files name their URI.
 */
class ModelUrisTest {
  private static final int CLASSES = 10; // the tiny model's

  @TempDir
  Path tmp;

  @Test
  void locationsSplitPathsFromUris() {
    assertEquals("models/resnet", ModelFiles.localPath("models/resnet"));
    assertEquals("models/resnet:v2", ModelFiles.localPath("models/resnet:v2")); // a colon is no scheme
    assertEquals("/models/my resnet", ModelFiles.localPath("file:///models/my%20resnet"));
    assertEquals("/models/resnet", ModelFiles.localPath("file:/models/resnet")); // Path.toUri's form
    assertEquals("/models/resnet", ModelFiles.localPath("file://localhost/models/resnet"));
    final QuiverException elsewhere = assertThrows(QuiverException.class,
        () -> ModelFiles.localPath("file://elsewhere/models/resnet"));
    assertTrue(elsewhere.getMessage().contains("file://elsewhere/models/resnet"), elsewhere.getMessage());
    for (String remote : List.of("hdfs://nn:8020/m/resnet", "s3a://bucket/resnet", "https://host/m/resnet")) {
      assertNull(ModelFiles.localPath(remote), remote);
    }
    assertEquals("hdfs://nn:8020/models", ModelFiles.parent("hdfs://nn:8020/models/resnet"));
    assertEquals("s3a://bucket", ModelFiles.parent("s3a://bucket/resnet"));
    assertEquals("/models", ModelFiles.parent("file:///models/resnet"));
    assertEquals("s3a://bucket/synset.txt", ModelFiles.join("s3a://bucket", "synset.txt"));
    assertEquals("/models/synset.txt", Classifier.synsetBeside("file:///models/resnet"));
    assertEquals("hdfs://nn/m/synset.txt", Classifier.synsetBeside("hdfs://nn/m/resnet"));
  }

  @Test
  void fileUrisReadAsPaths() throws IOException {
    final Path dir = modelDir(tmp.resolve("my models"));
    checkTiny(dir.toUri() + "tiny"); // file:///.../my%20models/tiny
    final QuiverException missing = assertThrows(QuiverException.class,
        () -> new Predictor(dir.toUri() + "nothing", 0, List.of()));
    assertEquals(QuiverException.NOT_FOUND, missing.code());
    assertTrue(missing.getMessage().contains("my models/nothing-symbol.json"), missing.getMessage());
  }

  @Test
  void hadoopsLocalFileSystemReadsFiles() throws IOException {
    final Path dir = modelDir(tmp.resolve("m"));
    final byte[] synset = HadoopFiles.readIfPresent(dir.resolve("synset.txt").toUri(), "synset file");
    assertArrayEquals(Files.readAllBytes(dir.resolve("synset.txt")), synset);
    assertNull(HadoopFiles.readIfPresent(dir.resolve("absent.txt").toUri(), "synset file"));
    final QuiverException unknown = assertThrows(QuiverException.class,
        () -> new Predictor("nosuchfs://bucket/models/tiny", 0, List.of()));
    assertEquals(QuiverException.UNSUPPORTED, unknown.code());
    assertTrue(unknown.getMessage().contains("nosuchfs://bucket/models/tiny-symbol.json"), unknown.getMessage());
  }

  @Test
  void hdfsThroughMiniDfsCluster() throws Exception {
    final MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(new Configuration(), tmp.resolve("dfs").toFile()).numDataNodes(1).build();
    try {
      cluster.waitActive();
      final FileSystem fs = cluster.getFileSystem();
      final Path local = modelDir(tmp.resolve("m"));
      fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(local.toUri()), new org.apache.hadoop.fs.Path("/models"));
      final String base = cluster.getURI() + "/models";
      checkTiny(base + "/tiny");
      // ObjectDetector's and Segmenter's labels: synset.txt beside the model when there is one.
      assertEquals(labels(), Classifier.synsetIfPresent(base + "/tiny"));
      assertNull(Classifier.synsetIfPresent(cluster.getURI() + "/elsewhere/tiny"));

      final QuiverException missing = assertThrows(QuiverException.class,
          () -> new Predictor(base + "/tiny", 7, List.of()));
      assertEquals(QuiverException.NOT_FOUND, missing.code());
      assertEquals("params file not found: " + base + "/tiny-0007.params", missing.getMessage());

      // Readable by its owner only: another user gets a QuiverException naming the file.
      fs.setPermission(new org.apache.hadoop.fs.Path("/models/tiny-0000.params"), new FsPermission((short) 0600));
      final UserGroupInformation other = UserGroupInformation.createUserForTesting("other", new String[] {"others"});
      final QuiverException denied = other.doAs((PrivilegedExceptionAction<QuiverException>)
          () -> assertThrows(QuiverException.class, () -> new Predictor(base + "/tiny", 0, List.of())));
      assertEquals(QuiverException.NOT_FOUND, denied.code());
      assertTrue(denied.getMessage().startsWith("cannot read the params file " + base + "/tiny-0000.params: "),
          denied.getMessage());
      assertTrue(denied.getMessage().contains("Permission denied"), denied.getMessage());
    } finally {
      cluster.shutdown();
    }
  }

  @Test
  void httpsWithAnExplicitlyTrustedCertificate() throws Exception {
    final Path root = tmp.resolve("site");
    modelDir(root.resolve("models"));
    modelDir(root.resolve("private"));
    final KeyStore keys = selfSigned(tmp.resolve("server.p12"));
    final HttpsServer server = serve(root, keys);
    final SSLContext defaultContext = SSLContext.getDefault();
    try {
      final String base = "https://127.0.0.1:" + server.getAddress().getPort();
      // Without trusting the server's certificate: refused, naming the URL.
      final QuiverException untrusted = assertThrows(QuiverException.class,
          () -> new Predictor(base + "/models/tiny", 0, List.of()));
      assertTrue(untrusted.getMessage().startsWith("cannot read the symbol file " + base + "/models/tiny-symbol.json: "
          + "javax.net.ssl.SSLHandshakeException"), untrusted.getMessage());

      SSLContext.setDefault(trusting(keys)); // the JVM's trust store: this certificate (and no other)
      checkTiny(base + "/models/tiny");
      final QuiverException missing = assertThrows(QuiverException.class,
          () -> new Predictor(base + "/models/tiny", 3, List.of()));
      assertEquals("params file not found: " + base + "/models/tiny-0003.params", missing.getMessage());
      final QuiverException forbidden = assertThrows(QuiverException.class,
          () -> new Predictor(base + "/private/tiny", 0, List.of()));
      assertEquals(QuiverException.NOT_FOUND, forbidden.code());
      assertEquals("cannot read the symbol file " + base + "/private/tiny-symbol.json: HTTP 403", forbidden.getMessage());
    } finally {
      SSLContext.setDefault(defaultContext);
      server.stop(0);
    }
  }

  @Test
  void messagesShowLocationsWithoutCredentialsOrQueries() {
    assertEquals("https://host:8443/m/net?...", ModelFiles.redact("https://user:pa55@host:8443/m/net?sig=abc#f"));
    assertEquals("s3a://bucket/net", ModelFiles.redact("s3a://key:secret@bucket/net"));
    assertEquals("/models/a@b/net", ModelFiles.redact("/models/a@b/net"));
    final QuiverException refused = assertThrows(QuiverException.class,
        () -> new Predictor("https://user:pa55@127.0.0.1:1/models/tiny?token=t0k3n", 0, List.of()));
    assertFalse(refused.getMessage().contains("pa55") || refused.getMessage().contains("t0k3n"), refused.getMessage());
    assertTrue(refused.getMessage().contains("https://127.0.0.1:1/models/tiny?..."), refused.getMessage());
  }

  @Test
  void urlCredentialsGoToTheirHostOnlyAndHttpsNeverRedirectsToHttp() throws Exception {
    final Path root = tmp.resolve("site");
    modelDir(root.resolve("models"));
    final KeyStore keys = selfSigned(tmp.resolve("server.p12"));
    final HttpsServer server = serve(root, keys);
    final SSLContext defaultContext = SSLContext.getDefault();
    try {
      SSLContext.setDefault(trusting(keys));
      final String authority = "127.0.0.1:" + server.getAddress().getPort();
      SEEN.clear();
      checkTiny("https://reader:pa%3A55@" + authority + "/models/tiny");
      final String basic = "Basic " + Base64.getEncoder().encodeToString("reader:pa:55".getBytes(StandardCharsets.UTF_8));
      assertTrue(SEEN.stream().allMatch(seen -> seen.equals("/models " + basic)), SEEN.toString());
      SEEN.clear();
      try (Predictor p = new Predictor("https://reader:pw@" + authority + "/elsewhere/models/tiny", 0, List.of())) {
        assertEquals(1, p.inputNames().size());
      }
      assertTrue(SEEN.stream().filter(seen -> seen.startsWith("/models")).allMatch(seen -> seen.equals("/models null")),
          SEEN.toString());
      final QuiverException down = assertThrows(QuiverException.class,
          () -> new Predictor("https://" + authority + "/down/models/tiny", 0, List.of()));
      assertTrue(down.getMessage().endsWith("a redirect from https to http is refused"), down.getMessage());
    } finally {
      SSLContext.setDefault(defaultContext);
      server.stop(0);
    }
  }

  @Test
  void aServerThatNeverAnswersFailsTheReadInTime() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      System.setProperty(ModelFiles.TIMEOUT_PROPERTY, "1");
      final long start = System.nanoTime();
      final QuiverException timedOut = assertThrows(QuiverException.class,
          () -> new Predictor("http://127.0.0.1:" + silent.getLocalPort() + "/models/tiny", 0, List.of()));
      assertTrue(timedOut.getMessage().contains("HttpTimeoutException"), timedOut.getMessage());
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30));
    } finally {
      System.clearProperty(ModelFiles.TIMEOUT_PROPERTY);
    }
  }

  @Test
  void textThatIsNotUtf8IsAParseError() throws IOException {
    final Path synset = tmp.resolve("latin1.txt");
    Files.write(synset, "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
    final QuiverException local = assertThrows(QuiverException.class, () -> Classifier.readSynset(synset));
    assertEquals(QuiverException.PARSE, local.code());
    assertTrue(local.getMessage().contains("is not UTF-8 text"), local.getMessage());
  }

  // -- helpers ---------------------------------------------------------------------------------

  /** A Classifier at the prefix gives the local model's outputs, labelled by the synset beside it. */
  private static void checkTiny(String prefix) {
    final Fixtures.Case c = Fixtures.tiny();
    final List<DataDesc> inputs = List.of(Fixtures.data(c.inputShape()));
    final float[] expected;
    try (Predictor local = new Predictor(c.prefix(), 0, inputs)) {
      expected = local.predict(c.input())[0];
    }
    try (Classifier remote = new Classifier(prefix, 0, inputs)) {
      assertArrayEquals(expected, remote.predictor().predict(c.input())[0]);
      assertEquals(labels(), remote.labels());
      int best = 0;
      for (int i = 1; i < CLASSES; ++i) {
        best = expected[i] > expected[best] ? i : best;
      }
      assertEquals("class" + best, remote.classify(c.input(), 1).get(0).get(0).label());
    }
  }

  private static List<String> labels() {
    final List<String> labels = new ArrayList<>();
    for (int i = 0; i < CLASSES; ++i) {
      labels.add("class" + i);
    }
    return labels;
  }

  /** The tiny fixture model copied into {@code dir}, with a synset.txt beside it. */
  private static Path modelDir(Path dir) throws IOException {
    Fixtures.require();
    Files.createDirectories(dir);
    for (String suffix : List.of("-symbol.json", "-0000.params")) {
      Files.copy(Path.of(Fixtures.tiny().prefix() + suffix), dir.resolve("tiny" + suffix));
    }
    Files.writeString(dir.resolve("synset.txt"), String.join("\n", labels()) + "\n");
    return dir;
  }

  /** A PKCS12 key store with a self-signed certificate for 127.0.0.1, made by the JDK's keytool. */
  private static KeyStore selfSigned(Path file) throws Exception {
    final String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    final Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC",
        "-groupname", "secp256r1", "-dname", "CN=quiver test server", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
        "-validity", "1", "-storetype", "PKCS12", "-keystore", file.toString(), "-storepass", "changeit")
        .redirectErrorStream(true).start();
    final String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, "keytool failed: " + log);
    final KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      keys.load(in, "changeit".toCharArray());
    }
    return keys;
  }

  /** An SSLContext that trusts the key store's certificate alone. */
  private static SSLContext trusting(KeyStore keys) throws Exception {
    final KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("server", keys.getCertificate("server"));
    final TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    final SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  /** "FIRST_FOLDER AUTHORIZATION" of each request {@link #serve}'s server saw. */
  private static final List<String> SEEN = java.util.Collections.synchronizedList(new ArrayList<>());

  /**
   * An HTTPS server on loopback serving {@code root}'s files; anything under /private/ is forbidden,
   * /down/X redirects to http://, /elsewhere/X to the same server under the host name localhost.
   */
  private static HttpsServer serve(Path root, KeyStore keys) throws Exception {
    final KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, "changeit".toCharArray());
    final SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    final HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(context));
    server.createContext("/", exchange -> {
      try (exchange) {
        final String path = exchange.getRequestURI().getPath();
        final Path file = root.resolve(path.substring(1)).normalize();
        final int folderEnd = path.indexOf('/', 1);
        SEEN.add((folderEnd < 0 ? path : path.substring(0, folderEnd)) + " "
            + exchange.getRequestHeaders().getFirst("Authorization"));
        if (path.startsWith("/down/") || path.startsWith("/elsewhere/")) {
          final boolean down = path.startsWith("/down/");
          final String rest = path.substring(path.indexOf('/', 1));
          exchange.getResponseHeaders().add("Location", (down ? "http://127.0.0.1:" : "https://localhost:")
              + exchange.getLocalAddress().getPort() + rest);
          respond(exchange, 302, new byte[0]);
        } else if (path.startsWith("/private/")) {
          respond(exchange, 403, new byte[0]);
        } else if (file.startsWith(root) && Files.isRegularFile(file)) {
          respond(exchange, 200, Files.readAllBytes(file));
        } else {
          respond(exchange, 404, new byte[0]);
        }
      }
    });
    server.start();
    return server;
  }

  private static void respond(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }
}
