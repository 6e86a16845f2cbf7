#!/usr/bin/env python3
"""Checks bench/gpu/export_resnet50.py's mapping without torch: MXNet 1.9.1 and Quiver against numpy.

    python bench/gpu/check_export.py [--out DIR] [--runner build/tests/gpu/quiver_run_fixture]

Run with scripts/setup_mxnet_venv.sh's python. A state_dict with torchvision ResNet-50's names and
shapes and seeded random values (BatchNorm statistics not 0/1, so that a swapped mapping shows) goes
through export_resnet50.write_model; the exported files must load in MXNet (gluon.SymbolBlock) and
give, on a 1x3x64x64 input, what a numpy forward pass written from torchvision's definition
(ResNet v1.5, float64) gives, within 1e-4 of the output's scale; with --runner, Quiver on cpu too.
On the GPU machine, scripts/gpu_check.sh compares Quiver with torch itself on the real export.
"""
import argparse
import os
import subprocess
import sys
import tempfile

os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_resnet50 as export  # noqa: E402

BOUND = 1e-4


def random_state(seed):
    """torchvision-like values: Kaiming-normal convolutions (fan out), random BatchNorms, a small FC."""
    rs = np.random.RandomState(seed)
    state = {}
    for name, shape in export.state_shapes().items():
        if name.endswith("running_var") or (name.endswith(".weight") and len(shape) == 1):
            state[name] = 0.5 + rs.random_sample(shape)
        elif name.endswith("running_mean") or name.endswith(".bias"):
            state[name] = 0.1 * rs.standard_normal(shape)
        elif len(shape) == 4:
            state[name] = rs.standard_normal(shape) * np.sqrt(2.0 / (shape[0] * shape[2] * shape[3]))
        else:
            state[name] = rs.standard_normal(shape) / np.sqrt(shape[1])
    return {k: v.astype(np.float32) for k, v in state.items()}


def conv(x, w, stride, pad):
    n, c, h, wd = x.shape
    o, _, k, _ = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("nchwij,ocij->nohw", win, w, optimize=True)


def bn(x, s, p):
    scale = s[p + ".weight"] / np.sqrt(s[p + ".running_var"] + export.BN_EPS)
    return (x - s[p + ".running_mean"][:, None, None]) * scale[:, None, None] + s[p + ".bias"][:, None, None]


def maxpool(x):
    x = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    return win.max(axis=(4, 5))


def reference_forward(s, x):
    """torchvision.models.resnet50's forward, from its definition, in float64."""
    s = {k: v.astype(np.float64) for k, v in s.items()}
    relu = lambda t: np.maximum(t, 0)  # noqa: E731
    x = maxpool(relu(bn(conv(x.astype(np.float64), s["conv1.weight"], 2, 3), s, "bn1")))
    for layer, blocks in enumerate(export.BLOCKS, start=1):
        for b in range(blocks):
            p = "layer%d.%d" % (layer, b)
            stride = 2 if (b == 0 and layer > 1) else 1
            y = relu(bn(conv(x, s[p + ".conv1.weight"], 1, 0), s, p + ".bn1"))
            y = relu(bn(conv(y, s[p + ".conv2.weight"], stride, 1), s, p + ".bn2"))
            y = bn(conv(y, s[p + ".conv3.weight"], 1, 0), s, p + ".bn3")
            if b == 0:
                x = bn(conv(x, s[p + ".downsample.0.weight"], stride, 0), s, p + ".downsample.1")
            x = relu(y + x)
    return x.mean(axis=(2, 3)) @ s["fc.weight"].T + s["fc.bias"]


def rel(a, b):
    return float(np.abs(a.astype(np.float64) - b).max() / np.abs(b).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out")
    parser.add_argument("--runner")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="quiver-resnet50-export-")
    os.makedirs(out, exist_ok=True)
    state = random_state(7)
    prefix = export.write_model(out, state)
    x = np.random.RandomState(8).standard_normal((1, 3, 64, 64)).astype(np.float32)
    np.save(os.path.join(out, "input-1x3x64x64.npy"), x)
    want = reference_forward(state, x)
    np.save(os.path.join(out, "reference-out0.npy"), want.astype(np.float32))
    print("numpy reference: output scale %.3g" % np.abs(want).max())
    ok = True

    import mxnet as mx
    block = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params", ctx=mx.cpu())
    got = block(mx.nd.array(x)).asnumpy()
    err = rel(got, want)
    ok &= err <= BOUND
    print("%s MXNet 1.9.1 vs numpy: %.2e (bound %.0e)" % ("ok  " if err <= BOUND else "FAIL", err, BOUND))
    if args.runner:
        subprocess.run([args.runner, "--prefix", prefix, "--device", "cpu", "--input",
                        os.path.join(out, "input-1x3x64x64.npy"), "--out", prefix + "-quiver-cpu"], check=True)
        q = np.load(prefix + "-quiver-cpu-out0.npy")
        err_q, err_qm = rel(q, want), rel(q, got.astype(np.float64))
        ok &= err_q <= BOUND
        print("%s Quiver cpu vs numpy: %.2e, vs MXNet: %.2e" % ("ok  " if err_q <= BOUND else "FAIL", err_q, err_qm))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
