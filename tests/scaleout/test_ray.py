"""quiver.ray.BatchPredictor on Ray Data (local, 2 CPUs): an actor pool of 2 over data sets with more
columns than the model takes, results equal bit for bit to the Python API's on the same rows."""
from __future__ import annotations

import logging
import subprocess
import sys

import numpy as np
import pytest

import quiver
from conftest import COLOURS, EXAMPLES, IMAGE_KWARGS, rows
from quiver.ray import BatchPredictor

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    except Exception as error:  # the engine cannot start here
        pytest.skip(f"Ray cannot start: {error}")
    yield ray
    ray.shutdown()


def by_id(dataset):
    return sorted(dataset.take_all(), key=lambda row: int(row["id"]))


def test_the_example_runs_an_actor_pool_and_matches_predict(models, tmp_path):
    x = rows(40)
    np.save(tmp_path / "rows.npy", x)
    done = subprocess.run([sys.executable, str(EXAMPLES / "ray_predict.py"), models["two_out"],
                           str(tmp_path / "rows.npy"), str(tmp_path / "out.npz"), "--actors", "2",
                           "--batch-size", "8"], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "40 rows" in done.stdout and "2 actors" in done.stdout
    out = np.load(tmp_path / "out.npz")
    with quiver.Predictor(models["two_out"]) as p:
        expected = p.predict_named(x)
    np.testing.assert_array_equal(out["id"], np.arange(40))
    assert sorted(k for k in out.files if k != "id") == sorted(expected)
    for name, value in expected.items():
        assert out[name].dtype == value.dtype and np.array_equal(out[name], value), name


def test_actor_pool_classifier_and_nested_list_columns(local_ray, models):
    x = rows(24, seed=2)
    labels = ["a", "b", "c", "d"]
    # Nested lists: Ray's numpy batches hold them as object arrays of object arrays.
    items = [{"id": i, "data": row.tolist(), "path": f"s3://bucket/{i}"} for i, row in enumerate(x)]
    ds = ray.data.from_items(items).map_batches(
        BatchPredictor, fn_constructor_kwargs={"model_prefix": models["two_out"], "kind": "classifier",
                                               "synset": labels},
        batch_format="numpy", batch_size=5, concurrency=2, num_cpus=1)
    got = by_id(ds)
    with quiver.Classifier(models["two_out"], synset=labels) as c:
        expected = c.classify(x, top_k=1)
    assert [r["path"] for r in got] == [f"s3://bucket/{i}" for i in range(24)]
    assert [(r["label"], r["probability"]) for r in got] == [best[0] for best in expected]


def test_image_bytes_are_decoded_in_the_actors(local_ray, models, images):
    # Read first: with both CPUs held by the actors, read tasks queued behind them would never run.
    ds = ray.data.read_binary_files(str(images), include_paths=True).materialize().map_batches(
        BatchPredictor, fn_constructor_kwargs={"model_prefix": models["colours"], "kind": "image_classifier",
                                               "image_column": "bytes", **IMAGE_KWARGS},
        batch_format="numpy", batch_size=3, concurrency=2, num_cpus=1)
    got = {r["path"].rsplit("/", 1)[-1]: (r["label"], r["probability"]) for r in ds.take_all()}
    with quiver.ImageClassifier(models["colours"], **IMAGE_KWARGS) as c:
        files = sorted(images.iterdir())
        expected = {f.name: best[0] for f, best in zip(files, c.classify([str(f) for f in files], top_k=1))}
    assert got == expected and {label for label, _ in got.values()} == set(COLOURS)


def test_rows_of_several_shapes_in_one_batch_are_refused_naming_the_column(models):
    predictor = BatchPredictor(models["two_out"])
    ragged = np.empty(2, object)
    ragged[:] = [np.zeros((2, 3), np.float32), np.zeros((3, 3), np.float32)]
    with pytest.raises(quiver.ShapeError, match=r"column 'data' holds rows of different shapes"):
        predictor({"data": ragged})
    with pytest.raises(quiver.InvalidArgumentError, match=r"lacks \['data'\].*has \['id'\]"):
        predictor({"id": np.arange(2)})
    # Per-row arrays of one shape (object dtype) are stacked.
    same = np.empty(2, object)
    x = rows(2)
    same[:] = [x[0], x[1]]
    out = predictor({"data": same, "id": np.arange(2)})
    with quiver.Predictor(models["two_out"]) as p:
        for name, value in p.predict_named(x).items():
            assert np.array_equal(out[name], value)
    predictor.close()
