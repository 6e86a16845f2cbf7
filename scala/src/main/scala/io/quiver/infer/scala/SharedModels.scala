package io.quiver.infer.scala

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

/** Models loaded once per JVM and shared by every thread that asks for them: what a Spark executor needs,
  * where many task threads run `mapPartitions` over one model. Loading is lazy (on the first request for a
  * key) and happens once even when threads ask at the same time; models stay until the JVM exits (a
  * shutdown hook closes them) or `close(key)`.
  *
  * {{{
  * rows.mapPartitions { it =>
  *   val model = SharedModels.getOrLoad("resnet")(new ImageClassifier(prefix, inputs))
  *   it.map(row => model.classifyImage(decode(row)))
  * }
  * }}}
  */
object SharedModels {
  private val models = new ConcurrentHashMap[String, AutoCloseable]()
  private val loadCount = new AtomicInteger()

  Runtime.getRuntime.addShutdownHook(new Thread(() => models.values.forEach(_.close()), "quiver-shared-models"))

  /** The model stored under `key`, loaded by `load` if no thread has loaded it yet. */
  def getOrLoad[M <: AutoCloseable](key: String)(load: => M): M =
    models.computeIfAbsent(key, _ => { loadCount.incrementAndGet(); load }).asInstanceOf[M]

  /** Closes and forgets the model under `key` (a later request loads it again). */
  def close(key: String): Unit = Option(models.remove(key)).foreach(_.close())

  /** How many models were loaded so far in this JVM (to check that loading happens once). */
  def loads: Int = loadCount.get
}
