package io.quiver.infer.scala

import java.net.InetSocketAddress
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.security.KeyStore
import java.util.concurrent.TimeUnit
import javax.net.ssl.{KeyManagerFactory, SSLContext, TrustManagerFactory}

import com.sun.net.httpserver.{HttpsConfigurator, HttpsServer}
import io.quiver.infer.QuiverException
import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Using

/** The Scala constructors take model URIs as the Java ones do: HTTPS from a server on loopback (a
  * self-signed certificate made here, trusted explicitly), and a clear refusal of hdfs:// where Hadoop is
  * not on the classpath (this module's tests run without it). HDFS itself is tested in java/
  * (ModelUrisTest, MiniDFSCluster).
  */
class ModelUrisSpec extends AnyFunSuite {
  private val labels = (0 until 10).map(i => s"class$i")
  private val inputs = IndexedSeq(Fixtures.data(2, 3, 16, 16))

  test("Predictor and Classifier read an https:// model prefix, with the synset beside it") {
    val root = Files.createTempDirectory("quiver-site")
    val models = Files.createDirectories(root.resolve("models"))
    for (suffix <- Seq("-symbol.json", "-0000.params"))
      Files.copy(Path.of(Fixtures.prefix("tiny") + suffix), models.resolve("tiny" + suffix))
    Files.write(models.resolve("synset.txt"), labels.asJava)
    val keys = selfSigned(root.resolve("server.p12"))
    val server = serve(root, keys)
    val defaultContext = SSLContext.getDefault
    try {
      SSLContext.setDefault(trusting(keys))
      val base = s"https://127.0.0.1:${server.getAddress.getPort}/models"
      val x = IndexedSeq(Fixtures.floats("tiny-in-2x3x16x16.f32"))
      val expected = Using.resource(new Predictor(Fixtures.prefix("tiny"), inputs))(_.predict(x))
      Using.resource(new Predictor(s"$base/tiny", inputs)) { p =>
        assert(p.predict(x).head.sameElements(expected.head))
      }
      Using.resource(new Classifier(s"$base/tiny", inputs)) { clf =>
        assert(clf.labels == labels)
        val best = expected.head.take(10).zipWithIndex.maxBy(_._1)._2
        assert(clf.classify(x, Some(1)).head.head.label == labels(best))
      }
      val missing = intercept[QuiverException](new Predictor(s"$base/tiny", inputs, epoch = 2))
      assert(missing.code == QuiverException.NOT_FOUND)
      assert(missing.getMessage == s"params file not found: $base/tiny-0002.params")
    } finally {
      SSLContext.setDefault(defaultContext)
      server.stop(0)
    }
  }

  test("without Hadoop on the classpath, hdfs:// prefixes are refused naming the URI") {
    assert(Option(getClass.getClassLoader.getResource("org/apache/hadoop/fs/FileSystem.class")).isEmpty)
    val e = intercept[QuiverException](new Classifier("hdfs://namenode:8020/models/tiny", inputs))
    assert(e.code == QuiverException.UNSUPPORTED)
    assert(e.getMessage.contains("hdfs://namenode:8020/models/synset.txt") && e.getMessage.contains("Hadoop"),
      e.getMessage)
  }

  /** A PKCS12 key store with a self-signed certificate for 127.0.0.1, made by the JDK's keytool. */
  private def selfSigned(file: Path): KeyStore = {
    val keytool = Path.of(sys.props("java.home"), "bin", "keytool").toString
    val process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname",
      "secp256r1", "-dname", "CN=quiver test server", "-ext", "SAN=ip:127.0.0.1", "-validity", "1",
      "-storetype", "PKCS12", "-keystore", file.toString, "-storepass", "changeit").redirectErrorStream(true).start()
    val log = new String(process.getInputStream.readAllBytes(), StandardCharsets.UTF_8)
    assert(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue == 0, s"keytool failed: $log")
    val keys = KeyStore.getInstance("PKCS12")
    Using.resource(Files.newInputStream(file))(in => keys.load(in, "changeit".toCharArray))
    keys
  }

  private def trusting(keys: KeyStore): SSLContext = {
    val trusted = KeyStore.getInstance("PKCS12")
    trusted.load(null, null)
    trusted.setCertificateEntry("server", keys.getCertificate("server"))
    val tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
    tmf.init(trusted)
    val context = SSLContext.getInstance("TLS")
    context.init(null, tmf.getTrustManagers, null)
    context
  }

  /** An HTTPS server on loopback serving `root`'s files (404 for anything else). */
  private def serve(root: Path, keys: KeyStore): HttpsServer = {
    val kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm)
    kmf.init(keys, "changeit".toCharArray)
    val context = SSLContext.getInstance("TLS")
    context.init(kmf.getKeyManagers, null, null)
    val server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0)
    server.setHttpsConfigurator(new HttpsConfigurator(context))
    server.createContext("/", exchange => {
      try {
        val file = root.resolve(exchange.getRequestURI.getPath.substring(1)).normalize
        if (file.startsWith(root) && Files.isRegularFile(file)) {
          val body = Files.readAllBytes(file)
          exchange.sendResponseHeaders(200, body.length.toLong)
          Using.resource(exchange.getResponseBody)(_.write(body))
        } else exchange.sendResponseHeaders(404, -1)
      } finally exchange.close()
    })
    server.start()
    server
  }
}
