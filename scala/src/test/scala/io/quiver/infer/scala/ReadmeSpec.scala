package io.quiver.infer.scala

import java.awt.image.BufferedImage
import java.nio.file.{Files, Path}

import org.scalatest.funsuite.AnyFunSuite

import _root_.scala.reflect.runtime.currentMirror
import _root_.scala.tools.reflect.ToolBox
import _root_.scala.util.Using

/** The README's Scala quick start, compiled (Scala's ToolBox) and run as written. The harness declares what
  * the snippet leaves to the reader (its imports, `image`) and points its model path at a copy of the
  * fixtures' ResNet-18 with a synset.txt; the five classes it returns are those the API gives directly.
  */
class ReadmeSpec extends AnyFunSuite {

  private def readmeScala: String = {
    val text = new String(Files.readAllBytes(Path.of("..", "README.md")), "UTF-8")
    val section = text.substring(text.indexOf("### Java and Scala\n"))
    val start = section.indexOf("```scala\n")
    assert(start >= 0, "no scala block under '### Java and Scala'")
    val body = section.substring(start + "```scala\n".length)
    body.substring(0, body.indexOf("```"))
  }

  test("the README's Scala quick start runs as written") {
    val model = Fixtures.modelWithSynset("resnet18_v1", (0 until 1000).map(i => s"class$i"))
    val image = Fixtures.randomImage(240, 180, seed = 5)

    val snippet = readmeScala.replace("\"model/resnet18_v1\"", "MODEL")
    val source =
      s"""(MODEL: String, image: java.awt.image.BufferedImage) => {
         |  import io.quiver.infer.DataDesc
         |  import io.quiver.infer.scala._
         |  import scala.util.Using
         |  $snippet
         |}""".stripMargin
    val toolbox = currentMirror.mkToolBox()
    val run = toolbox.eval(toolbox.parse(source)).asInstanceOf[(String, BufferedImage) => IndexedSeq[Classification]]
    val got = run(model, image)
    val direct = Using.resource(new ImageClassifier(model, IndexedSeq(Fixtures.data(1, 3, 224, 224)))) {
      _.classifyImage(image, Some(5))
    }
    assert(got.size == 5)
    assert(got == direct)
  }
}
