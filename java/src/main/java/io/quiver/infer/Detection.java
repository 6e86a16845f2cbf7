package io.quiver.infer;

/** One detected object: label, score and box in the pixel coordinates of the image given. */
public record Detection(String label, float score, float xmin, float ymin, float xmax, float ymax) {}
