package io.quiver.infer.scala

import _root_.scala.collection.immutable.BitSet

/** One class of a classification: its label and probability. */
final case class Classification(label: String, probability: Float)

/** One detected object: label, score and box in the pixel coordinates of the image given. */
final case class Detection(label: String, score: Float, xmin: Float, ymin: Float, xmax: Float, ymax: Float)

/** One detected object with its mask (see `ObjectDetector.detectInstances`): label, score and box in the
  * pixel coordinates of the image given, and the mask over the whole image (`width` x `height`), row-major:
  * `mask` holds `y * width + x` for each pixel (x, y) that belongs to the object.
  */
final case class Instance(label: String, score: Float, xmin: Float, ymin: Float, xmax: Float, ymax: Float,
    width: Int, height: Int, mask: BitSet) {

  /** Whether pixel (x, y) of the image belongs to the object. */
  def contains(x: Int, y: Int): Boolean = {
    if (x < 0 || x >= width || y < 0 || y >= height)
      throw new IndexOutOfBoundsException(s"pixel ($x, $y) is outside $width x $height")
    mask(y * width + x)
  }

  /** The detection alone, as `ObjectDetector.detect` gives it. */
  def detection: Detection = Detection(label, score, xmin, ymin, xmax, ymax)
}
