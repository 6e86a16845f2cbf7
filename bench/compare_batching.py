"""The driver of bench/compare_batching.sh (see there): runs quiver_bench (batching off and on) and
baseline_bench.py (ONNX Runtime) as separate processes, round after round, and prints medians side by side."""
import argparse
import json
import os
import statistics
import sys
import tempfile

from bench_process import run_json

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quiver-bench", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--onnx", required=True)
    parser.add_argument("--check", default="")
    args = parser.parse_args()
    rounds = int(os.environ.get("ROUNDS", "3"))
    client_counts = [int(c) for c in os.environ.get("CLIENTS", "1 4 16 64").split()]
    requests = int(os.environ.get("REQUESTS", "192"))
    warmup = os.environ.get("WARMUP", "3")
    batching = os.environ.get("BATCHING", "max_batch_size=16 batch_timeout_us=2000").split()
    ort_threads = os.environ.get("ORT_THREADS", "")
    out_dir = os.environ.get("OUT_DIR") or tempfile.mkdtemp(prefix="compare_batching.")
    os.makedirs(out_dir, exist_ok=True)
    log = open(os.path.join(out_dir, "runs.jsonl"), "w")
    options = {k: v for k, v in (kv.split("=", 1) for kv in batching)}
    max_batch = options.get("max_batch_size", "1")
    timeout_ms = int(options.get("batch_timeout_us", "1000")) / 1e3

    instances = options.get("instances", "1")
    results = {}  # (engine, clients) -> list of runs
    full_batches = []  # `instances` clients sending full batches back to back: what batching can reach at best
    for r in range(rounds):
        full_batches.append(run_json([args.quiver_bench, "--prefix", args.prefix, "--batch", max_batch, "--clients",
                                 instances, "--iters", str(max(5, requests // int(max_batch))), "--warmup", "1"], log))
        for clients in client_counts:
            iters = str(max(4, requests // clients))
            common = ["--prefix", args.prefix, "--clients", str(clients), "--iters", iters, "--warmup", warmup]
            quiver_on = [args.quiver_bench] + common
            for kv in batching:
                quiver_on += ["--option", kv]
            ort = [sys.executable, os.path.join(HERE, "baseline_bench.py"), "--engine", "onnxruntime", "--model",
                   args.onnx, "--clients", str(clients), "--iters", iters, "--warmup", warmup]
            if ort_threads:
                ort += ["--threads", ort_threads]
            if args.check and r == 0 and clients == client_counts[0]:
                ort += ["--check", args.check]
            for engine, command in (("quiver", [args.quiver_bench] + common), ("quiver+batching", quiver_on),
                                    ("onnxruntime", ort)):
                result = run_json(command, log)
                results.setdefault((engine, clients), []).append(result)
                print(f"compare_batching: round {r + 1}/{rounds} {engine:16s} {clients:3d} clients: "
                      f"{result['throughput_per_s']:7.1f} img/s p50 {result['p50_ms']:8.1f} ms "
                      f"p99 {result['p99_ms']:8.1f} ms", file=sys.stderr)

    def median(engine, clients, key):
        return statistics.median(x[key] for x in results[(engine, clients)])

    run_ms = statistics.median(x["p50_ms"] for x in full_batches)
    ceiling = statistics.median(x["throughput_per_s"] for x in full_batches)
    print(f"\n{os.path.basename(args.prefix)}, batch-1 clients, medians of {rounds} rounds; batching: "
          f"{' '.join(batching)}; one batch of {max_batch} runs in {run_ms:.1f} ms; full batches back to back "
          f"({instances} at once): {ceiling:.1f} img/s")
    print("| clients | Quiver img/s | p50 / p99 ms | Quiver+batching img/s | p50 / p99 ms | ONNX Runtime img/s "
          "| p50 / p99 ms | batching / off | full batches / off | batching / ORT | p99 <= timeout + 2 runs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    summary = []
    for clients in client_counts:
        row = {"clients": clients}
        for engine in ("quiver", "quiver+batching", "onnxruntime"):
            row[engine] = {k: median(engine, clients, k) for k in ("throughput_per_s", "p50_ms", "p99_ms")}
        on, off, ort = row["quiver+batching"], row["quiver"], row["onnxruntime"]
        row["speedup_vs_off"] = on["throughput_per_s"] / off["throughput_per_s"]
        row["ceiling_vs_off"] = ceiling / off["throughput_per_s"]
        row["ratio_vs_ort"] = on["throughput_per_s"] / ort["throughput_per_s"]
        # The latency target holds while one round of batches serves every client; with more clients a
        # request also waits for the batches queued ahead of it.
        if clients <= int(max_batch) * int(instances):
            row["p99_within_target"] = on["p99_ms"] <= timeout_ms + 2 * run_ms
        summary.append(row)
        cells = [f"{clients}"]
        for e in (off, on, ort):
            cells += [f"{e['throughput_per_s']:.1f}", f"{e['p50_ms']:.1f} / {e['p99_ms']:.1f}"]
        cells += [f"{row[k]:.2f}" for k in ("speedup_vs_off", "ceiling_vs_off", "ratio_vs_ort")]
        cells.append({True: "yes", False: "no", None: "n/a"}[row.get("p99_within_target")])
        print("| " + " | ".join(cells) + " |")
    check = [x for x in results[("onnxruntime", client_counts[0])] if "max_abs_diff_vs_mxnet" in x]
    if check:
        print(f"ONNX export check: largest difference from MXNet's output {check[0]['max_abs_diff_vs_mxnet']:.2e}")
    others = max(x.get("other_load", 0) for runs in results.values() for x in runs)
    print(f"raw results: {out_dir}/runs.jsonl; largest share of the CPU used by other processes during a "
          f"Quiver run: {others:.0%}")
    print(json.dumps({"batch_run_ms": run_ms, "full_batches_per_s": ceiling, "batching": batching, "rows": summary}))


if __name__ == "__main__":
    main()
