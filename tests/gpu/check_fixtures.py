#!/usr/bin/env python3
"""Holds Quiver to MXNet's recorded outputs on the GPU fixtures, per device (numpy only).

    python3 tests/gpu/check_fixtures.py --fixtures DIR --runner build/tests/gpu/quiver_run_fixture \
        [--devices cpu,gpu(0)] [--work DIR] [--json SUMMARY.json] [--repeat 3]

DIR is tests/gpu/make_fixtures.sh's (or the GPU carry's fixtures/). Per model: the .params file is
rebuilt from its recipe (tests/gpu/regen_params.py, which fails unless the bytes are those MXNet
ran), then per input shape and device the runner computes the outputs, each held to
max |quiver - mxnet| <= 1e-4 * max |mxnet|; where several devices ran, the first device's outputs
are also compared with every other's (reported, bound the same). One line per case, a summary last;
exit status 0 when every case on every device passed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regen_params  # noqa: E402

BOUND = 1e-4


def rel_error(got, want):
    if got.shape != want.shape:
        return float("inf")
    scale = max(float(np.abs(want).max()), 1e-30)
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return float(diff.max()) / scale if np.all(np.isfinite(got)) else float("inf")


def run_case(runner, prefix, device, input_path, out_prefix, repeat, timeout):
    """The runner's outputs (list of arrays) and its JSON line, or (None, error text)."""
    cmd = [runner, "--prefix", prefix, "--device", device, "--input", input_path, "--out", out_prefix,
           "--repeat", str(repeat)]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %s s" % timeout
    if proc.returncode != 0 and not proc.stdout.strip():
        return None, (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    outputs = [np.load("%s-out%d.npy" % (out_prefix, k)) for k in range(len(info["outputs"]))]
    return outputs, info


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--devices", default="cpu")
    parser.add_argument("--work")
    parser.add_argument("--json")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--case-timeout", type=float, default=None, help="seconds a runner may take (a hang "
                        "fails its case and the next one runs)")
    args = parser.parse_args()
    devices = args.devices.split(",")
    with open(os.path.join(args.fixtures, "manifest.json")) as f:
        manifest = json.load(f)
    work = args.work or tempfile.mkdtemp(prefix="quiver-gpu-fixtures-")
    os.makedirs(work, exist_ok=True)
    results = []
    t0 = time.time()
    for model in manifest["models"]:
        name = model["name"]
        prefix = os.path.join(work, name)
        shutil.copyfile(os.path.join(args.fixtures, name + "-symbol.json"), prefix + "-symbol.json")
        try:
            regen_params.write_params(os.path.join(args.fixtures, model["recipe"]), prefix + "-0000.params")
        except Exception as e:  # a recipe numpy cannot rebuild: every case of the model fails
            print("FAIL %s: %s" % (name, e), flush=True)
            results.append({"model": name, "device": "all", "ok": False, "error": str(e)})
            continue
        for case in model["cases"]:
            tag = "x".join(str(d) for d in case["shape"])
            refs = [np.load(os.path.join(args.fixtures, o)) for o in case["outputs"]]
            by_device = {}
            for device in devices:
                safe = device.replace("(", "").replace(")", "")
                outputs, info = run_case(args.runner, prefix, device, os.path.join(args.fixtures, case["input"]),
                                         "%s-%s-%s" % (prefix, tag, safe), args.repeat, args.case_timeout)
                row = {"model": name, "shape": case["shape"], "device": device}
                if outputs is None:
                    row.update(ok=False, error=info)
                    print("FAIL %-18s %-14s %-7s %s" % (name, tag, device, info), flush=True)
                else:
                    errors = ([rel_error(o, r) for o, r in zip(outputs, refs)] if len(outputs) == len(refs)
                              else [float("inf")])
                    row.update(ok=max(errors) <= BOUND and info["repeats_identical"], error_vs_mxnet=max(errors),
                               first_ms=info["first_ms"], median_ms=info["median_ms"],
                               repeats_identical=info["repeats_identical"])
                    by_device[device] = outputs
                    print("%s %-18s %-14s %-7s vs MXNet %.2e (bound %.0e)%s, %.2f ms" % (
                        "ok  " if row["ok"] else "FAIL", name, tag, device, max(errors), BOUND,
                        "" if info["repeats_identical"] else ", repeats DIFFER", info["median_ms"]), flush=True)
                results.append(row)
            first = devices[0]
            for device in devices[1:]:
                if first in by_device and device in by_device:
                    err = max(rel_error(a, b) for a, b in zip(by_device[device], by_device[first]))
                    results.append({"model": name, "shape": case["shape"], "device": device + " vs " + first,
                                    "ok": err <= BOUND, "error_vs_" + first: err})
                    print("%s %-18s %-14s %s vs %s %.2e" % ("ok  " if err <= BOUND else "FAIL", name, tag, device,
                                                         first, err), flush=True)
    summary = {"devices": devices, "seconds": round(time.time() - t0, 1), "cases": results}
    for device in devices:
        rows = [r for r in results if r["device"] == device]
        errs = [r["error_vs_mxnet"] for r in rows if "error_vs_mxnet" in r]
        summary[device] = {"passed": sum(r["ok"] for r in rows), "total": len(rows),
                           "worst_error_vs_mxnet": max(errs) if errs else None}
        print("%s: %d/%d cases within %.0e of MXNet, worst %s" % (
            device, summary[device]["passed"], len(rows), BOUND, "%.2e" % max(errs) if errs else "n/a"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    sys.exit(0 if results and all(r["ok"] for r in results) else 1)


if __name__ == "__main__":
    main()
