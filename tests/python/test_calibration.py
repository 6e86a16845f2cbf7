"""quiver.calibrate: a float32 model calibrated for int8 without MXNet, and refusals that say why.
(tests/int8/test_calibrate_mxnet.py checks the written files against MXNet's quantize_net.)"""
from __future__ import annotations

import gc
import json
import os

import numpy as np
import pytest

import quiver
from conftest import FIXTURES, case, prefix


def _digits(manifest):
    model = manifest["models"]["digits_cnn"]
    x, _, _ = case(manifest, "digits_cnn", "test_set")
    labels = np.fromfile(FIXTURES / model["cases"][0]["labels_file"], dtype=np.int32)
    return x, labels


def _int8(path: str) -> quiver.Predictor:
    try:
        return quiver.Predictor(path, precision="int8")
    except quiver.UnsupportedError as e:  # a CPU without AVX2 says so instead of passing; a refused model fails
        if "precision 'int8' needs AVX2" not in str(e):
            raise
        pytest.skip(f"not run: {e}")


def test_calibrated_digits_cnn_keeps_its_accuracy_in_int8(manifest, tmp_path):
    """Calibrated on the first 64 held-back digits (the fixtures hold no training digits), in batches
    of 16; MXNet's float32 accuracy on all 360 is 98.61%, int8 must keep 98.3%."""
    x, labels = _digits(manifest)
    out = quiver.calibrate(prefix("digits_cnn"), (x[i:i + 16] for i in range(0, 64, 16)), tmp_path / "digits")
    assert out == str(tmp_path / "digits")
    with _int8(out) as p:
        assert p.precision == "int8"
        logits = p.predict(x)
    accuracy = float((logits.argmax(axis=1) == labels).mean())
    assert accuracy >= 0.983, accuracy
    with quiver.Predictor(prefix("digits_cnn")) as p:  # really int8: float32 computes something else
        assert not np.array_equal(logits, p.predict(x))


def _cpu_flags() -> set:
    with open("/proc/cpuinfo") as f:
        return next((set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags")), set())


def test_int8_input_conversion_runs_the_cpus_vector_loop(manifest, tmp_path):
    """The float input is quantized by a loop compiled once per instruction set; the profiler's kernel
    name says which body the dispatcher picks. In the wheel's natives (built with zig's clang) the
    compiler's own dispatch once picked every such loop's baseline body: on a CPU with AVX2 (which int8
    needs) it must be the AVX2 or AVX-512 one, the AVX-512 one where nothing hides it."""
    x, _ = _digits(manifest)
    out = quiver.calibrate(prefix("digits_cnn"), [x[:16]], tmp_path / "digits")
    with _int8(out) as p:
        with quiver.profiler.profile():
            p.predict(x[:4])
        kernels = {e["args"].get("kernel", "") for e in quiver.profiler.trace()["traceEvents"]
                   if e.get("cat") == "conversion"}
        quiver.profiler.clear()
    quantize = sorted(k for k in kernels if k.startswith("planar_quantize:"))
    assert quantize in (["planar_quantize:avx2"], ["planar_quantize:avx512"]), kernels
    avx512 = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= _cpu_flags()
    if avx512 and "ONEDNN_MAX_CPU_ISA" not in os.environ:
        assert quantize == ["planar_quantize:avx512"], kernels


def _ranges(prefix: str) -> dict:
    nodes = json.loads(open(f"{prefix}-symbol.json").read())["nodes"]
    return {n["name"]: (float(n["attrs"]["min_calib_range"]), float(n["attrs"]["max_calib_range"]))
            for n in nodes if "min_calib_range" in n.get("attrs", {})}


def test_entropy_calibration_keeps_accuracy_with_ranges_within_the_values(manifest, tmp_path):
    """calib_mode="entropy" on the same 64 digits: int8 keeps 98.3%; each range is [-t, t], or [0, t]
    where no value was negative, with t a bin edge of the values' histogram: never more than one bin
    (2 max|x| / 8001) beyond the naive range's reach, and somewhere short of it (KL clips tails)."""
    x, labels = _digits(manifest)
    batches = [x[i:i + 16] for i in range(0, 64, 16)]
    naive = _ranges(quiver.calibrate(prefix("digits_cnn"), batches, tmp_path / "naive"))
    out = quiver.calibrate(prefix("digits_cnn"), batches, tmp_path / "entropy", calib_mode="entropy")
    entropy = _ranges(out)
    assert entropy.keys() == naive.keys()
    for name, (lo, hi) in naive.items():
        e_lo, e_hi = entropy[name]
        assert e_lo == (0.0 if lo >= 0 else -e_hi), (name, entropy[name], naive[name])
        assert 0 < e_hi <= max(-lo, hi) * (1 + 2 / 8001) + 1e-6, (name, entropy[name], naive[name])
    assert any(entropy[n][1] < 0.999 * max(-lo, hi) for n, (lo, hi) in naive.items())
    assert entropy != naive
    with _int8(out) as p:
        accuracy = float((p.predict(x).argmax(axis=1) == labels).mean())
    assert accuracy >= 0.983, accuracy


def test_batches_may_be_mappings_of_any_batch_size(manifest, tmp_path):
    x, _ = _digits(manifest)
    quiver.calibrate(prefix("digits_cnn"), [{"data": x[:1]}, {"data": x[1:40]}], tmp_path / "digits")
    assert (tmp_path / "digits-symbol.json").exists() and (tmp_path / "digits-0000.params").exists()


def test_refusals_name_the_problem(manifest, tmp_path):
    x, _ = _digits(manifest)
    model = prefix("digits_cnn")
    with pytest.raises(quiver.InvalidArgumentError, match="no calibration batch"):
        quiver.calibrate(model, [], tmp_path / "none")
    with pytest.raises(quiver.InvalidArgumentError, match="calib_mode 'kl'.*naive, entropy"):
        quiver.calibrate(model, [x[:4]], tmp_path / "kl", calib_mode="kl")
    bad = x[:4].copy()
    bad[0, 0, 0, 0] = np.nan
    with pytest.raises(quiver.InvalidArgumentError, match="batch 2: input 'data' holds NaN"):
        quiver.calibrate(model, [x[:4], bad], tmp_path / "nan")
    with pytest.raises(quiver.ShapeError):
        quiver.calibrate(model, [x[:4, :, :4]], tmp_path / "shape")
    with pytest.raises(quiver.NotFoundError):
        quiver.calibrate(tmp_path / "missing", [x[:4]], tmp_path / "missing-out")
    calibrated = quiver.calibrate(model, [x[:4]], tmp_path / "once")
    with pytest.raises(quiver.InvalidArgumentError, match="already carries int8 calibration"):
        quiver.calibrate(calibrated, [x[:4]], tmp_path / "twice")
    with pytest.raises(quiver.InvalidArgumentError, match="cannot open symbol file"):
        quiver.calibrate(model, [x[:4]], tmp_path / "no-such-dir" / "out")


def test_calibration_frees_what_it_holds(manifest, tmp_path):
    """2,000 batches through one calibrator, then nothing left: QvGetMemoryStats back to its mark."""
    x, _ = _digits(manifest)
    quiver.calibrate(prefix("digits_cnn"), [x[:2]], tmp_path / "warm")
    # The mark once what earlier work left is gone: garbage in reference cycles (a caught exception's
    # frames), and frees that the engine runs asynchronously.
    gc.collect()
    quiver.wait_all()
    before = quiver.memory_stats()
    quiver.calibrate(prefix("digits_cnn"), (x[i % 358:i % 358 + 2] for i in range(2000)), tmp_path / "many")
    quiver.wait_all()
    assert quiver.memory_stats() == before
