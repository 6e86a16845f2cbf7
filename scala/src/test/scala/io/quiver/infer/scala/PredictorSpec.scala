package io.quiver.infer.scala

import java.io.FileInputStream

import io.quiver.infer.{QuiverException, Predictor => JPredictor}
import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.concurrent.{Await, Future}
import _root_.scala.concurrent.ExecutionContext.Implicits.global
import _root_.scala.concurrent.duration._
import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.{Failure, Using}

class PredictorSpec extends AnyFunSuite {
  private val shape = Seq(2L, 3L, 16L, 16L)
  private def input = Fixtures.floats("tiny-in-2x3x16x16.f32")

  test("outputs equal the Java API's and follow MXNet's") {
    val prefix = Fixtures.prefix("tiny")
    val expected = Fixtures.floats("tiny-out-2x3x16x16.f32")
    val java = Using.resource(new JPredictor(prefix, 0, List(Fixtures.data(shape: _*)).asJava))(_.predict(input)(0))
    Using.resource(new Predictor(prefix, IndexedSeq(Fixtures.data(shape: _*)))) { p =>
      assert(p.inputNames == IndexedSeq("data"))
      val out = p.predict(IndexedSeq(input))
      assert(out.size == 1 && out.head.sameElements(java))
      assert(p.lastOutputShape(0) == IndexedSeq(2L, 10L))
      assert(Fixtures.maxAbsDiff(out.head, expected) <= 1e-4f * expected.map(math.abs).max)
    }
  }

  test("the precision option resolves to what the model computes in") {
    Using.resource(new Predictor(Fixtures.prefix("tiny"), IndexedSeq(Fixtures.data(shape: _*)))) { p =>
      assert(p.precision == "float32")
    }
    Using.resource(new Predictor(Fixtures.prefix("tiny"), IndexedSeq(Fixtures.data(shape: _*)),
      options = Map("precision" -> "auto"))) { p =>
      assert(Set("float32", "bfloat16").contains(p.precision))
    }
  }

  test("futures complete with the synchronous results, many in flight at once") {
    Using.resource(new Predictor(Fixtures.prefix("tiny"), IndexedSeq(Fixtures.data(shape: _*)),
      options = Map("max_inflight" -> "200"))) { p =>
      val reference = p.predict(IndexedSeq(input)).head
      val all = Future.sequence((1 to 200).map(_ => p.predictAsync(IndexedSeq(input))))
      Await.result(all, 60.seconds).foreach(out => assert(out.head.sameElements(reference)))
    }
  }

  test("failures throw QuiverException, and a closed predictor fails its futures' callers at once") {
    val p = new Predictor(Fixtures.prefix("tiny"), IndexedSeq(Fixtures.data(shape: _*)))
    val error = intercept[QuiverException](p.predict(IndexedSeq(new Array[Float](7))))
    assert(error.code == QuiverException.SHAPE && error.getMessage.contains("whole number of samples"))
    val inFlight = p.predictAsync(IndexedSeq(input))
    p.close()
    assert(Await.result(inFlight, 60.seconds).head.length == 20)
    assert(intercept[QuiverException](p.predict(IndexedSeq(input))).getMessage.contains("closed"))
    val failed = Future(p.predict(IndexedSeq(input)))
    Await.ready(failed, 10.seconds)
    assert(failed.value.exists(_.isInstanceOf[Failure[_]]))
  }

  test("models load from streams") {
    val prefix = Fixtures.prefix("tiny")
    Using.resources(new FileInputStream(prefix + "-symbol.json"), new FileInputStream(prefix + "-0000.params")) {
      (symbol, params) =>
        Using.resource(Predictor.fromStreams(symbol, params, IndexedSeq(Fixtures.data(shape: _*)))) { p =>
          assert(p.predict(IndexedSeq(input)).head.length == 20)
        }
    }
  }

  test("a batching predictor's futures: a timeout fails a queued prediction, the others equal unbatched ones") {
    val prefix = Fixtures.prefix("tiny")
    val reference = Using.resource(new Predictor(prefix, IndexedSeq(Fixtures.data(shape: _*))))(_.predict(IndexedSeq(input)).head)
    Using.resource(new Predictor(prefix, IndexedSeq(Fixtures.data(shape: _*)),
      options = Map("max_batch_size" -> "8", "batch_timeout_us" -> "60000000"))) { p =>
      val late = p.predictAsync(IndexedSeq(input), 50.millis)
      val error = intercept[QuiverException](Await.result(late, 10.seconds))
      assert(error.code == QuiverException.DEADLINE_EXCEEDED)
      // Four samples of two rows fill a batch of 8 at once, in priority order.
      val full = (0 until 4).map(k => p.predictAsync(IndexedSeq(input), 60.seconds, priority = k))
      Await.result(Future.sequence(full), 60.seconds).foreach(out => assert(out.head.sameElements(reference)))
    }
  }
}
