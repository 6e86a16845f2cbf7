"""MXNet 1.9.1's entropy calibration, tensor by tensor, for tests/int8/test_calibrate_mxnet.py.

    python tests/int8/mxnet_entropy_histograms.py INT8_DIR NAME VALUES.npz OUT.npz

For the int8 fixture model NAME (tests/int8/make_fixtures.py), runs quantize_net with calib_mode
"entropy" on its calibration images, as the fixtures did, and keeps for each tensor MXNet calibrates
the histogram its _LayerHistogramCollector built and the range _get_optimal_thresholds chose. Then it
does the same for the values in VALUES.npz (another runtime's values of those tensors, keys
"TENSOR:BATCH" with MXNet's tensor names): MXNet's collector step (numpy's histogram, MXNet's
combine_histogram) batch by batch, and MXNet's _get_optimal_thresholds. OUT.npz holds, per tensor T
and SOURCE in (mxnet, values): "SOURCE:hist:T", "SOURCE:edges:T" and "SOURCE:range:T" (float32 min,
max). Run with scripts/setup_mxnet_venv.sh's python.
"""
import collections
import json
import logging
import sys
import warnings

import mxnet as mx
import numpy as np
from mxnet.contrib import quantization


def collect(histograms, name, values):
    """MXNet's _LayerHistogramCollector.collect for one batch of a tensor's values (a numpy array)."""
    lo, hi = np.min(values), np.max(values)
    th = max(abs(lo), abs(hi))
    if name in histograms:
        histograms[name] = quantization.combine_histogram(histograms[name], values, lo, hi, th)
    else:
        hist, edges = np.histogram(values, bins=8001, range=(-th, th))
        histograms[name] = (hist, edges, lo, hi, th)


def record(histograms, ranges, source, out):
    """Stores each tensor's histogram and the range chosen from it (MXNet's (min, max) pair)."""
    for name, (hist, edges, *_) in histograms.items():
        out[f"{source}:hist:{name}"] = np.asarray(hist, dtype=np.int64)
        out[f"{source}:edges:{name}"] = np.asarray(edges, dtype=np.float32)
    for name, (lo, hi) in ranges.items():
        out[f"{source}:range:{name}"] = np.array([np.asarray(lo).item(), np.asarray(hi).item()], dtype=np.float32)


def main():
    int8_dir, name, values_file, out_file = sys.argv[1:]
    with open(f"{int8_dir}/manifest.json") as f:
        entry = next(m for m in json.load(f)["models"] if m["name"] == name)
    files, batch = entry["files"], entry["calibration"]["batch"]
    shape = tuple(entry["input_shape"][1:])
    images = np.fromfile(f"{int8_dir}/{files['calibration']}", dtype="<f4").reshape((-1,) + shape)
    prefix = f"{int8_dir}/{files['float32_model']}"
    net = mx.gluon.SymbolBlock.imports(f"{prefix}-symbol.json", ["data"], f"{prefix}-0000.params")

    out = {}
    choose = quantization._get_optimal_thresholds

    def recording(hist_dict, quantized_dtype, num_quantized_bins=255, logger=None):
        histograms = dict(hist_dict)  # MXNet empties hist_dict as it goes
        ranges = choose(hist_dict, quantized_dtype, num_quantized_bins, logger)
        record(histograms, ranges, "mxnet", out)
        return ranges

    quantization._get_optimal_thresholds = recording
    quantization.quantize_net(net, quantized_dtype="auto", quantize_mode="full",
                              calib_data=mx.io.NDArrayIter(images, batch_size=batch),
                              data_shapes=[mx.io.DataDesc("data", (batch,) + shape)], calib_mode="entropy",
                              num_calib_examples=len(images), ctx=mx.cpu(), logger=None)
    quantization._get_optimal_thresholds = choose

    batches = collections.defaultdict(dict)
    with np.load(values_file) as values:
        for key in values.files:
            tensor, index = key.rsplit(":", 1)
            batches[tensor][int(index)] = values[key]
    histograms = {}
    for tensor, by_index in batches.items():
        for index in sorted(by_index):
            collect(histograms, tensor, by_index[index])
    record(histograms, choose(dict(histograms), "auto"), "values", out)
    np.savez(out_file, **out)


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore", category=UserWarning)  # quantize_net's deprecation, SymbolBlock's types
    main()
