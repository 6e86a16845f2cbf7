package io.quiver.examples.text

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}

import io.quiver.infer.{DType, DataDesc, NDArray}
import io.quiver.infer.scala.{Classification, Predictor}

import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Using

/** Text classification from token ids, in Scala: a model whose input `tokens` takes int32 ids of shape (N, T),
  * such as an Embedding + pooling + dense classifier exported from MXNet. Tokenizing (a vocabulary lookup,
  * WordPiece, ...) is the application's; this takes the ids.
  *
  * {{{
  * scala -cp quiver-scala_2.13-1.0.0-all.jar:quiver-text-example-1.0.0.jar \
  *   io.quiver.examples.text.ClassifyText MODEL_PREFIX SEQ_LEN "IDS" ["IDS" ...]
  * }}}
  *
  * Each IDS is one sentence's space-separated ids, padded with 0 or cut to SEQ_LEN. Labels come from
  * `synset.txt` beside the model files, one per line. Prints each sentence's best label and probability.
  */
object ClassifyText {

  /** Each sentence's best class: one batch of (sentences, seqLen) int32 ids, padded with 0. */
  def classify(model: Predictor, labels: IndexedSeq[String], seqLen: Int, sentences: Seq[Array[Int]]): IndexedSeq[Classification] = {
    val ids = sentences.flatMap(_.take(seqLen).padTo(seqLen, 0)).toArray
    val probabilities = Using.resource(NDArray.of(ids, sentences.size.toLong, seqLen.toLong)) { tokens =>
      val outputs = model.predict(Map("tokens" -> tokens))
      try outputs(model.outputNames.head).toFloatArray
      finally outputs.values.foreach(_.close())
    }
    probabilities.grouped(labels.size).map { row =>
      val top = row.indices.maxBy(row(_))
      Classification(labels(top), row(top))
    }.toIndexedSeq
  }

  def main(args: Array[String]): Unit = {
    if (args.length < 3) {
      System.err.println("usage: ClassifyText MODEL_PREFIX SEQ_LEN \"IDS\" [\"IDS\" ...]")
      sys.exit(2)
    }
    val seqLen = args(1).toInt
    val labels = Files.readAllLines(Path.of(args(0)).resolveSibling("synset.txt"), StandardCharsets.UTF_8).asScala.toIndexedSeq
    val sentences = args.drop(2).toSeq
    // The DataDesc's dtype makes the input take int32 ids, whatever the symbol declares.
    val tokens = new DataDesc("tokens", Array(1L, seqLen.toLong), DType.INT32, "NT")
    Using.resource(new Predictor(args(0), IndexedSeq(tokens))) { model =>
      val best = classify(model, labels, seqLen, sentences.map(_.trim.split("\\s+").map(_.toInt)))
      sentences.zip(best).foreach { case (ids, c) => println(f"$ids\t${c.label} ${c.probability}%.4f") }
    }
  }
}
