"""`quiver calibrate` writes what quiver.calibrate writes on the same batches, from array files or images,
and says what int8 changed; bad samples are one-line errors naming the file."""
from __future__ import annotations

import re

import numpy as np
from PIL import Image

import quiver
from cli_runner import one_line_error, quiver as run_quiver
from conftest import case, prefix


def _same_files(a: str, b: str) -> None:
    for suffix in ("-symbol.json", "-0000.params"):
        with open(a + suffix, "rb") as fa, open(b + suffix, "rb") as fb:
            assert fa.read() == fb.read(), suffix


def test_array_batches_give_what_quiver_calibrate_gives(manifest, tmp_path):
    x, _, _ = case(manifest, "digits_cnn", "test_set")
    files = []
    for i, (start, stop) in enumerate(((0, 16), (16, 40), (40, 41))):  # any batch size, .npy and .npz
        if i == 1:
            files.append(str(tmp_path / f"batch{i}.npz"))
            np.savez(files[-1], data=x[start:stop])
        else:
            files.append(str(tmp_path / f"batch{i}.npy"))
            np.save(files[-1], x[start:stop].astype(np.float64))  # read as float32
    result = run_quiver("calibrate", prefix("digits_cnn"), str(tmp_path / "cli"), *files)
    assert result.status == 0
    assert "on 41 samples in 3 batches" in result.stdout
    want = quiver.calibrate(prefix("digits_cnn"), [x[0:16], {"data": x[16:40]}, x[40:41]], tmp_path / "api")
    _same_files(str(tmp_path / "cli"), want)
    _reports_the_int8_check(result.stdout, batch=16)


def test_entropy_mode_gives_what_quiver_calibrate_gives(manifest, tmp_path):
    x, _, _ = case(manifest, "digits_cnn", "test_set")
    files = [str(tmp_path / f"batch{i}.npy") for i in range(2)]
    for i, path in enumerate(files):
        np.save(path, x[i * 16:(i + 1) * 16])
    result = run_quiver("calibrate", prefix("digits_cnn"), str(tmp_path / "cli"), *files, "--calib-mode", "entropy")
    assert result.status == 0 and "(entropy)" in result.stdout
    want = quiver.calibrate(prefix("digits_cnn"), [x[0:16], x[16:32]], tmp_path / "api", calib_mode="entropy")
    _same_files(str(tmp_path / "cli"), want)
    naive = quiver.calibrate(prefix("digits_cnn"), [x[0:16], x[16:32]], tmp_path / "naive")
    with open(want + "-symbol.json") as a, open(naive + "-symbol.json") as b:
        assert a.read() != b.read()  # really another mode


def _reports_the_int8_check(stdout: str, batch: int) -> None:
    if "int8 not run on this CPU" in stdout:  # a CPU without int8 dot products: the files are still written
        return
    found = re.search(r"max \|difference\| ([0-9.]+) of the output's scale, top-1 the same for (\d+) of (\d+)", stdout)
    assert found, stdout
    assert 0 < float(found.group(1)) < 0.5 and int(found.group(3)) == batch


def test_images_are_preprocessed_as_classify_does(manifest, tmp_path):
    rng = np.random.default_rng(5)
    images = []
    for i in range(5):
        images.append(str(tmp_path / f"image{i}.png"))
        Image.fromarray(rng.integers(0, 256, (20 + i, 24, 3), dtype=np.uint8)).save(images[-1])
    result = run_quiver("calibrate", prefix("tiny"), str(tmp_path / "cli"), *images,
                        "--shape", "data:1,3,16,16", "--batch-size", "2")
    assert result.status == 0
    assert "on 5 samples in 3 batches" in result.stdout
    transform = quiver.ImageTransform((16, 16), round(16 * 256 / 224))
    batches = [transform.batch(images[i:i + 2]) for i in range(0, 5, 2)]
    _same_files(str(tmp_path / "cli"), quiver.calibrate(prefix("tiny"), batches, tmp_path / "api"))
    _reports_the_int8_check(result.stdout, batch=2)


def test_bad_samples_are_one_line_errors(manifest, tmp_path):
    x, _, _ = case(manifest, "digits_cnn", "test_set")
    good = str(tmp_path / "good.npy")
    np.save(good, x[:4])
    png = str(tmp_path / "a.png")
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(png)
    out = str(tmp_path / "out")
    one_line_error(run_quiver("calibrate", prefix("digits_cnn"), out, good, png), "calibrate", "mix")
    corrupt = tmp_path / "corrupt.npy"
    corrupt.write_bytes(b"not an array")
    one_line_error(run_quiver("calibrate", prefix("digits_cnn"), out, str(corrupt)), "calibrate", "corrupt.npy")
    one_line_error(run_quiver("calibrate", prefix("digits_cnn"), out, str(tmp_path / "gone.npy")),
                   "calibrate", "gone.npy")
    one_line_error(run_quiver("calibrate", prefix("missing"), out, good), "calibrate", "missing-symbol.json")
    one_line_error(run_quiver("calibrate", prefix("tiny"), out, png, "--shape", "data:1,3"), "calibrate", "4-D")
    one_line_error(run_quiver("calibrate", prefix("digits_cnn"), out, good, "--batch-size", "0"),
                   "calibrate", "positive")
    nan = str(tmp_path / "nan.npy")
    bad = x[:4].copy()
    bad[1, 0, 3, 3] = np.inf
    np.save(nan, bad)
    one_line_error(run_quiver("calibrate", prefix("digits_cnn"), out, good, nan), "calibrate",
                   "nan.npy: calibration batch 2: input 'data' holds NaN")
