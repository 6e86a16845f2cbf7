package io.quiver.infer.scala

import java.awt.image.BufferedImage

import io.quiver.infer.{DataDesc, ObjectDetector => JObjectDetector}

import _root_.scala.collection.immutable.BitSet
import _root_.scala.jdk.CollectionConverters._

/** Detects objects (see `io.quiver.infer.ObjectDetector` for the model outputs it reads): boxes in the
  * pixel coordinates of the image given, best first, and with Mask R-CNN's mask output each object's
  * pixels (`detectInstances`). Safe to share across threads. `ObjectDetector.keepingAspect` makes one that
  * resizes each image keeping its aspect ratio, for models that take any input size.
  */
class ObjectDetector private (underlying: JObjectDetector) extends AutoCloseable {
  def this(modelPrefix: String, inputs: IndexedSeq[DataDesc], epoch: Int = 0) =
    this(new JObjectDetector(modelPrefix, epoch, inputs.asJava))

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

object ObjectDetector {

  /** A model (path or URI prefix) that takes any input size, each image resized keeping its aspect ratio:
    * its shorter side to `shortSide` unless the longer would pass `maxSize`, both rounded to multiples of
    * `stride` (GluonCV's presets: YOLOv3 416/1024, Faster and Mask R-CNN 600/1000, CenterNet 512/1024).
    */
  def keepingAspect(modelPrefix: String, shortSide: Int, maxSize: Int = 1024, stride: Int = 1,
                    epoch: Int = 0): ObjectDetector =
    new ObjectDetector(JObjectDetector.keepingAspect(modelPrefix, epoch, shortSide, maxSize, stride))
}
