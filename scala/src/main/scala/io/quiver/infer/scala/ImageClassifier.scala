package io.quiver.infer.scala

import java.awt.image.BufferedImage

import io.quiver.infer.{DataDesc, Classifier => JClassifier, ImageClassifier => JImageClassifier}

import _root_.scala.jdk.CollectionConverters._

/** A [[Classifier]] that takes images, brought to the input's (N, 3, H, W) size: the shorter side resized
  * to 256/224 of it, center-cropped, normalised with ImageNet's mean and std (see
  * `io.quiver.infer.ImageTransform`).
  */
class ImageClassifier(modelPrefix: String, inputs: IndexedSeq[DataDesc], epoch: Int = 0)
    extends Classifier(modelPrefix, inputs, epoch) {

  override protected def open(modelPrefix: String, inputs: java.util.List[DataDesc], epoch: Int): JClassifier =
    new JImageClassifier(modelPrefix, epoch, inputs)

  private def images: JImageClassifier = underlying.asInstanceOf[JImageClassifier]

  /** The image's `topK` best classes (`None`: all), best first. */
  def classifyImage(image: BufferedImage, topK: Option[Int] = None): IndexedSeq[Classification] =
    classifyImages(Seq(image), topK).head

  /** For each image (classified as one batch), its `topK` best classes. */
  def classifyImages(images: Seq[BufferedImage], topK: Option[Int] = None): IndexedSeq[IndexedSeq[Classification]] =
    Classifier.convert(this.images.classify(images.asJava, Classifier.k(topK)))
}
