package io.quiver.infer.scala

import java.awt.image.BufferedImage
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import io.quiver.infer.QuiverException
import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.collection.immutable.BitSet
import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Using

class ObjectDetectorSpec extends AnyFunSuite {

  /** Model files (prefix returned) that ignore their 64 x 64 image and always give `outputs`, batch 1,
    * each (1, shape...) with its values: per output, a zero-weight FullyConnected whose bias holds them,
    * reshaped; labels in synset.txt beside.
    */
  private def constantOutputsModel(labels: Seq[String], outputs: (Seq[Long], Array[Float])*): String = {
    val nodes = Seq(
      """{"op": "null", "name": "data", "inputs": []}""",
      """{"op": "Pooling", "name": "pool", "attrs": {"global_pool": "True", "kernel": "(1, 1)", "pool_type": "avg"},
        |"inputs": [[0, 0, 0]]}""".stripMargin) ++ outputs.zipWithIndex.flatMap { case ((shape, values), i) =>
      val fc = 2 + 4 * i
      Seq(s"""{"op": "null", "name": "fc${i}_weight", "inputs": []}""",
        s"""{"op": "null", "name": "fc${i}_bias", "inputs": []}""",
        s"""{"op": "FullyConnected", "name": "fc$i", "attrs": {"num_hidden": "${values.length}"},
           |"inputs": [[1, 0, 0], [$fc, 0, 0], [${fc + 1}, 0, 0]]}""".stripMargin,
        s"""{"op": "Reshape", "name": "out$i", "attrs": {"shape": "(0, ${shape.mkString(", ")})"},
           |"inputs": [[${fc + 2}, 0, 0]]}""".stripMargin)
    }
    val args = 0 +: outputs.indices.flatMap(i => Seq(2 + 4 * i, 3 + 4 * i))
    val heads = outputs.indices.map(i => s"[${5 + 4 * i}, 0, 0]")
    val params = outputs.zipWithIndex.flatMap { case ((_, values), i) =>
      Seq((s"arg:fc${i}_weight", Seq(values.length.toLong, 3L), new Array[Float](3 * values.length)),
        (s"arg:fc${i}_bias", Seq(values.length.toLong), values))
    }
    val dir = Files.createTempDirectory("quiver-detector")
    Files.writeString(dir.resolve("constant-symbol.json"), s"""{"nodes": [${nodes.mkString(", ")}],
      |"arg_nodes": [${args.mkString(", ")}], "heads": [${heads.mkString(", ")}],
      |"attrs": {"mxnet_version": ["int", 10901]}}""".stripMargin)
    Files.write(dir.resolve("constant-0000.params"), paramsBytes(params))
    Files.write(dir.resolve("synset.txt"), labels.asJava)
    dir.resolve("constant").toString
  }

  /** An MXNet .params file of dense float32 CPU arrays: (name, shape, values). */
  private def paramsBytes(params: Seq[(String, Seq[Long], Array[Float])]): Array[Byte] = {
    val size = 32 + params.map { case (name, shape, values) =>
      24 + 8 * shape.length + 4 * values.length + 8 + name.getBytes(UTF_8).length
    }.sum
    val out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN)
    out.putLong(0x112).putLong(0).putLong(params.size.toLong)  // the list's magic, reserved, array count
    for ((_, shape, values) <- params) {
      out.putInt(0xf993fac9).putInt(0).putInt(shape.length)   // version 2 magic, dense storage, ndim
      shape.foreach(d => out.putLong(d))
      out.putInt(1).putInt(0).putInt(0)                        // cpu(0), float32
      values.foreach(v => out.putFloat(v))
    }
    out.putLong(params.size.toLong)
    for ((name, _, _) <- params) {
      val encoded = name.getBytes(UTF_8)
      out.putLong(encoded.length.toLong).put(encoded)
    }
    out.array
  }

  /** Pixels [x0, x1) x [y0, y1) of an image `width` wide, row-major. */
  private def rectangle(width: Int, x0: Int, x1: Int, y0: Int, y1: Int): BitSet =
    BitSet((for (y <- y0 until y1; x <- x0 until x1) yield y * width + x): _*)

  test("reads Mask R-CNN's outputs: detections and their masks over the image") {
    val masks = Array.tabulate(3, 4, 4) { (k, _, col) =>
      if (k == 0) (if (col < 2) 1f else 0f) // the first object fills the left half of its box
      else if (k == 1) 0.7f                 // the second all of its box (clipped to the image)
      else 0f
    }.flatten.flatten
    val prefix = constantOutputsModel(Seq("cat", "dog"), Seq(3L, 1L) -> Array(1f, 0f, -1f),
      Seq(3L, 1L) -> Array(0.9f, 0.8f, -1f),
      Seq(3L, 4L) -> Array[Float](8, 16, 40, 48, -16, 0, 16, 64, -1, -1, -1, -1), // on a 64 x 64 input
      Seq(3L, 4L, 4L) -> masks)
    Using.resource(new ObjectDetector(prefix, IndexedSeq(Fixtures.data(1, 3, 64, 64)))) { det =>
      val image = new BufferedImage(256, 128, BufferedImage.TYPE_INT_RGB) // 4x as wide, 2x as high
      val found = det.detect(image)
      assert(found.map(d => (d.label, d.score, Seq(d.xmin, d.ymin, d.xmax, d.ymax).map(v => math.round(v)))) ==
        IndexedSeq(("dog", 0.9f, Seq(32, 32, 160, 96)), ("cat", 0.8f, Seq(0, 0, 64, 128))))
      val instances = det.detectInstances(image)
      assert(instances.map(_.detection) == found)
      assert(instances.map(i => (i.width, i.height)) == IndexedSeq((256, 128), (256, 128)))
      val (dog, cat) = (instances(0), instances(1))
      // The left half of (32, 32)-(160, 96), and on to column 95, where the grid's samples fall to 0.5.
      // (On failure, the pixels that differ.)
      assert((dog.mask ^ rectangle(256, 32, 96, 32, 96)).isEmpty)
      assert((cat.mask ^ rectangle(256, 0, 64, 0, 128)).isEmpty) // its box starts left of the image
      assert(cat.contains(63, 127) && !cat.contains(64, 0))
      assert(det.detectInstances(image, maskThreshold = 0.75f).map(_.mask.size) == IndexedSeq(56 * 64, 0)) // to column 87
    }
  }

  test("detectInstances needs a mask output") {
    val prefix = constantOutputsModel(Seq("cat"), Seq(1L, 6L) -> Array(0f, 0.9f, 0.1f, 0.2f, 0.5f, 0.6f))
    Using.resource(new ObjectDetector(prefix, IndexedSeq(Fixtures.data(1, 3, 64, 64)))) { det =>
      val image = new BufferedImage(32, 32, BufferedImage.TYPE_INT_RGB)
      val e = intercept[QuiverException](det.detectInstances(image))
      assert(e.code == QuiverException.SHAPE && e.getMessage.contains("no mask output"), e.getMessage)
      assert(det.detect(image).map(_.label) == IndexedSeq("cat"))
    }
  }
}
