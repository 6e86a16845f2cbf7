"""quiver.calibrate (Quiver's own int8 calibration) against MXNet 1.9.1's quantize_net, on the float32
models and calibration images of tests/int8/make_fixtures.py.

For each model and each calibration mode (naive, entropy), Quiver calibrates the float32 model on the
images MXNet's calibration read, in the same batches, and the file it writes is compared with MXNet's
export in that mode (M0):
  * the same model: the same operators with the same attributes and fused subgraphs, and the same
    parameters bit for bit (convolution weights as given; inner products' int8 weights and biases
    quantized as MXNet quantizes them);
  * naive, the same ranges: both are the smallest and largest float32 value of each tensor over the
    same images, computed by two runtimes whose float32 results differ in summation order only (about
    1e-6 relative) and printed by MXNet with 6 decimals; so each range end agrees within
    1e-5 x the range's size + 1e-6;
  * entropy, MXNet's choice on Quiver's values: each tensor's threshold is the upper edge of a bin of
    an 8001-bin histogram (width about max|x| / 4000) picked by the smallest KL divergence, and
    values that differ by 1e-6 relative between the runtimes land in a neighbouring bin when they lie
    that close to an edge; on these small calibration sets the divergence has near-equal minima far
    apart, so moving a few dozen values can move the argmin by hundreds of bins (measured: 96 of 107
    thresholds in MXNet's bin; the other 11 moved 3 to 1194 bins, the divergence at Quiver's choice
    within 2.4e-3 relative of MXNet's minimum on MXNet's histogram). No bound on the threshold follows from the
    values' closeness, so the test checks what does follow, against MXNet itself
    (tests/int8/mxnet_entropy_histograms.py): MXNet's collector and _get_optimal_thresholds, run on
    the float32 values Quiver computes for each tensor, choose exactly Quiver's range (float32 bit
    for bit); those values' histogram differs from MXNet's by moves to a neighbouring bin only
    (cumulative counts C: C_mxnet(k-1) <= C_quiver(k) <= C_mxnet(k+1) at every edge k); and the
    helper's own ranges are those of MXNet's export (6 printed decimals), so it calibrates as the
    fixtures did, wherever MXNet computes as it did for them (its float32 output of the model the
    fixtures' bit for bit; on other instruction sets, e.g. an AVX2-only CPU against fixtures made on
    AVX-512, its sums round otherwise and move thresholds as Quiver's do, and only the input's range,
    which no kernel computes, is compared). The input tensor, identical in both, gets MXNet's exact range;
  * MXNet 1.9.1 loads and runs it (tests/int8/run_mxnet.py, a fresh Module): its error against
    float32 (F) is of the size of its error on its own export, |M - F| <= 1.5 |M0 - F| (the files
    differ in the ranges' last digits only, which move single roundings: the same argument and
    factor as test_int8_mxnet.py's);
  * Quiver runs it at precision int8 within test_int8_mxnet.py's rule against MXNet's output of the
    same file: |Q - F| <= 1.5 |M - F| (3 on a CPU without int8 dot products: see test_int8_mxnet.py);
  * the digits CNN calibrated by Quiver keeps 98.3% of the 360 held-back digits in Quiver and in MXNet.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import quiver
from int8_support import error_bound_factor, load_manifest, not_run_without_int8_cpu, skip_or_fail

INT8_DIR = Path(os.environ.get("QUIVER_INT8_DIR", ""))
DIGITS_DIR = Path(os.environ.get("QUIVER_FIXTURES_DIR", ""))
MXNET = os.environ.get("QUIVER_MXNET", "")
RUN_MXNET = Path(__file__).with_name("run_mxnet.py")
ENTROPY_HISTOGRAMS = Path(__file__).with_name("mxnet_entropy_histograms.py")
MODELS = ["resnet18_v1", "mobilenetv2_1.0", "mobilenet0.25", "video3d", "digits_cnn"]
MODES = ["naive", "entropy"]


@pytest.fixture(scope="module")
def manifest() -> dict:
    manifest = load_manifest("QUIVER_INT8_DIR", "tests/int8/make_fixtures.sh")
    if not MXNET:
        skip_or_fail("no MXNet: set QUIVER_MXNET to scripts/setup_mxnet_venv.sh's python")
    return manifest


def _batches(entry: dict) -> list:
    """The model's calibration images, in the batches MXNet read them."""
    shape = tuple(entry["input_shape"][1:])
    images = np.fromfile(INT8_DIR / entry["files"]["calibration"], dtype="<f4").reshape((-1,) + shape)
    batch = entry["calibration"]["batch"]
    return [images[i:i + batch] for i in range(0, len(images), batch)]


@pytest.fixture(scope="module")
def calibrated(manifest, tmp_path_factory):
    """calibrated(mode, name): the model calibrated by Quiver in that mode, once: (its manifest entry,
    the written prefix)."""
    out_dir = tmp_path_factory.mktemp("calibrated")
    entries = {entry["name"]: entry for entry in manifest["models"]}
    done: dict = {}

    def get(mode: str, name: str) -> tuple:
        if (mode, name) not in done:
            entry = entries[name]
            prefix = quiver.calibrate(INT8_DIR / entry["files"]["float32_model"], _batches(entry),
                                      out_dir / f"{name}-{mode}", calib_mode=mode)
            done[mode, name] = (entry, prefix)
        return done[mode, name]
    return get


def _load(path, shape) -> np.ndarray:
    return np.fromfile(path, dtype="<f4").reshape(shape)


def _mxnet_run(prefix: str, x: np.ndarray, tmp_path: Path) -> np.ndarray:
    x_file, out_file = tmp_path / "x.f32", tmp_path / "out.f32"
    x.astype("<f4").tofile(x_file)
    subprocess.run([MXNET, str(RUN_MXNET), prefix, str(x_file), ",".join(map(str, x.shape)), str(out_file)],
                   check=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                   stdout=sys.stderr, stderr=sys.stderr)
    return np.fromfile(out_file, dtype="<f4")


def _quiver_int8(prefix: str, x: np.ndarray) -> np.ndarray:
    try:
        with quiver.Predictor(prefix, precision="int8") as p:
            assert p.precision == "int8"
            return np.array(p.predict(x))
    except quiver.UnsupportedError as e:
        not_run_without_int8_cpu(e)


def _inner_ops(node: dict) -> list:
    """The operators a fused node runs (its subgraph's), in order; none for a plain node."""
    return [n for n in node.get("subgraphs", [{"nodes": []}])[0]["nodes"] if n["op"] != "null"]


def _layer(node: dict) -> str:
    """The name of the layer a node runs: its first fused operator's, else its own."""
    inner = _inner_ops(node)
    return inner[0]["name"] if inner else node["name"]


def _fused_nodes(symbol: dict) -> dict:
    """Each operator node by the name of the layer it runs, with its attributes minus the ranges."""
    nodes: dict = {}
    for node in symbol["nodes"]:
        if node["op"] == "null":
            continue
        attrs = {k: v for k, v in node.get("attrs", {}).items() if "calib_range" not in k}
        nodes.setdefault(_layer(node), []).append(
            (node["op"], attrs, [(n["op"], n.get("attrs", {})) for n in _inner_ops(node)]))
    return nodes


def _ranges(symbol: dict) -> dict:
    return {_layer(node): (float(node["attrs"]["min_calib_range"]), float(node["attrs"]["max_calib_range"]))
            for node in symbol["nodes"] if "min_calib_range" in node.get("attrs", {})}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", MODELS)
def test_writes_what_quantize_net_writes(calibrated, mode, name):
    _, prefix = calibrated(mode, name)
    ours = json.loads(Path(prefix + "-symbol.json").read_text())
    theirs = json.loads((INT8_DIR / f"{name}-{mode}-symbol.json").read_text())
    assert _fused_nodes(ours) == _fused_nodes(theirs)
    ours_ranges, their_ranges = _ranges(ours), _ranges(theirs)
    assert ours_ranges.keys() == their_ranges.keys()
    if mode == "naive":
        worst = 0.0
        for key, (lo, hi) in their_ranges.items():
            bound = 1e-5 * (hi - lo) + 1e-6
            gap = max(abs(ours_ranges[key][0] - lo), abs(ours_ranges[key][1] - hi))
            assert gap <= bound, (key, ours_ranges[key], (lo, hi))
            worst = max(worst, gap / (hi - lo))
        print(f"{name}: {len(their_ranges)} ranges, largest difference {worst:.2e} of the range")

    ours_params = _params(prefix + "-0000.params")
    their_params = _params(str(INT8_DIR / f"{name}-{mode}-0000.params"))
    assert ours_params.keys() == their_params.keys()
    for key, theirs_array in their_params.items():
        assert ours_params[key].dtype == theirs_array.dtype, key
        assert np.array_equal(ours_params[key], theirs_array), key


def _params(path: str) -> dict:
    """A .params file's arrays by stored name (each numpy array owns its handle)."""
    handles, names = quiver.capi.QvNDArrayLoad(path)
    return {n: quiver.capi.array_to_numpy(h) for n, h in zip(names, handles)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", MODELS)
def test_mxnet_and_quiver_run_it_with_int8_error_of_mxnets_size(calibrated, mode, name, tmp_path):
    entry, prefix = calibrated(mode, name)
    files = entry["files"]
    x = _load(INT8_DIR / files["input"], entry["input_shape"])
    f32 = _load(INT8_DIR / files["float32"], entry["output_shape"])
    mxnet_own = _load(INT8_DIR / entry["modes"][mode]["output_file"], entry["output_shape"])
    mxnet = _mxnet_run(prefix, x, tmp_path).reshape(f32.shape)
    ours = _quiver_int8(prefix, x)
    scale = float(np.abs(f32).max())
    err_m0, err_m, err_q = (float(np.abs(a - f32).max()) / scale for a in (mxnet_own, mxnet, ours))
    print(f"{name} {mode}: int8 error / scale: MXNet on its export {err_m0:.4f}, MXNet on Quiver's {err_m:.4f}, "
          f"Quiver on Quiver's {err_q:.4f}")
    assert err_m <= 1.5 * err_m0
    assert err_q <= error_bound_factor() * err_m


@pytest.mark.parametrize("mode", MODES)
def test_digits_cnn_calibrated_by_quiver_keeps_its_accuracy(calibrated, mode, tmp_path):
    _, prefix = calibrated(mode, "digits_cnn")
    digits = json.loads((DIGITS_DIR / "manifest.json").read_text())["models"]["digits_cnn"]
    test_set = next(c for c in digits["cases"] if c["name"] == "test_set")
    x = _load(DIGITS_DIR / test_set["input_file"], test_set["input_shape"])
    labels = np.fromfile(DIGITS_DIR / test_set["labels_file"], dtype=np.int32)
    ours = float((_quiver_int8(prefix, x).argmax(axis=1) == labels).mean())
    mxnet = float((_mxnet_run(prefix, x, tmp_path).reshape(len(labels), -1).argmax(axis=1) == labels).mean())
    print(f"digits calibrated by Quiver ({mode}): Quiver int8 {ours:.4f}, MXNet int8 {mxnet:.4f}")
    assert ours >= 0.983 and mxnet >= 0.983


def _entropy_tensors(symbol: dict, quiver_file: bool) -> dict:
    """Each calibrated tensor of a quantized file by the layer that reads or writes it: the float32
    node whose output 0 it is, in Quiver's file (quiver_file) or MXNet's tensor name, in MXNet's."""
    tensors = {}
    for node in symbol["nodes"]:
        if "min_calib_range" not in node.get("attrs", {}):
            continue
        if node["op"] == "_contrib_quantize_v2":
            source = symbol["nodes"][node["inputs"][0][0]]
            name = source["name"] if quiver_file or source["op"] == "null" else source["name"] + "_output"
        elif quiver_file:
            name = _inner_ops(node)[-1]["name"]
        else:
            name = node["name"][len("quantized_"):] + "_output"
        tensors[_layer(node)] = name
    return tensors


def _quiver_values(entry: dict, names: list, batches: list) -> dict:
    """The float32 values Quiver computes for tensors of the float32 model, per batch: `names` holds
    (Quiver's tensor name, MXNet's name) pairs, the result is keyed "MXNET_NAME:BATCH". The model runs
    with those tensors as its first outputs, as the calibrator runs it."""
    prefix = INT8_DIR / entry["files"]["float32_model"]
    symbol = json.loads(Path(f"{prefix}-symbol.json").read_text())
    ids = {node["name"]: i for i, node in enumerate(symbol["nodes"])}
    computed = [t for t, _ in names if symbol["nodes"][ids[t]]["op"] != "null"]
    symbol["heads"] = [[ids[t], 0, 0] for t in computed] + symbol["heads"]
    values = {}
    with quiver.Predictor.from_bytes(json.dumps(symbol), Path(f"{prefix}-0000.params").read_bytes(),
                                     precision="float32") as p:
        for b, batch in enumerate(batches):
            outputs = p.predict(batch)
            for tensor, mxnet_name in names:
                value = outputs[computed.index(tensor)] if tensor in computed else batch
                values[f"{mxnet_name}:{b}"] = np.array(value, dtype=np.float32).ravel()
    return values


def _mxnet_computes_as_for_the_fixtures(entry: dict, tmp_path: Path) -> bool:
    """Whether MXNet's float32 output of the model is the fixtures' bit for bit here: the same kernels
    (another CPU's instruction sets, or DNNL_MAX_CPU_ISA, sum in another order)."""
    files = entry["files"]
    f32 = _load(INT8_DIR / files["float32"], entry["output_shape"])
    now = _mxnet_run(str(INT8_DIR / files["float32_model"]), _load(INT8_DIR / files["input"], entry["input_shape"]),
                     tmp_path)
    return np.array_equal(now.reshape(f32.shape), f32)


def _moves_at_most_one_bin(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """True when histogram `ours` is `theirs` with values moved to a neighbouring bin only (both
    centred on zero with bins of one width; the narrower is widened by empty bins on both sides)."""
    width = max(len(ours), len(theirs))
    ours, theirs = (np.pad(h, (width - len(h)) // 2) for h in (ours, theirs))
    c_ours = np.concatenate([[0], np.cumsum(ours)])
    c_theirs = np.concatenate([[0, 0], np.cumsum(theirs), [theirs.sum()]])
    return bool(np.all(c_theirs[:-2] <= c_ours) and np.all(c_ours <= c_theirs[2:]))


@pytest.mark.parametrize("name", MODELS)
def test_entropy_ranges_are_mxnets_choice_on_quivers_values(calibrated, name, tmp_path):
    entry, prefix = calibrated("entropy", name)
    ours_symbol = json.loads(Path(prefix + "-symbol.json").read_text())
    theirs_symbol = json.loads((INT8_DIR / f"{name}-entropy-symbol.json").read_text())
    ours_ranges, their_ranges = _ranges(ours_symbol), _ranges(theirs_symbol)
    ours_tensors, their_tensors = _entropy_tensors(ours_symbol, True), _entropy_tensors(theirs_symbol, False)
    assert ours_tensors.keys() == their_tensors.keys() == their_ranges.keys()

    values = _quiver_values(entry, [(ours_tensors[layer], their_tensors[layer]) for layer in ours_tensors],
                            _batches(entry))
    values_file, out_file = tmp_path / "values.npz", tmp_path / "mxnet.npz"
    np.savez(values_file, **values)
    subprocess.run([MXNET, str(ENTROPY_HISTOGRAMS), str(INT8_DIR), name, str(values_file), str(out_file)],
                   check=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                   stdout=sys.stderr, stderr=sys.stderr)
    mxnet = dict(np.load(out_file))
    same_kernels = _mxnet_computes_as_for_the_fixtures(entry, tmp_path)
    if not same_kernels:
        print(f"{name}: MXNet's float32 output here is not the fixtures' bit for bit (other instruction sets): "
              "its own entropy ranges are compared with the fixtures' for the input only")

    inputs = {n["name"] for n in ours_symbol["nodes"] if n["op"] == "null"}
    same_bin, moved = 0, []
    for layer, tensor in their_tensors.items():
        ours = np.array(ours_ranges[layer], dtype=np.float32)
        # MXNet's own run is the fixtures' (its ranges printed with 6 decimals) where it computes as it
        # did for them; the input's values are the same everywhere.
        if same_kernels or ours_tensors[layer] in inputs:
            np.testing.assert_allclose(mxnet[f"mxnet:range:{tensor}"], their_ranges[layer], rtol=1e-7, atol=5e-7)
        # MXNet's collector and threshold choice on Quiver's values: Quiver's range, bit for bit.
        assert np.array_equal(mxnet[f"values:range:{tensor}"], ours), (layer, ours, mxnet[f"values:range:{tensor}"])
        assert _moves_at_most_one_bin(mxnet[f"values:hist:{tensor}"], mxnet[f"mxnet:hist:{tensor}"]), layer
        if ours_tensors[layer] in inputs:
            assert np.array_equal(ours, mxnet[f"mxnet:range:{tensor}"]), layer  # the same values
        mine, theirs = float(ours[1]), float(mxnet[f"mxnet:range:{tensor}"][1])
        if abs(mine - theirs) <= 1e-5 * theirs + 1e-6:
            same_bin += 1
        else:
            edges = mxnet[f"mxnet:edges:{tensor}"]
            moved.append(abs(mine - theirs) / float(edges[1] - edges[0]))
    print(f"{name} entropy: {same_bin} of {len(their_tensors)} thresholds in MXNet's bin; the others "
          f"{', '.join(f'{m:.1f}' for m in sorted(moved)) or '-'} bins away")
