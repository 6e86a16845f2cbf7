package io.quiver.infer.scala

import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import org.scalatest.funsuite.AnyFunSuite

class SharedModelsSpec extends AnyFunSuite {
  test("threads asking at once share one model, loaded once") {
    val before = SharedModels.loads
    val pool = Executors.newFixedThreadPool(8)
    val start = new CountDownLatch(1)
    val key = s"tiny-${System.nanoTime}"
    val models = (1 to 8).map { _ =>
      pool.submit(() => {
        start.await()
        SharedModels.getOrLoad(key)(new Predictor(Fixtures.prefix("tiny"), IndexedSeq(Fixtures.data(2, 3, 16, 16))))
      })
    }
    start.countDown()
    val loaded = models.map(_.get(60, TimeUnit.SECONDS))
    pool.shutdown()
    assert(loaded.distinct.size == 1)
    assert(SharedModels.loads == before + 1)
    SharedModels.close(key)
  }
}
