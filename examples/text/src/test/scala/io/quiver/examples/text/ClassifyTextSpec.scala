package io.quiver.examples.text

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}

import io.quiver.infer.{DType, DataDesc, Predictor => JPredictor}
import io.quiver.infer.scala.Predictor

import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Using
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/** Both examples on a tiny sentiment model written here: ids -> Embedding (one number per word) -> mean over
  * the sentence -> FullyConnected (2 classes) -> softmax. Vocabulary: 0 padding, 1 good, 2 bad, 3 movie,
  * 4 great, 5 awful, scored 0, 1, -1, 0, 2, -2; class logits (-3m, 3m) for a sentence mean m.
  */
class ClassifyTextSpec extends AnyFunSuite with BeforeAndAfterAll {
  private val labels = IndexedSeq("negative", "positive")
  private val seqLen = 4
  private val sentences = Seq(Array(4, 3), Array(2, 5), Array(1, 1, 2, 3, 3)) // the last one is cut to 4 ids
  private def sigmoid(x: Double): Float = (1 / (1 + math.exp(-x))).toFloat
  // Means 0.5, -0.75, 0.25: the winning class has probability sigmoid(6 |m|).
  private val expected = Seq("positive" -> sigmoid(3), "negative" -> sigmoid(4.5), "positive" -> sigmoid(1.5))

  private lazy val prefix: String = {
    val dir = Files.createTempDirectory("quiver-text")
    val json =
      """{"nodes": [{"op": "null", "name": "tokens", "inputs": []},
        |{"op": "null", "name": "emb_weight", "inputs": []},
        |{"op": "Embedding", "name": "emb", "attrs": {"input_dim": "6", "output_dim": "1"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
        |{"op": "mean", "name": "pooled", "attrs": {"axis": "1"}, "inputs": [[2, 0, 0]]},
        |{"op": "null", "name": "fc_weight", "inputs": []},
        |{"op": "null", "name": "fc_bias", "inputs": []},
        |{"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2"}, "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0]]},
        |{"op": "softmax", "name": "prob", "inputs": [[6, 0, 0]]}],
        |"arg_nodes": [0, 1, 4, 5], "heads": [[7, 0, 0]]}""".stripMargin
    Files.writeString(dir.resolve("sentiment-symbol.json"), json)
    Files.write(dir.resolve("sentiment-0000.params"), params(Seq(
      ("arg:emb_weight", Seq(6L, 1L), Seq(0f, 1f, -1f, 0f, 2f, -2f)),
      ("arg:fc_weight", Seq(2L, 1L), Seq(-3f, 3f)),
      ("arg:fc_bias", Seq(2L), Seq(0f, 0f)))))
    Files.write(dir.resolve("synset.txt"), labels.asJava)
    dir.resolve("sentiment").toString
  }

  override def afterAll(): Unit = {
    val dir = Path.of(prefix).getParent
    Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(f => Files.delete(f))
  }

  /** An MXNet .params file of dense float32 CPU arrays. */
  private def params(arrays: Seq[(String, Seq[Long], Seq[Float])]): Array[Byte] = {
    val out = ByteBuffer.allocate(1 << 12).order(ByteOrder.LITTLE_ENDIAN)
    out.putLong(0x112).putLong(0).putLong(arrays.size.toLong) // list magic, reserved, count
    for ((_, shape, values) <- arrays) {
      out.putInt(0xF993FAC9).putInt(0).putInt(shape.size)   // array magic (v2), dense storage
      shape.foreach(out.putLong(_))
      out.putInt(1).putInt(0).putInt(0)                     // cpu(0), float32
      values.foreach(out.putFloat(_))
    }
    out.putLong(arrays.size.toLong)
    for ((name, _, _) <- arrays) {
      val encoded = name.getBytes(StandardCharsets.UTF_8)
      out.putLong(encoded.length.toLong).put(encoded)
    }
    java.util.Arrays.copyOf(out.array(), out.position())
  }

  private def tokens = new DataDesc("tokens", Array(1L, seqLen.toLong), DType.INT32, "NT")

  private def check(got: Seq[(String, Float)]): Unit = {
    assert(got.map(_._1) == expected.map(_._1))
    got.zip(expected).foreach { case ((_, p), (_, want)) => assert(math.abs(p - want) <= 1e-6f, s"$p vs $want") }
  }

  test("the Java example classifies a batch of id sequences, and its main prints them") {
    Using.resource(new JPredictor(prefix, 0, List(tokens).asJava)) { model =>
      assert(model.inputDTypes.get("tokens") == DType.INT32)
      val best = JavaClassifyText.classify(model, labels.asJava, seqLen, sentences.asJava).asScala.toSeq
      check(best.map(c => c.label -> c.probability))
    }
    val printed = new ByteArrayOutputStream()
    val stdout = System.out
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8))
    try JavaClassifyText.main(Array(prefix, "4", "4 3", "2 5"))
    finally System.setOut(stdout)
    assert(printed.toString(StandardCharsets.UTF_8).split("\n").toSeq == Seq("4 3\tpositive 0.9526", "2 5\tnegative 0.9890"))
  }

  test("the Scala example classifies a batch of id sequences, and its main prints them") {
    Using.resource(new Predictor(prefix, IndexedSeq(tokens))) { model =>
      check(ClassifyText.classify(model, labels, seqLen, sentences).map(c => c.label -> c.probability))
    }
    val printed = new ByteArrayOutputStream()
    Console.withOut(printed)(ClassifyText.main(Array(prefix, "4", "4 3", "2 5")))
    assert(printed.toString(StandardCharsets.UTF_8).split("\n").toSeq == Seq("4 3\tpositive 0.9526", "2 5\tnegative 0.9890"))
  }
}
