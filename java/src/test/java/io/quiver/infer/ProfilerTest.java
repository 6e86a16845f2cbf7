package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Profiler: a span per prediction and per operator node while on, none while off, a trace file. */
class ProfilerTest {
  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      ++n;
    }
    return n;
  }

  @Test
  void recordsEveryPredictionAndOperatorWhileOn(@TempDir Path dir) throws Exception {
    try (Predictor p = MxnetFiles.reluAndSigmoid(1, 4)) {
      final float[] x = {-1, 0, 1, 2};
      p.predict(x);  // compiled outside the profile
      Profiler.clear();
      Profiler.start();
      for (int i = 0; i < 3; ++i) {
        p.predict(x);
      }
      Profiler.stop();
      p.predict(x);  // off: not recorded
      final String trace = Profiler.traceJson();
      assertEquals(3, count(trace, "\"cat\":\"invocation\""), trace);
      assertEquals(3, count(trace, "\"name\":\"relu\""), trace);
      assertEquals(3, count(trace, "\"name\":\"sig\""), trace);
      assertTrue(Profiler.aggregateJson().contains("\"invocations\":{\"count\":3"), Profiler.aggregateJson());
      final Path file = dir.resolve("trace.json");
      Profiler.dumpTrace(file.toString());
      assertEquals(trace, Files.readString(file));
      final QuiverException e = assertThrows(QuiverException.class,
          () -> Profiler.dumpTrace(dir.resolve("missing/trace.json").toString()));
      assertEquals(QuiverException.INVALID_ARGUMENT, e.code());
      Profiler.clear();
      assertEquals(0, count(Profiler.traceJson(), "\"cat\":"));
    }
  }
}
