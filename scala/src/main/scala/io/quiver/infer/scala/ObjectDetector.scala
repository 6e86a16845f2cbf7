package io.quiver.infer.scala

import java.awt.image.BufferedImage

import io.quiver.infer.{DataDesc, ObjectDetector => JObjectDetector}

import _root_.scala.collection.immutable.BitSet
import _root_.scala.jdk.CollectionConverters._

/** Detects objects (see `io.quiver.infer.ObjectDetector` for the model outputs it reads): boxes in the
  * pixel coordinates of the image given, best first, and with Mask R-CNN's mask output each object's
  * pixels (`detectInstances`). Safe to share across threads.
  */
class ObjectDetector(modelPrefix: String, inputs: IndexedSeq[DataDesc], epoch: Int = 0) extends AutoCloseable {
  private val underlying = new JObjectDetector(modelPrefix, epoch, inputs.asJava)

  def detect(image: BufferedImage, threshold: Float = 0.5f): IndexedSeq[Detection] =
    underlying.detect(image, threshold).asScala.iterator
      .map(d => Detection(d.label, d.score, d.xmin, d.ymin, d.xmax, d.ymax)).toIndexedSeq

  /** `detect`'s detections, each with its mask over the image (pixels whose mask probability is above
    * `maskThreshold`), for models with a mask output (Mask R-CNN); others throw `QuiverException` (`SHAPE`).
    */
  def detectInstances(image: BufferedImage, threshold: Float = 0.5f, maskThreshold: Float = 0.5f): IndexedSeq[Instance] =
    underlying.detectInstances(image, threshold, maskThreshold).asScala.iterator
      .map(i => Instance(i.label, i.score, i.xmin, i.ymin, i.xmax, i.ymax, i.width, i.height,
        BitSet.fromBitMaskNoCopy(i.mask.toLongArray))).toIndexedSeq

  def close(): Unit = underlying.close()
}
