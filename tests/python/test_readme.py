"""The README's quick-start snippets (C, C++, Python) run as written, each inside a small harness that
declares what the snippet leaves to the reader (pixels, a batch, labels, images). They run on the
fixtures' ResNet-18, under the name the snippets use; the C and C++ results are held to MXNet's."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import quiver

from conftest import FIXTURES, case

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "capi" / "include"
PACKAGE = Path(quiver.__file__).resolve().parent  # holds libquiver.so.1


def snippet(heading: str, language: str) -> str:
    """The first ```language block after the README's `### heading`."""
    text = (ROOT / "README.md").read_text()
    section = text.split(f"### {heading}\n", 1)[1]
    match = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert match, f"no {language} block under '### {heading}'"
    return match.group(1)


def model_dir(tmp_path: Path, name: str = "resnet18_v1") -> Path:
    """A folder holding the ResNet-18 fixture as NAME-symbol.json / NAME-0000.params."""
    for suffix in ("-symbol.json", "-0000.params"):
        (tmp_path / f"{name}{suffix}").symlink_to(FIXTURES / f"resnet18_v1{suffix}")
    return tmp_path


def build_and_run(tmp_path: Path, source: str, compiler: str, suffix: str, stdin: bytes) -> str:
    program = tmp_path / f"readme{suffix}"
    program.write_text(source)
    binary = tmp_path / "readme"
    standard = "-std=c99" if compiler == "gcc" else "-std=c++17"
    subprocess.run([compiler, standard, "-Wall", "-Werror", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
                    f"-I{INCLUDE}", str(program), "-o", str(binary), f"-L{PACKAGE}", "-l:libquiver.so.1",
                    f"-Wl,-rpath,{PACKAGE}"], check=True, capture_output=True, text=True)
    done = subprocess.run([str(binary)], input=stdin, capture_output=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    return done.stdout.decode()


def scores_of(output: str) -> np.ndarray:
    return np.array([float(v) for v in output.split()], dtype=np.float32)


def test_the_c_snippet_classifies_as_mxnet(manifest, tmp_path):
    image, want, scale = case(manifest, "resnet18_v1", "b1_224")
    source = """#include <stdint.h>
#include <stdio.h>
#include <quiver/c_api.h>

int main(void) {
  QvSymbolHandle sym; QvCachedOpHandle op; uint32_t n, n_names; QvNDArrayHandle *params; const char **names;
  int64_t shape[] = {1, 3, 224, 224}; QvNDArrayHandle in; uint32_t n_out = 0; QvNDArrayHandle *outs = NULL;
  int ready = 0; static float pixels[3 * 224 * 224], scores[1000];
  if (fread(pixels, sizeof(float), 3 * 224 * 224, stdin) != 3 * 224 * 224) return 3;
""" + snippet("C", "c").replace("#include <quiver/c_api.h>\n", "") + """
  for (int i = 0; i < 1000; ++i) printf("%.9g\\n", scores[i]);
  return 0;
}
"""
    out = build_and_run(model_dir(tmp_path), source, "gcc", ".c", image.astype(np.float32).tobytes())
    np.testing.assert_allclose(scores_of(out), want.reshape(-1), atol=1e-4 * scale)


def test_the_cpp_snippet_classifies_as_mxnet(manifest, tmp_path):
    image, want, scale = case(manifest, "resnet18_v1", "b1_224")
    # Its two paragraphs: load and invoke, then submit with a deadline.
    synchronous, asynchronous = snippet("C++", "cpp").replace("#include <quiver/quiver.hpp>\n", "").split("\n\n")
    source = """#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
#include <quiver/quiver.hpp>

int main() {
  std::vector<float> pixels(3 * 224 * 224);
  if (std::fread(pixels.data(), sizeof(float), pixels.size(), stdin) != pixels.size()) return 3;
""" + synchronous + """
  for (float s : scores) std::printf("%.9g\\n", s);
  try {
""" + asynchronous + """
  } catch (const quiver::Error& e) {
    // The snippet's 5 ms deadline: ResNet-18 may miss it, and Get() then throws that failure.
    if (e.status() != QV_ERR_DEADLINE_EXCEEDED) throw;
    std::cerr << "deadline exceeded, as the snippet allows\\n";
  }
  return 0;
}
"""
    out = build_and_run(model_dir(tmp_path), source, "g++", ".cc", image.astype(np.float32).tobytes())
    np.testing.assert_allclose(scores_of(out), want.reshape(-1), atol=1e-4 * scale)


def test_the_python_snippet_runs(manifest, tmp_path):
    from PIL import Image

    image, want, scale = case(manifest, "resnet18_v1", "b1_224")
    (tmp_path / "model").mkdir()
    model_dir(tmp_path / "model")
    rgb = (np.random.default_rng(0).random((240, 320, 3)) * 255).astype(np.uint8)
    Image.fromarray(rgb).save(tmp_path / "cat.jpg")
    np.save(tmp_path / "batch.npy", image.astype(np.float32))
    np.save(tmp_path / "want.npy", want.reshape(1, -1))
    harness = f"""
import numpy as np
from PIL import Image
batch = np.load("batch.npy")
labels = [f"class {{i}}" for i in range(1000)]
pil_image = Image.open("cat.jpg")
hwc_uint8_array = np.asarray(pil_image)
{snippet("Python", "python")}
assert np.allclose(scores, np.load("want.npy"), atol={1e-4 * scale!r})
print("ran")
"""
    done = subprocess.run([sys.executable, "-c", harness], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)})
    # The snippet's 50 ms deadline may pass on a busy machine: that is the failure it documents.
    assert done.returncode == 0 or "DeadlineExceededError" in done.stderr, done.stdout + done.stderr
    assert done.returncode != 0 or done.stdout.strip() == "ran"


def test_the_commands_listed_are_the_commands_there_are():
    from quiver._cli.main import parser

    listed = [line.split()[1] for line in snippet("The `quiver` command", "sh").splitlines() if line.startswith("quiver ")]
    commands = parser()._subparsers._group_actions[0].choices
    assert sorted(set(listed)) == sorted(commands), (listed, sorted(commands))
