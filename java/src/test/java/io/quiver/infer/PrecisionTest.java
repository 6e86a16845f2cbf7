package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The "precision" option: the default, what "auto" resolves to, and refusals that name the flag. */
class PrecisionTest {
  private static Predictor tiny(Map<String, String> options) {
    final Fixtures.Case c = Fixtures.tiny();
    return new Predictor(c.prefix(), 0, List.of(Fixtures.data(c.inputShape())), options);
  }

  @Test
  void float32ByDefaultAndAutoResolvesToWhatTheMachineRuns() {
    try (Predictor p = tiny(Map.of())) {
      assertEquals("float32", p.precision());
    }
    try (Predictor p = tiny(Map.of("precision", "auto"))) {
      assertTrue(List.of("float32", "bfloat16").contains(p.precision()), p.precision());
    }
  }

  @Test
  void bfloat16FollowsFloat32WithinItsRoundingOrIsRefusedNamingTheInstructions() {
    final boolean native16;
    try (Predictor p = tiny(Map.of("precision", "auto"))) {
      native16 = p.precision().equals("bfloat16");
    }
    if (!native16) {
      final QuiverException e = assertThrows(QuiverException.class, () -> tiny(Map.of("precision", "bfloat16")));
      assertEquals(QuiverException.UNSUPPORTED, e.code());
      assertTrue(e.getMessage().contains("avx512_bf16"), e.getMessage());
      return;
    }
    final Fixtures.Case c = Fixtures.tiny();
    final float[] exact;
    try (Predictor p = tiny(Map.of())) {
      exact = p.predict(c.input())[0];
    }
    try (Predictor p = tiny(Map.of("precision", "bfloat16"))) {
      final float[] got = p.predict(c.input())[0];
      // Softmax outputs: they move by at most half a logit's change, a few bfloat16 roundings (2^-8).
      final float moved = Fixtures.maxAbsDiff(got, exact);
      assertTrue(moved > 0 && moved < 0.05f, "moved " + moved);
    }
  }

  @Test
  void unknownPrecisionsAreRefusedNamingTheFlag() {
    final QuiverException e = assertThrows(QuiverException.class, () -> tiny(Map.of("precision", "fp16")));
    assertEquals(QuiverException.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("'precision'"), e.getMessage());
  }
}
