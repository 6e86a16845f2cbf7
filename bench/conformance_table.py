#!/usr/bin/env python3
"""The conformance table: per model, Quiver's max error against MXNet and the batch-1 latency ratio.

    python3 bench/conformance_table.py [--set ci|full] [--rounds 3] [--iters 10] [--only NAME ...]

Runs the conformance suite (tests/conformance/run.sh) to collect each model's max error, then, per
model, quiver_bench and bench/mxnet_bench.py (MXNet 1.9.1's fastest path) alternately for --rounds
rounds at batch 1, one client, on the model's first fixture shape, and compares the medians of their
p50 latencies (ratio quiver / mxnet: below 1, Quiver is faster). Both run on the same machine in turn,
so a noisy, shared machine affects both; the load before each model is printed. Prints a Markdown table.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(*cmd, env=None):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, env=env, cwd=ROOT, text=True).stdout


def p50(cmd):
    line = [l for l in sh(*cmd).splitlines() if l.startswith("{")][-1]
    return float(json.loads(line)["p50_ms"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default="full", choices=["ci", "full"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    fixtures = sh("bash", "tests/conformance/make_fixtures.sh", a.set).strip()
    mxnet_python = sh("bash", "scripts/setup_mxnet_venv.sh").strip().splitlines()[-1]
    quiver_bench = os.path.join(ROOT, "build", "bench", "quiver_bench")
    models = json.load(open(os.path.join(fixtures, "manifest.json")))["models"]
    if a.only:
        models = [m for m in models if m["name"] in a.only]

    report = tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False).name
    env = dict(os.environ, QUIVER_CONFORMANCE_REPORT=report)
    selected = ["-k", " or ".join(m["name"] for m in models)] if a.only else []
    subprocess.run(["bash", "tests/conformance/run.sh", a.set, *selected], check=False, env=env, cwd=ROOT)
    errors = {}
    for line in open(report):
        r = json.loads(line)
        errors[r["model"]] = max(errors.get(r["model"], 0.0), r["max_error"])

    print("| model | max error | Quiver ms | MXNet ms | latency ratio |")
    print("| --- | --- | --- | --- | --- |")
    for m in models:
        shape = m["cases"][0]["shape"]
        common = ["--prefix", os.path.join(fixtures, m["prefix"]), "--batch", "1", "--iters", str(a.iters),
                  "--warmup", "2", "--shape", ",".join(map(str, shape[1:]))]
        print("%s: load %s" % (m["name"], open("/proc/loadavg").read().split()[:3]), file=sys.stderr)
        quiver, mxnet = [], []
        for _ in range(a.rounds):
            quiver.append(p50([quiver_bench, *common, "--clients", "1"]))
            mxnet.append(p50([mxnet_python, "bench/mxnet_bench.py", *common, "--clients", "1"]))
        q, x = statistics.median(quiver), statistics.median(mxnet)
        err = errors.get(m["name"])
        print("| %s (%s) | %s | %.1f | %.1f | %.2f |" % (m["name"], "x".join(map(str, shape[1:])),
                                                        "%.1e" % err if err is not None else "failed", q, x, q / x),
              flush=True)


if __name__ == "__main__":
    main()
