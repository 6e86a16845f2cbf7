package io.quiver.infer.scala

import java.io.ByteArrayInputStream
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets

import io.quiver.infer.{DataDesc, DType, NDArray, Quiver, QuiverException, Shape}
import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.concurrent.Await
import _root_.scala.concurrent.duration._
import _root_.scala.util.Using

/** Token-id inputs and named predictions on the token model of tests/capi/input_dtypes_test.cc, with a second,
  * float32 input: values as MXNet 1.9.1 computes them (Embedding clips ids into [0, 4]; an int32 tensor divided
  * by 2 truncates toward zero).
  */
class InputDTypesSpec extends AnyFunSuite {
  private val ids = Array(0, 4, 9, -1, 2, -7)
  private val embedded = Array[Float](0, 1, 40, 41, 40, 41, 0, 1, 20, 21, 0, 1)
  private val halves = Array[Float](0, 2, 4, 0, 1, -3)
  private val lengths = Array[Float](7, -7)

  // == on floats, so that the float32 output -0.0 of the truncated -1 / 2 equals 0.
  private def same(got: Array[Float], want: Array[Float]): Boolean = got.corresponds(want)(_ == _)

  /** tokens (declared int32) -> emb = Embedding (row r = (10r, 10r + 1)) and half = tokens / 2; length -> length / 2. */
  private def tokenModel(inputs: IndexedSeq[DataDesc] = IndexedSeq.empty,
                         options: Map[String, String] = Map.empty): Predictor = {
    val json =
      """{"nodes": [{"op": "null", "name": "tokens", "attrs": {"__dtype__": "4"}, "inputs": []},
        |{"op": "null", "name": "emb_weight", "inputs": []},
        |{"op": "Embedding", "name": "emb", "attrs": {"input_dim": "5", "output_dim": "2"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
        |{"op": "_div_scalar", "name": "half", "attrs": {"scalar": "2"}, "inputs": [[0, 0, 0]]},
        |{"op": "null", "name": "length", "inputs": []},
        |{"op": "_div_scalar", "name": "length_half", "attrs": {"scalar": "2"}, "inputs": [[4, 0, 0]]}],
        |"arg_nodes": [0, 1, 4], "heads": [[2, 0, 0], [3, 0, 0], [5, 0, 0]]}""".stripMargin
    Predictor.fromStreams(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
      new ByteArrayInputStream(params("arg:emb_weight", Seq(5L, 2L), (0 until 10).map(i => 10f * (i / 2) + i % 2))), inputs,
      options)
  }

  /** An MXNet .params file holding one dense float32 CPU array. */
  private def params(name: String, shape: Seq[Long], values: Seq[Float]): Array[Byte] = {
    val encoded = name.getBytes(StandardCharsets.UTF_8)
    val out = ByteBuffer.allocate(24 + 8 + 4 + 8 * shape.size + 12 + 4 * values.size + 8 + 8 + encoded.length)
      .order(ByteOrder.LITTLE_ENDIAN)
    out.putLong(0x112).putLong(0).putLong(1)              // list magic, reserved, one array
    out.putInt(0xF993FAC9).putInt(0).putInt(shape.size)  // array magic (v2), dense storage
    shape.foreach(out.putLong(_))
    out.putInt(1).putInt(0).putInt(0)                    // cpu(0), float32
    values.foreach(out.putFloat(_))
    out.putLong(1).putLong(encoded.length).put(encoded)
    out.array()
  }

  test("inputDTypes: the symbol's declaration, else the DataDesc's dtype") {
    Using.resource(tokenModel()) { p =>
      assert(p.inputDTypes.toSeq == Seq("tokens" -> DType.INT32, "length" -> DType.FLOAT32))
    }
    val descs = IndexedSeq(new DataDesc("tokens", Array(6L), DType.INT64, "N"), new DataDesc("length", Array(2L)))
    Using.resource(tokenModel(descs)) { p =>
      assert(p.inputDTypes("tokens") == DType.INT64)
      Using.resources(NDArray.of(ids.map(_.toLong), 6L), NDArray.of(lengths, 2L)) { (tokens, length) =>
        val out = p.predict(Map("tokens" -> tokens, "length" -> length))
        try assert(same(out("half_output").toFloatArray, halves))
        finally out.values.foreach(_.close())
      }
    }
  }

  test("named predictions return every output by name, in order; a float32 array for int32 ids is refused") {
    Using.resources(tokenModel(), NDArray.of(ids, 2L, 3L), NDArray.of(lengths, 2L)) { (p, tokens, length) =>
      val inputs = Map("length" -> length, "tokens" -> tokens)
      for (out <- Seq(p.predict(inputs), Await.result(p.predictAsync(inputs), 60.seconds))) {
        try {
          assert(out.keys.toSeq == Seq("emb_output", "half_output", "length_half_output"))
          assert(same(out("emb_output").toFloatArray, embedded))
          assert(same(out("half_output").toFloatArray, halves))
          assert(same(out("length_half_output").toFloatArray, Array(3.5f, -3.5f)))
        } finally out.values.foreach(_.close())
      }
      val missing = intercept[QuiverException](p.predict(Map("tokens" -> tokens, "words" -> length)))
      assert(missing.code == QuiverException.INVALID_ARGUMENT)
      assert(missing.getMessage.contains("missing [length]") && missing.getMessage.contains("words"))
      Using.resource(NDArray.of(ids.map(_.toFloat), 2L, 3L)) { floats =>
        val refused = intercept[QuiverException](p.predict(Map("tokens" -> floats, "length" -> length)))
        assert(refused.code == QuiverException.SHAPE)
        assert(refused.getMessage.contains("input 'tokens' is float32") && refused.getMessage.contains("int32"))
      }
    }
  }

  test("buckets: ids padded to the next bucket give outputs at their own length") {
    Using.resources(tokenModel(options = Map("buckets" -> "8")), NDArray.of(ids, 2L, 3L), NDArray.of(lengths, 2L)) {
      (p, tokens, length) =>
        val out = p.predict(Map("tokens" -> tokens, "length" -> length))
        try {
          assert(out("emb_output").shape == Shape.of(2L, 3L, 2L))
          assert(same(out("emb_output").toFloatArray, embedded))
          assert(same(out("half_output").toFloatArray, halves))
        } finally out.values.foreach(_.close())
    }
  }

  test("closing the predictor and every array frees their native memory") {
    Quiver.waitAll()
    val before = Quiver.memoryStats()
    Using.resources(tokenModel(), NDArray.of(ids, 6L), NDArray.of(lengths, 2L)) { (p, tokens, length) =>
      (1 to 20).foreach(_ => p.predict(Map("tokens" -> tokens, "length" -> length)).values.foreach(_.close()))
    }
    Quiver.waitAll()
    val after = Quiver.memoryStats()
    assert(after(1) == before(1), "arrays alive")
    assert(after(0) <= before(0), s"bytes in use grew from ${before(0)} to ${after(0)}")
  }
}
