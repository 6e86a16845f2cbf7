#!/usr/bin/env python3
"""What the profiler costs on a GPU, and a trace to look at: ResNet-50 FP32 on gpu(0).

    python3 bench/gpu/profiler_cost.py --quiver-bench BUILD/bench/quiver_bench --work DIR --out OUTDIR

On a GPU the profiler times each step with CUDA events and runs a plan's steps one by one instead of
replaying its CUDA graph, so a profiled invocation is not the one measured unprofiled. This runs
quiver_bench with the profiler off, off without CUDA graphs (how a profiled plan runs its steps), and
on, interleaved (--rounds, medians), at batch 1 and 32, prints a Markdown table, and writes
OUTDIR/resnet50_gpu_trace.json (ten batch-1 invocations) and OUTDIR/profiler_cost.json. The model is bench/gpu/export_resnet50.py's (needs torch and torchvision).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = {"off": ["--profile", "0"], "off, no graphs": ["--profile", "0", "--option", "cuda_graphs=false"],
         "on": ["--profile", "1"]}


def bench(args, prefix, batch, iters, extra):
    cmd = [args.quiver_bench, "--prefix", prefix, "--device", "gpu(0)", "--batch", str(batch), "--iters", str(iters),
           "--warmup", "20", "--shape", "3,224,224"] + extra
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, universal_newlines=True, timeout=120).stdout
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quiver-bench", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    prefix = os.path.join(args.work, "resnet50_tv")
    if not os.path.exists(prefix + "-symbol.json"):
        subprocess.run([sys.executable, os.path.join(HERE, "export_resnet50.py"), "--out", args.work], check=True)
    results = {}
    for batch, iters in ((1, 300), (32, 40)):
        for _ in range(args.rounds):
            for mode, flags in MODES.items():
                results.setdefault((batch, mode), []).append(bench(args, prefix, batch, iters, flags))
    trace = os.path.join(args.out, "resnet50_gpu_trace.json")
    bench(args, prefix, 1, 10, ["--trace", trace])

    rows = ["| ResNet-50 FP32 on gpu(0), medians of %d rounds | %s | on / off |"
            % (args.rounds, " | ".join("profiler " + m for m in MODES)), "| --- |" + " --- |" * (len(MODES) + 1)]
    summary = {}
    for batch in (1, 32):
        for key, label in (("p50_ms", "p50 ms"), ("throughput_per_s", "img/s")):
            medians = {m: statistics.median(r[key] for r in results[(batch, m)]) for m in MODES}
            summary["batch%d_%s" % (batch, key)] = medians
            rows.append("| batch %d, %s | %s | %.2fx |" % (batch, label, " | ".join("%.3f" % medians[m] for m in MODES),
                                                          medians["on"] / medians["off"]))
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    steps = [e for e in events if e.get("cat") in ("operator", "conversion")]
    invocations = [e for e in events if e.get("cat") == "invocation"]
    tracks = sorted({e["args"]["name"] for e in events if e.get("ph") == "M"})
    rows.append("")
    rows.append("trace: %d invocations, %d step spans (%.0f each) on %s; steps %.0f%% of the invocations' time"
                % (len(invocations), len(steps), len(steps) / max(1, len(invocations)), ", ".join(tracks),
                   100 * sum(e["dur"] for e in steps) / max(1e-9, sum(e["dur"] for e in invocations))))
    print("\n".join(rows))
    with open(os.path.join(args.out, "profiler_cost.json"), "w") as f:
        json.dump({"summary": summary, "runs": {"batch %d, %s" % k: v for k, v in results.items()}}, f, indent=1)


if __name__ == "__main__":
    main()
