package io.quiver.infer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java quick start, compiled and run as written. The harness declares what the snippet
 * leaves to the reader (its imports beyond io.quiver.infer, {@code pixels}: the fixtures' ResNet-18
 * input), points its model path at the fixtures, and hands back what the snippet computed; the
 * outputs are held to MXNet's. The Scala snippet runs likewise in ReadmeSpec (quiver-scala).
 */
class ReadmeTest {
  static final Path README = Path.of("..", "README.md");

  /** The first ```LANGUAGE block under the README's "### Java and Scala". */
  static String snippet(String language) throws IOException {
    final String text = Files.readString(README);
    final String section = text.substring(text.indexOf("### Java and Scala\n"));
    final Matcher m = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(section);
    assertTrue(m.find(), "no " + language + " block under '### Java and Scala'");
    return m.group(1);
  }

  @Test
  void theJavaQuickStartRunsAsWritten(@TempDir Path work) throws Exception {
    final Fixtures.Case c = Fixtures.cases().get(0); // resnet18_v1, batch 1
    String body = snippet("java");
    final String imports = body.substring(0, body.indexOf('\n') + 1);
    body = body.substring(imports.length()).replace("\"model/resnet18_v1\"", "MODEL");
    // Inside the try block, after the snippet's own statements: what it computed.
    final int end = body.lastIndexOf('}');
    body = body.substring(0, end) + "  return new float[][][] {out, f.get()};\n" + body.substring(end);
    final String source = imports + "import java.util.List;\nimport java.util.concurrent.CompletableFuture;\n"
        + "public class ReadmeSnippet {\n"
        + "  public static float[][][] run(String MODEL, float[] pixels) throws Exception {\n" + body
        + "  }\n}\n";
    final Path file = work.resolve("ReadmeSnippet.java");
    Files.writeString(file, source);
    final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    final int status = javac.run(null, null, null, "-classpath", System.getProperty("java.class.path"),
        "-d", work.toString(), file.toString());
    assertEquals(0, status, "the README's Java snippet does not compile:\n" + source);

    final float[][][] got;
    try (URLClassLoader loader = new URLClassLoader(new URL[] {work.toUri().toURL()}, getClass().getClassLoader())) {
      final Method run = loader.loadClass("ReadmeSnippet").getMethod("run", String.class, float[].class);
      got = (float[][][]) run.invoke(null, c.prefix(), c.input());
    }
    final float[] mxnet = c.mxnetOutput();
    for (float[][] outputs : got) {
      assertEquals(1, outputs.length);
      assertTrue(Fixtures.maxAbsDiff(outputs[0], mxnet) <= 1e-4f * Fixtures.maxAbs(mxnet), "differs from MXNet");
    }
    assertArrayEquals(got[0][0], got[1][0], "predict and predictAsync differ");
  }
}
