package io.quiver.infer.scala

import java.awt.image.BufferedImage

import io.quiver.infer.{DataDesc, ObjectDetector => JObjectDetector}

import _root_.scala.jdk.CollectionConverters._

/** Detects objects (see `io.quiver.infer.ObjectDetector` for the model outputs it reads): boxes in the
  * pixel coordinates of the image given, best first. Safe to share across threads.
  */
class ObjectDetector(modelPrefix: String, inputs: IndexedSeq[DataDesc], epoch: Int = 0) extends AutoCloseable {
  private val underlying = new JObjectDetector(modelPrefix, epoch, inputs.asJava)

  def detect(image: BufferedImage, threshold: Float = 0.5f): IndexedSeq[Detection] =
    underlying.detect(image, threshold).asScala.iterator
      .map(d => Detection(d.label, d.score, d.xmin, d.ymin, d.xmax, d.ymax)).toIndexedSeq

  def close(): Unit = underlying.close()
}
