package io.quiver.infer.scala

import io.quiver.infer.{DataDesc, Classifier => JClassifier, Classification => JClassification}

import _root_.scala.jdk.CollectionConverters._

/** A classification model with labels (`synset.txt` beside the model files): each batch element's classes,
  * best first, with probabilities (a softmax is applied to outputs that are not probabilities already).
  * Safe to share across threads; close it, or use it with `scala.util.Using`.
  */
class Classifier(modelPrefix: String, inputs: IndexedSeq[DataDesc], epoch: Int = 0) extends AutoCloseable {
  protected val underlying: JClassifier = open(modelPrefix, inputs.asJava, epoch)

  /** The Java classifier to wrap; subclasses open their own kind. */
  protected def open(modelPrefix: String, inputs: java.util.List[DataDesc], epoch: Int): JClassifier =
    new JClassifier(modelPrefix, epoch, inputs)

  def labels: IndexedSeq[String] = underlying.labels.asScala.toIndexedSeq

  /** For each batch element of the model's single input, its `topK` best classes (`None`: all of them). */
  def classify(input: IndexedSeq[Array[Float]], topK: Option[Int] = None): IndexedSeq[IndexedSeq[Classification]] = {
    require(input.size == 1, s"a classifier takes one input array, got ${input.size}")
    Classifier.convert(underlying.classify(input.head, Classifier.k(topK)))
  }

  def close(): Unit = underlying.close()
}

private[scala] object Classifier {
  def k(topK: Option[Int]): Int = topK.getOrElse(Int.MaxValue)

  def convert(results: java.util.List[java.util.List[JClassification]]): IndexedSeq[IndexedSeq[Classification]] =
    results.asScala.iterator.map(row => row.asScala.iterator.map(c => Classification(c.label, c.probability)).toIndexedSeq)
      .toIndexedSeq
}
