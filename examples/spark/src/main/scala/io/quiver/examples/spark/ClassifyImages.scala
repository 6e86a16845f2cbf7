package io.quiver.examples.spark

import java.io.{ByteArrayInputStream, File}
import javax.imageio.ImageIO

import io.quiver.infer.DataDesc
import io.quiver.infer.scala.{ImageClassifier, SharedModels}
import org.apache.spark.SparkFiles
import org.apache.spark.sql.{Dataset, SparkSession}

/** Batch image classification with Spark: every image file under a directory, classified by an MXNet
  * model with Quiver, written as JSON lines of (path, rank, label, probability).
  *
  * {{{
  * spark-submit --class io.quiver.examples.spark.ClassifyImages \
  *   --jars quiver-scala_2.13-1.0.0-all.jar quiver-spark-example_2.13-1.0.0.jar \
  *   IMAGES_DIR MODEL_PREFIX OUTPUT_DIR [TOP_K=5] [SIZE=224]
  * }}}
  *
  * with `_2.12` in both jar names on a Spark of Scala 2.12 (Spark 3). MODEL_PREFIX names
  * `PREFIX-symbol.json`, `PREFIX-0000.params` and a `synset.txt` beside them: a URI every executor reads
  * (`hdfs://`, `s3a://`, `https://`, ...: see docs/spark.rst), a path every executor can
  * read, or shipped with `--files` (then the prefix's file name is looked up in SparkFiles). Each executor JVM loads the model once, on first use, and its task threads share it.
  * Files that are not images are skipped.
  */
object ClassifyImages {
  final case class Prediction(path: String, rank: Int, label: String, probability: Float)

  private val BatchSize = 16

  def main(args: Array[String]): Unit = {
    if (args.length < 3 || args.length > 5) {
      System.err.println("usage: ClassifyImages IMAGES_DIR MODEL_PREFIX OUTPUT_DIR [TOP_K=5] [SIZE=224]")
      sys.exit(2)
    }
    val spark = SparkSession.builder().appName("quiver-classify-images").getOrCreate()
    try run(spark, args.toIndexedSeq)
    finally spark.stop()
  }

  /** The job without its session: classifies and writes the JSON output (what main runs). */
  def run(spark: SparkSession, args: IndexedSeq[String]): Unit = {
    val topK = args.lift(3).map(_.toInt).getOrElse(5)
    val size = args.lift(4).map(_.toInt).getOrElse(224)
    classify(spark, args(0), args(1), topK, size).write.mode("overwrite").json(args(2))
  }

  /** Every image under `images`, classified: its `topK` best classes, ranked from 1. */
  def classify(spark: SparkSession, images: String, modelPrefix: String, topK: Int, size: Int): Dataset[Prediction] = {
    import spark.implicits._
    val files = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(images)
      .select("path", "content").as[(String, Array[Byte])]
    files.mapPartitions { rows =>
      val prefix = localPrefix(modelPrefix)
      val model = SharedModels.getOrLoad(prefix)(
        new ImageClassifier(prefix, IndexedSeq(new DataDesc("data", Array(1L, 3L, size.toLong, size.toLong)))))
      rows.flatMap { case (path, bytes) => Option(ImageIO.read(new ByteArrayInputStream(bytes))).map(path -> _) }
        .grouped(BatchSize)
        .flatMap { batch =>
          val results = model.classifyImages(batch.map(_._2), Some(topK))
          batch.zip(results).flatMap { case ((path, _), classes) =>
            classes.zipWithIndex.map { case (c, i) => Prediction(path, i + 1, c.label, c.probability) }
          }
        }
    }
  }

  /** The prefix as given when it is a URI or its files are there, else where `--files` put them on this
    * executor.
    */
  private def localPrefix(modelPrefix: String): String =
    if (modelPrefix.contains("://") || new File(modelPrefix + "-symbol.json").exists) modelPrefix
    else new File(SparkFiles.getRootDirectory(), new File(modelPrefix).getName).getPath
}
