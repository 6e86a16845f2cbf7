package io.quiver.infer.scala

import java.awt.image.BufferedImage
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path}

import io.quiver.infer.DataDesc
import org.scalatest.Assertions

import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Random

/** The MXNet-made fixtures of scripts/make_fixtures.sh (system property quiver.fixtures.dir): the oracle
  * tests fail without them when quiver.require.fixtures=1 (scripts/test_jvm.sh), else they are canceled
  * with the reason.
  */
object Fixtures extends Assertions {
  val dir: Path = Path.of(sys.props.getOrElse("quiver.fixtures.dir", sys.props("user.home") + "/.cache/quiver/fixtures"))

  def require(): Unit =
    if (!Files.exists(dir.resolve("manifest.json"))) {
      val message = s"no fixtures at $dir: run scripts/make_fixtures.sh"
      if (sys.props.get("quiver.require.fixtures").contains("1")) fail(message) else cancel(message)
    }

  def prefix(model: String): String = { require(); dir.resolve(model).toString }

  def floats(file: String): Array[Float] = {
    val bytes = ByteBuffer.wrap(Files.readAllBytes(dir.resolve(file))).order(ByteOrder.LITTLE_ENDIAN)
    val values = new Array[Float](bytes.remaining / 4)
    bytes.asFloatBuffer.get(values)
    values
  }

  def data(shape: Long*): DataDesc = new DataDesc("data", shape.toArray)

  /** A copy of a fixture model in its own directory, with a synset.txt of `labels` beside it. */
  def modelWithSynset(model: String, labels: Seq[String]): String = {
    val copy = Files.createTempDirectory("quiver-model")
    for (suffix <- Seq("-symbol.json", "-0000.params"))
      Files.copy(Path.of(prefix(model) + suffix), copy.resolve(model + suffix))
    Files.write(copy.resolve("synset.txt"), labels.asJava)
    copy.resolve(model).toString
  }

  /** An RGB image of random pixels. */
  def randomImage(width: Int, height: Int, seed: Long): BufferedImage = {
    val random = new Random(seed)
    val image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB)
    for (y <- 0 until height; x <- 0 until width) image.setRGB(x, y, random.nextInt(1 << 24))
    image
  }

  def maxAbsDiff(a: Array[Float], b: Array[Float]): Float = {
    assert(a.length == b.length)
    a.indices.map(i => math.abs(a(i) - b(i))).max
  }
}
