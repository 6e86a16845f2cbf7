package io.quiver.infer.scala

import io.quiver.infer.{Profiler => JProfiler}

/** The runtime's profiler (io.quiver.infer.Profiler): spans of every prediction and, on the CPU, of every
  * operator, kept until cleared; written as a Chrome trace and as aggregate statistics (JSON).
  * {{{
  * val result = Profiler.profile(Some("trace.json")) { predictor.predict(input) }
  * println(Profiler.aggregateJson)
  * }}}
  */
object Profiler {
  def start(): Unit = JProfiler.start()
  def stop(): Unit = JProfiler.stop()
  def clear(): Unit = JProfiler.clear()
  def traceJson: String = JProfiler.traceJson()
  def dumpTrace(path: String): Unit = JProfiler.dumpTrace(path)
  def aggregateJson: String = JProfiler.aggregateJson()

  /** Clears, records what `block` runs, stops, and writes the trace to `tracePath` if given. */
  def profile[T](tracePath: Option[String] = None)(block: => T): T = {
    clear()
    start()
    try block
    finally {
      stop()
      tracePath.foreach(dumpTrace)
    }
  }
}
