package io.quiver.infer.scala

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path}

import io.quiver.infer.DataDesc
import org.scalatest.Assertions

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

  def maxAbsDiff(a: Array[Float], b: Array[Float]): Float = {
    assert(a.length == b.length)
    a.indices.map(i => math.abs(a(i) - b(i))).max
  }
}
