package io.quiver.examples.spark

import java.awt.image.BufferedImage
import java.nio.file.{Files, Path}
import javax.imageio.ImageIO

import io.quiver.infer.DataDesc
import io.quiver.infer.scala.{ImageClassifier, SharedModels}
import org.apache.spark.sql.{Encoders, SparkSession}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.{Random, Using}

/** The job in Spark's local mode (4 task threads, one file per partition): results equal the Scala API's
  * direct results, and the model was loaded once for all tasks.
  */
class ClassifyImagesSpec extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val spark = SparkSession.builder().master("local[4]").appName("quiver-test")
    .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
    .config("spark.driver.bindAddress", "127.0.0.1")
    .config("spark.sql.files.maxPartitionBytes", "1").config("spark.sql.files.openCostInBytes", "1")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private val fixtures = Path.of(sys.props.getOrElse("quiver.fixtures.dir", sys.props("user.home") + "/.cache/quiver/fixtures"))

  private def requireFixtures(): Unit =
    if (!Files.exists(fixtures.resolve("manifest.json"))) {
      val message = s"no fixtures at $fixtures: run scripts/make_fixtures.sh"
      if (sys.props.get("quiver.require.fixtures").contains("1")) fail(message) else cancel(message)
    }

  /** resnet18_v1 in its own directory with a synset.txt of 1000 labels. */
  private def model(): String = {
    requireFixtures()
    val dir = Files.createTempDirectory("quiver-model")
    for (suffix <- Seq("-symbol.json", "-0000.params"))
      Files.copy(fixtures.resolve("resnet18_v1" + suffix), dir.resolve("resnet18_v1" + suffix))
    Files.write(dir.resolve("synset.txt"), (0 until 1000).map(i => s"class$i").asJava)
    dir.resolve("resnet18_v1").toString
  }

  private def images(count: Int): Path = {
    val dir = Files.createTempDirectory("quiver-images")
    val random = new Random(11)
    for (n <- 0 until count) {
      val image = new BufferedImage(160 + 16 * n, 120 + 8 * n, BufferedImage.TYPE_INT_RGB)
      for (y <- 0 until image.getHeight; x <- 0 until image.getWidth) image.setRGB(x, y, random.nextInt(1 << 24))
      ImageIO.write(image, "png", dir.resolve(f"image$n%02d.png").toFile)
    }
    Files.write(dir.resolve("notes.txt"), Seq("not an image").asJava) // skipped
    dir
  }

  test("the job classifies every image like the Scala API, with one model load for all task threads") {
    val prefix = model()
    val dir = images(12)
    val out = Files.createTempDirectory("quiver-out").resolve("predictions").toString
    val loadsBefore = SharedModels.loads

    ClassifyImages.run(spark, IndexedSeq(dir.toString, prefix, out, "3"))

    import spark.implicits._
    val got = spark.read.schema(Encoders.product[ClassifyImages.Prediction].schema).json(out).as[ClassifyImages.Prediction].collect().groupBy(p => Path.of(p.path.stripPrefix("file:")).getFileName.toString)
    assert(SharedModels.loads == loadsBefore + 1, "the model is loaded once per executor JVM")
    assert(spark.read.format("binaryFile").load(dir.toString).rdd.getNumPartitions >= 4)
    assert(got.keySet == (0 until 12).map(n => f"image$n%02d.png").toSet)

    Using.resource(new ImageClassifier(prefix, IndexedSeq(new DataDesc("data", Array(1L, 3L, 224L, 224L))))) { direct =>
      for ((name, predictions) <- got) {
        val want = direct.classifyImage(ImageIO.read(dir.resolve(name).toFile), Some(3))
        val ranked = predictions.sortBy(_.rank).toIndexedSeq
        assert(ranked.map(_.label) == want.map(_.label), name)
        ranked.zip(want).foreach { case (g, w) => assert(math.abs(g.probability - w.probability) <= 1e-5f, name) }
      }
    }
  }
}
