package io.quiver.infer.scala

import java.awt.image.BufferedImage

import io.quiver.infer.{DataDesc, Segmentation, Segmenter => JSegmenter}

import _root_.scala.jdk.CollectionConverters._

/** Semantic segmentation (see `io.quiver.infer.Segmenter` for the model output it reads and the
  * preprocessing): the class and score of every pixel, at the size of the image given. Safe to share across
  * threads.
  */
class Segmenter(modelPrefix: String, inputs: IndexedSeq[DataDesc], epoch: Int = 0) extends AutoCloseable {
  private val underlying = new JSegmenter(modelPrefix, epoch, inputs.asJava)

  def segment(image: BufferedImage): Segmentation = underlying.segment(image)

  def segmentImages(images: Seq[BufferedImage]): IndexedSeq[Segmentation] =
    underlying.segment(images.asJava).asScala.toIndexedSeq

  /** The classes present in `result` with their share of its pixels, largest first. */
  def classShares(result: Segmentation): IndexedSeq[(String, Double)] =
    result.classShares().asScala.iterator.map { case (label, share) => (label, share.doubleValue) }.toIndexedSeq

  def close(): Unit = underlying.close()
}
