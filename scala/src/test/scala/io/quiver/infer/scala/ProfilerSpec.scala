package io.quiver.infer.scala

import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.util.Using

class ProfilerSpec extends AnyFunSuite {
  private val shape = Seq(2L, 3L, 16L, 16L)

  test("profile records the block's predictions and writes the trace") {
    Using.resource(new Predictor(Fixtures.prefix("tiny"), IndexedSeq(Fixtures.data(shape: _*)))) { p =>
      val input = IndexedSeq(Fixtures.floats("tiny-in-2x3x16x16.f32"))
      p.predict(input)  // compiled outside the profile
      val file = Files.createTempFile("quiver-trace", ".json")
      try {
        val out = Profiler.profile(Some(file.toString)) { (1 to 2).map(_ => p.predict(input)) }
        assert(out.size == 2)
        p.predict(input)  // after the block: not recorded
        val trace = Files.readString(file)
        assert(trace == Profiler.traceJson)
        assert("\"cat\":\"invocation\"".r.findAllMatchIn(trace).size == 2)
        assert("\"cat\":\"operator\"".r.findAllMatchIn(trace).size >= 2 * 5)
        assert(Profiler.aggregateJson.contains("\"invocations\":{\"count\":2"))
      } finally {
        Files.deleteIfExists(file)
        Profiler.clear()
      }
    }
  }
}
