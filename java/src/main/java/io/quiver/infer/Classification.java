package io.quiver.infer;

/** One class of a classification: its label and probability. */
public record Classification(String label, float probability) {}
