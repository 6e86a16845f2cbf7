package io.quiver.infer.scala

import java.util.concurrent.CompletableFuture

import io.quiver.infer.{DataDesc, DType, ModelStats, NDArray, Predictor => JPredictor}

import _root_.scala.collection.immutable.ListMap
import _root_.scala.concurrent.{Future, Promise}
import _root_.scala.concurrent.duration.FiniteDuration
import _root_.scala.jdk.CollectionConverters._
import _root_.scala.util.Try

/** Runs an MXNet model (`modelPrefix-symbol.json` + `modelPrefix-%04d.params`) with Quiver.
  *
  * The prefix is a local path, a `file:` URI, an `https://` URL, or any URI Hadoop's `FileSystem` reads
  * when Hadoop is on the classpath, as on every Spark executor (`hdfs://namenode:8020/models/resnet18_v1`,
  * `s3a://bucket/models/resnet18_v1`, `abfs://`, `gs://`, ...): see `io.quiver.infer.Predictor`. The
  * classifiers and detectors read `synset.txt` beside it the same way.
  *
  * One instance is safe to share across threads and Spark task threads; any batch size runs. Inputs are
  * one flat row-major array per model input, in `inputNames` order, shaped by their `DataDesc` (the batch
  * size comes from the array's length). `options` are the runtime's cached-op flags, passed as they are
  * (`device`, `static_shape`, `max_inflight`, ...). Failures throw `io.quiver.infer.QuiverException`.
  *
  * Inputs of other element types than float32 (token ids) go in as `io.quiver.infer.NDArray`s by name
  * (`NDArray.of(Array(3, 1, 4), 3L)` is an int32 array): each input takes exactly the type `inputDTypes`
  * says, its `DataDesc`'s dtype, else what the symbol declares, else float32.
  *
  * A resource: close it, or use it with `scala.util.Using`. Predictions in flight when it closes complete.
  */
class Predictor private (private[scala] val underlying: JPredictor) extends AutoCloseable {

  def this(modelPrefix: String, inputs: IndexedSeq[DataDesc], epoch: Int = 0, options: Map[String, String] = Map.empty) =
    this(new JPredictor(modelPrefix, epoch, inputs.asJava, options.asJava))

  def inputNames: IndexedSeq[String] = underlying.inputNames.asScala.toIndexedSeq
  def outputNames: IndexedSeq[String] = underlying.outputNames.asScala.toIndexedSeq
  /** The element type each input takes, in `inputNames` order. */
  def inputDTypes: ListMap[String, DType] = ListMap(underlying.inputDTypes.asScala.toSeq: _*)
  /** What the model computes in: "float32", "bfloat16" or "int8" (option "precision" as resolved here). */
  def precision: String = underlying.precision

  /** Runs the model and waits: one flat array per output. */
  def predict(input: IndexedSeq[Array[Float]]): IndexedSeq[Array[Float]] =
    underlying.predict(input: _*).toIndexedSeq

  /** Submits a prediction and returns at once. The future is completed by the runtime's OnReady callback
    * (no thread waits for it), so no `ExecutionContext` is needed here; callbacks you attach run on the
    * `ExecutionContext` you give them.
    */
  def predictAsync(input: IndexedSeq[Array[Float]]): Future[IndexedSeq[Array[Float]]] =
    Predictor.completion(underlying.predictAsync(input: _*))(_.toIndexedSeq)

  /** `predictAsync(input)` with a deadline: a prediction unfinished `timeout` after submission is dropped by the
    * runtime (never run late) and the future fails with an `io.quiver.infer.QuiverException` whose code is
    * `QuiverException.DEADLINE_EXCEEDED`. A higher `priority` runs first among predictions queued by the
    * scheduling options (`max_batch_size`, `batch_timeout_us`, ...).
    */
  def predictAsync(input: IndexedSeq[Array[Float]], timeout: FiniteDuration, priority: Int = 0): Future[IndexedSeq[Array[Float]]] =
    Predictor.completion(underlying.predictAsync(java.time.Duration.ofNanos(timeout.toNanos), priority, input: _*))(
      _.toIndexedSeq)

  /** Runs the model on arrays given by input name (every one of `inputNames`, in any order; other keys
    * are ignored) and waits: every output by name, in `outputNames` order, each the caller's to close. A
    * missing name throws an `io.quiver.infer.QuiverException` naming it.
    */
  def predict(inputs: Map[String, NDArray]): ListMap[String, NDArray] =
    ListMap(underlying.predict(inputs.asJava).asScala.toSeq: _*)

  /** `predict(inputs)` without waiting; the inputs must not be written until the future completes. */
  def predictAsync(inputs: Map[String, NDArray]): Future[ListMap[String, NDArray]] =
    Predictor.completion(underlying.predictAsync(inputs.asJava))(outputs => ListMap(outputs.asScala.toSeq: _*))

  /** The shape of an output of the most recent prediction made by this thread. */
  def lastOutputShape(output: Int): IndexedSeq[Long] = underlying.lastOutputShape(output).toIndexedSeq

  /** What the model has done since it was loaded (io.quiver.infer.ModelStats): `p.stats.requests.completed`. */
  def stats: ModelStats = underlying.stats()
  def statsJson: String = underlying.statsJson()

  def close(): Unit = underlying.close()
}

object Predictor {

  // The Java future as a Scala one, its result converted on the completing thread (no ExecutionContext).
  // A failure is the QuiverException itself, as the runtime completed the Java future with it (a thenApply
  // stage would wrap it in a CompletionException). Written out because Scala 2.12 has no FutureConverters.
  private def completion[J, S](future: CompletableFuture[J])(convert: J => S): Future[S] = {
    val promise = Promise[S]()
    future.whenComplete { (result: J, failure: Throwable) =>
      if (failure == null) promise.complete(Try(convert(result))) else promise.failure(failure)
      ()
    }
    promise.future
  }

  /** A model from streams (read to their end, not closed): HDFS or S3 through Hadoop's FileSystem, a jar
    * resource, a zip entry.
    */
  def fromStreams(symbolJson: java.io.InputStream, params: java.io.InputStream, inputs: IndexedSeq[DataDesc],
                  options: Map[String, String] = Map.empty): Predictor =
    new Predictor(JPredictor.fromStreams(symbolJson, params, inputs.asJava, options.asJava))
}
