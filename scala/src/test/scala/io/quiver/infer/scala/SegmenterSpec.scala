package io.quiver.infer.scala

import java.awt.image.BufferedImage
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Using

class SegmenterSpec extends AnyFunSuite {

  /** A parameter-free model whose class scores are the normalised pixel (class c = channel c), with labels. */
  private def rgbModel(): String = {
    val dir = Files.createTempDirectory("quiver-segmenter")
    Files.writeString(dir.resolve("rgb-symbol.json"),
      """{"nodes": [{"op": "null", "name": "data", "inputs": []},
        |{"op": "_mul_scalar", "name": "scores", "attrs": {"scalar": "1.0"}, "inputs": [[0, 0, 0]]}],
        |"arg_nodes": [0], "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}""".stripMargin)
    // An MXNet .params file holding no arrays: the list's magic, a reserved word, 0 arrays, 0 names.
    val params = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN).putLong(0x112).putLong(0).putLong(0).putLong(0)
    Files.write(dir.resolve("rgb-0000.params"), params.array())
    Files.write(dir.resolve("synset.txt"), Seq("red", "green", "blue").asJava)
    dir.resolve("rgb").toString
  }

  private def halves(width: Int, height: Int): BufferedImage = {
    val image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB)
    for (y <- 0 until height; x <- 0 until width) image.setRGB(x, y, if (x < width / 2) 0xff0000 else 0x0000ff)
    image
  }

  test("segments at the image's size, labelled from synset.txt, one image or a batch") {
    Using.resource(new Segmenter(rgbModel(), IndexedSeq(Fixtures.data(1, 3, 8, 8)))) { seg =>
      val result = seg.segment(halves(40, 20))
      assert(result.width == 40 && result.height == 20)
      assert(result.label(3, 10) == "red" && result.label(35, 10) == "blue")
      val shares = seg.classShares(result)
      assert(shares.map(_._1).toSet.subsetOf(Set("red", "green", "blue")))
      assert(math.abs(shares.map(_._2).sum - 1.0) < 1e-9)
      val batch = seg.segmentImages(Seq(halves(40, 20), halves(12, 30)))
      assert(batch.map(r => (r.width, r.height)) == IndexedSeq((40, 20), (12, 30)))
      assert(batch.head.classIds.sameElements(result.classIds))
    }
  }
}
