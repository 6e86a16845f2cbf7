package io.quiver.infer.scala

import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Using

class StatsSpec extends AnyFunSuite {
  test("stats count the predictions, and batches by their rows") {
    val options = Map("max_batch_size" -> "4", "batch_timeout_us" -> "1000")
    Using.resource(new Predictor(Fixtures.prefix("tiny"), IndexedSeq(Fixtures.data(2L, 3L, 16L, 16L)),
                                 options = options)) { p =>
      val input = IndexedSeq(Fixtures.floats("tiny-in-2x3x16x16.f32"))
      (1 to 3).foreach(_ => p.predict(input))
      val s = p.stats
      assert(s.requests.admitted == 3 && s.requests.completed == 3)
      assert(s.batches.rows == 6)  // two rows a request
      assert(s.batches.sizes.asScala.values.map(_.longValue).sum == s.batches.count)
      assert(s.runUs.count == s.batches.count)
      assert(p.statsJson.contains("\"completed\":3"))
    }
  }
}
