"""quiver.spark.predict_batch_udf on PySpark (local[2]): the example job run with spark-submit, its results
equal to the Python API's on the same inputs (a two-output Predictor; an ImageClassifier on binaryFile), and
the README's PySpark snippet as written."""
from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import quiver
from conftest import COLOURS, EXAMPLES, IMAGE_KWARGS, ROOT, rows

pyspark = pytest.importorskip("pyspark")
SPARK_SUBMIT = Path(pyspark.__file__).parent / "bin" / "spark-submit"


def spark_submit(*args: str, tmp_path: Path, script: Path = EXAMPLES / "spark_predict.py") -> str:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark cannot start: no Java (scripts/install_deps.sh openjdk-17-jre-headless)")
    # The Python workers run this interpreter with this PYTHONPATH (quiver's build).
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run([str(SPARK_SUBMIT), "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                           "--conf", f"spark.local.dir={tmp_path}", str(script), *args],
                          capture_output=True, text=True, timeout=240, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-6000:]
    return done.stdout


def test_spark_submit_two_output_predictor_matches_predict(models, tmp_path):
    x = rows(30, seed=3)
    np.save(tmp_path / "rows.npy", x)
    out = spark_submit(models["two_out"], str(tmp_path / "out.json"), "--rows", str(tmp_path / "rows.npy"),
                       "--batch-size", "7", tmp_path=tmp_path)
    assert "30 results" in out
    got = json.loads((tmp_path / "out.json").read_text())
    with quiver.Predictor(models["two_out"]) as p:
        expected = p.predict_named(x)
    assert sorted(got) == sorted(map(str, range(30)))
    for name, value in expected.items():
        spark = np.array([got[str(i)][name] for i in range(30)], np.float32)
        assert np.array_equal(spark, value.reshape(30, -1)), name


def test_spark_submit_image_classifier_on_binary_files(models, images, tmp_path):
    out = spark_submit(models["colours"], str(tmp_path / "out.json"), "--images", str(images),
                       "--kind", "image_classifier", "--model-kwargs", json.dumps(IMAGE_KWARGS),
                       "--batch-size", "3", tmp_path=tmp_path)
    assert "8 results" in out
    got = {path.rsplit("/", 1)[-1]: (r["label"], r["probability"])
           for path, r in json.loads((tmp_path / "out.json").read_text()).items()}
    with quiver.ImageClassifier(models["colours"], **IMAGE_KWARGS) as c:
        files = sorted(images.iterdir())
        expected = {f.name: best[0] for f, best in zip(files, c.classify([str(f) for f in files], top_k=1))}
    assert got == expected and {label for label, _ in got.values()} == set(COLOURS)


def test_the_udf_function_alone(models):
    """What Spark's helper calls per batch, without Spark: one parameter per model input, dict results
    for several outputs flattened to two dimensions."""
    from quiver.spark import predict_fn

    x = rows(4)
    with quiver.Predictor(models["two_out"]) as p:
        fn = predict_fn(p)
        assert list(inspect.signature(fn).parameters) == ["data"]
        got = fn(x)
        assert set(got) == set(p.output_names) and all(v.ndim == 2 for v in got.values())


README_DRIVER = """
import json, sys
from pyspark.sql import SparkSession
names = {"spark": SparkSession.builder.getOrCreate()}
exec(open(sys.argv[1]).read(), names)  # the README's snippet, which ends in .show()
rows = names["images"].select("path", names["classify"]("content").alias("top1")).select("path", "top1.*")
json.dump({row["path"].rsplit("/", 1)[-1]: row["label"] for row in rows.collect()}, open(sys.argv[2], "w"))
"""


def test_the_readme_pyspark_snippet_classifies_as_the_python_api(images, tmp_path):
    """Run from a folder holding what the snippet names: model/resnet18_v1 (the fixtures' ResNet-18, with
    a synset.txt) and images/."""
    fixtures = Path(os.environ["QUIVER_FIXTURES_DIR"])  # scripts/test_scaleout.sh sets it
    readme = (ROOT / "README.md").read_text().split("### Spark: PySpark, Scala and Java\n", 1)[1]
    (tmp_path / "snippet.py").write_text(readme.split("```python\n", 1)[1].split("```", 1)[0])
    (tmp_path / "driver.py").write_text(README_DRIVER)
    (tmp_path / "model").mkdir()
    for suffix in ("-symbol.json", "-0000.params"):
        (tmp_path / "model" / f"resnet18_v1{suffix}").symlink_to(fixtures / f"resnet18_v1{suffix}")
    (tmp_path / "model" / "synset.txt").write_text("".join(f"class{i}\n" for i in range(1000)))
    shutil.copytree(images, tmp_path / "images")
    out = spark_submit("snippet.py", "labels.json", tmp_path=tmp_path, script=tmp_path / "driver.py")
    assert "path|" in out and "probability|" in out  # the header .show() printed
    got = json.loads((tmp_path / "labels.json").read_text())
    files = sorted((tmp_path / "images").iterdir())
    with quiver.ImageClassifier(str(tmp_path / "model" / "resnet18_v1")) as c:
        expected = {f.name: best[0][0] for f, best in zip(files, c.classify([str(f) for f in files], top_k=1))}
    assert got == expected and len(got) == 8
