package io.quiver.infer.scala

import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.util.Using

class ClassifierSpec extends AnyFunSuite {

  test("topK None gives every class, Some(k) the k best, best first") {
    val labels = (0 until 10).map(i => s"digit $i")
    Using.resource(new Classifier(Fixtures.modelWithSynset("digits_cnn", labels), IndexedSeq(Fixtures.data(1, 1, 8, 8)))) { clf =>
      val x = Fixtures.floats("digits_cnn-in-360x1x8x8.f32").take(5 * 64)
      val mxnet = Fixtures.floats("digits_cnn-out-360x1x8x8.f32")
      val all = clf.classify(IndexedSeq(x))
      val top2 = clf.classify(IndexedSeq(x), Some(2))
      assert(all.size == 5 && all.forall(_.size == 10) && top2.forall(_.size == 2))
      for (r <- 0 until 5) {
        val row = mxnet.slice(r * 10, r * 10 + 10)
        assert(all(r).head.label == labels(row.indices.maxBy(i => row(i))))
        assert(math.abs(all(r).map(_.probability).sum - 1f) < 1e-5f)
        assert(top2(r) == all(r).take(2))
      }
    }
  }

  test("image classification takes BufferedImages, one or a batch") {
    val labels = (0 until 1000).map(i => s"class$i")
    Using.resource(new ImageClassifier(Fixtures.modelWithSynset("resnet18_v1", labels), IndexedSeq(Fixtures.data(1, 3, 224, 224)))) {
      clf =>
        val image = Fixtures.randomImage(300, 200, seed = 3)
        val one = clf.classifyImage(image, Some(5))
        val batch = clf.classifyImages(Seq(image, image), Some(5))
        assert(one.size == 5 && batch.size == 2)
        assert(batch.forall(_.map(_.label) == one.map(_.label)))
        assert(clf.classifyImage(image).size == 1000)
    }
  }
}
