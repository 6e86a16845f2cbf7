package io.quiver.infer.scala

/** One class of a classification: its label and probability. */
final case class Classification(label: String, probability: Float)

/** One detected object: label, score and box in the pixel coordinates of the image given. */
final case class Detection(label: String, score: Float, xmin: Float, ymin: Float, xmax: Float, ymax: Float)
