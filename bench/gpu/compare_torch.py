#!/usr/bin/env python3
"""ResNet-50 FP32 on the GPU: Quiver vs PyTorch on the same weights, side by side in one run.

    python3 bench/gpu/compare_torch.py --quiver-bench build/bench/quiver_bench \
        --runner build/tests/gpu/quiver_run_fixture --work DIR [--json OUT.json] [--md OUT.md] [--budget 200]

scripts/gpu_check.sh runs it as stage (g) on the GPU machine (python3 there has torch + torchvision).
Steps, each time-boxed so that the whole fits in --budget seconds:
  1. bench/gpu/export_resnet50.py: torchvision.models.resnet50(weights=None), seeded, written as an
     MXNet model; Quiver's output on the device is held to torch's float32 CPU output (1e-4 of scale).
  2. Quiver (build/bench/quiver_bench --device gpu(0)): batch-1 latency p50/p99 (one client, inputs on
     the device), batch 32 and 128 throughput (two invocations in flight), and 1/4/16/64 concurrent
     batch-1 clients without and with dynamic batching (max_batch_size=64, batch_timeout_us=1000).
  3. PyTorch eager and PyTorch replaying CUDA graphs (torch.cuda.CUDAGraph, one per batch size or
     client), cudnn.benchmark on, at PyTorch's default math, as its users run it (TF32 convolutions,
     FP32 matrix products; --torch-fp32 turns TF32 off for an FP32-against-FP32 comparison):
     the same measures; clients are Python threads, each with its own CUDA stream (and graph).
Latency runs from the call to the output being ready (torch.cuda.synchronize / the stream's), as
quiver_bench measures it. Prints a table and the issue's targets: batch-1 p50 latency <= PyTorch with
CUDA graphs; batch-128 throughput within 10% of PyTorch's best; at 64 clients, batching >= 0.8x
Quiver's batch-128 throughput. --no-torch and --device cpu run the Quiver half alone (a dry run where
no GPU is), --export-dir reuses an export (bench/gpu/check_export.py makes one without torch), --shape
another input size. Exit status 0 when every target is met and the outputs agree, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS = (1, 4, 16, 64)
BATCHING = ("max_batch_size=64", "batch_timeout_us=1000")
BOUND = 1e-4


class Budget:
    def __init__(self, seconds):
        self.deadline = time.time() + seconds

    def left(self):
        return self.deadline - time.time()


def log(msg):
    print("compare_torch: " + msg, file=sys.stderr, flush=True)


def percentiles(lat_ms):
    a = np.sort(np.asarray(lat_ms))
    return float(np.percentile(a, 50)), float(np.percentile(a, 99))


# ------------------------------------------------------------------------------------------------
# Quiver


def client_iters(clients, args):
    """Requests per client: about a second of them at every client count (1024 in all), since with
    fewer, each client's first requests, which start out of step, weigh on the figures."""
    return max(5, 1024 // clients // args.scale_down)


def quiver_run(args, budget, batch, clients=1, inflight=1, iters=50, warmup=5, options=()):
    cmd = [args.quiver_bench, "--prefix", args.prefix, "--device", args.quiver_device, "--batch", str(batch),
           "--clients", str(clients), "--inflight", str(inflight), "--iters", str(iters), "--warmup", str(warmup),
           "--shape", args.shape]
    for o in options:
        cmd += ["--option", o]
    limit = min(90, budget.left() - 5)
    if limit < 5:
        return {"error": "not run: time budget"}
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after %.0f s" % limit}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def quiver_side(args, budget, results):
    q = results["quiver"]
    r = quiver_run(args, budget, 1, iters=args.iters, warmup=20)
    q["b1"] = r
    for batch, iters in ((32, 20), (128, 10)):
        q["b%d" % batch] = quiver_run(args, budget, batch, inflight=2, iters=max(3, iters // args.scale_down),
                                      warmup=2)
    for c in CLIENTS:
        iters = client_iters(c, args)
        warmup = max(3, 64 // c)
        q["c%d" % c] = quiver_run(args, budget, 1, clients=c, iters=iters, warmup=warmup)
        results["quiver_batching"]["c%d" % c] = quiver_run(args, budget, 1, clients=c, iters=iters, warmup=warmup,
                                                            options=BATCHING)
        log("quiver %d clients done (%.0f s left)" % (c, budget.left()))


# ------------------------------------------------------------------------------------------------
# PyTorch


def torch_side(args, budget, results, model_cpu):
    import torch

    if args.torch_fp32:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    results["torch_math"] = {"cudnn_tf32": torch.backends.cudnn.allow_tf32,
                             "matmul_tf32": torch.backends.cuda.matmul.allow_tf32}
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    model = model_cpu.to(dev).eval()
    shape = tuple(int(d) for d in args.shape.split(","))
    eager, graphs = results["torch_eager"], results["torch_graphs"]

    def capture(x, stream=None):
        """A CUDA graph of one forward pass on static input x; returns its replay function."""
        s = stream or torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            model(x)
        torch.cuda.synchronize()
        return g.replay

    def latency(fn, n, warmup=20):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        lat = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            lat.append(1e3 * (time.perf_counter() - t0))
        p50, p99 = percentiles(lat)
        return {"p50_ms": p50, "p99_ms": p99, "throughput_per_s": 1e3 / float(np.mean(lat))}

    def throughput(fn, batch, n):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        return {"throughput_per_s": batch * n / (time.perf_counter() - t0)}

    def clients(c, fns, iters):
        """c threads, each calling its own fn on its own stream iters times; img/s and latency."""
        lat, errors = [[] for _ in range(c)], []
        streams = [torch.cuda.Stream() for _ in range(c)]
        barrier = threading.Barrier(c + 1)

        def work(i):
            try:
                with torch.no_grad(), torch.cuda.stream(streams[i]):
                    fns[i]()
                    streams[i].synchronize()
                    barrier.wait()
                    for _ in range(iters):
                        t0 = time.perf_counter()
                        fns[i]()
                        streams[i].synchronize()
                        lat[i].append(1e3 * (time.perf_counter() - t0))
            except Exception as e:  # reported in the row, the other clients go on
                errors.append(repr(e))
                if not barrier.broken:
                    barrier.abort()

        threads = [threading.Thread(target=work, args=(i,)) for i in range(c)]
        for t in threads:
            t.start()
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        if errors:
            return {"error": errors[0]}
        p50, p99 = percentiles(sum(lat, []))
        return {"p50_ms": p50, "p99_ms": p99, "throughput_per_s": c * iters / wall}

    with torch.no_grad():
        for batch in (1, 32, 128):
            if budget.left() < 20:
                break
            x = torch.randn((batch,) + shape, device=dev)
            n = args.iters if batch == 1 else max(3, (20 if batch == 32 else 10) // args.scale_down)
            key = "b%d" % batch
            measure = (lambda fn: latency(fn, n)) if batch == 1 else (lambda fn: throughput(fn, batch, n))
            eager[key] = measure(lambda: model(x))
            try:
                graphs[key] = measure(capture(x))
            except Exception as e:  # capture failures are reported, not fatal
                graphs[key] = {"error": repr(e)}
            log("torch batch %d done (%.0f s left)" % (batch, budget.left()))
        inputs = [torch.randn((1,) + shape, device=dev) for _ in range(max(CLIENTS))]
        replays = []
        for c in CLIENTS:
            if budget.left() < 15:
                break
            iters = client_iters(c, args)
            eager["c%d" % c] = clients(c, [lambda x=x: model(x) for x in inputs[:c]], iters)
            try:
                while len(replays) < c and budget.left() > 10:
                    replays.append(capture(inputs[len(replays)]))
                graphs["c%d" % c] = (clients(c, replays[:c], iters) if len(replays) >= c
                                     else {"error": "not run: time budget (capturing graphs)"})
            except Exception as e:
                graphs["c%d" % c] = {"error": repr(e)}
            log("torch %d clients done (%.0f s left)" % (c, budget.left()))
        results["torch_gpu_out"] = model(torch.from_numpy(np.load(args.input)).to(dev)).cpu().numpy()


# ------------------------------------------------------------------------------------------------
# Report


def fmt(row, key, digits=1):
    if row is None:
        return "-"
    if "error" in row:
        return "error: " + row["error"][:60]
    return ("%." + str(digits) + "f") % row[key] if key in row else "-"


def timed_batches(run):
    """The batches a batching run formed in its timed phase (quiver_bench's statistics after the warm-up
    and at the end): "mean rows, padding share, sizes rows:count", or None."""
    if not run or "stats" not in run or "stats_before" not in run:
        return None
    before, after = run["stats_before"]["batches"], run["stats"]["batches"]
    count = after["count"] - before["count"]
    if count <= 0:
        return None
    rows = after["rows"] - before["rows"]
    padding = after["padding_rows"] - before["padding_rows"]
    sizes = {int(k): v - before["sizes"].get(k, 0) for k, v in after["sizes"].items()}
    common = sorted(((n, k) for k, n in sizes.items() if n > 0), reverse=True)[:4]
    return "%.1f rows, %.0f%% padding, %s" % (rows / count, 100.0 * padding / max(1, rows + padding),
                                              " ".join("%d:%d" % (k, n) for n, k in common))


def report(results):
    cols = ["quiver", "quiver_batching", "torch_eager", "torch_graphs"]
    math = results.get("torch_math")
    tf32 = " (TF32 convolutions)" if math and math["cudnn_tf32"] else " (FP32)" if math else ""
    head = ["Quiver", "Quiver + batching", "PyTorch eager" + tf32, "PyTorch CUDA graphs" + tf32]
    lines = ["| ResNet-50 FP32, %s | %s |" % (results["shape_note"], " | ".join(head)),
             "| --- | " + " | ".join("---" for _ in head) + " |"]

    def row(label, key, field, digits=1):
        lines.append("| %s | %s |" % (label, " | ".join(fmt(results[c].get(key), field, digits) for c in cols)))

    row("batch 1 p50 latency, ms", "b1", "p50_ms", 2)
    row("batch 1 p99 latency, ms", "b1", "p99_ms", 2)
    row("batch 32, img/s", "b32", "throughput_per_s")
    row("batch 128, img/s", "b128", "throughput_per_s")
    for c in CLIENTS:
        row("%d client(s) at batch 1, img/s" % c, "c%d" % c, "throughput_per_s")
        row("%d client(s) at batch 1, p50 ms" % c, "c%d" % c, "p50_ms", 2)
    for c in CLIENTS:
        formed = timed_batches(results["quiver_batching"].get("c%d" % c))
        if formed:
            lines.append("| %d client(s): batches formed (rows:count) | - | %s | - | - |" % (c, formed))

    def val(c, key, field):
        r = results[c].get(key) or {}
        return r.get(field) if "error" not in r else None

    targets = []
    q1, g1 = val("quiver", "b1", "p50_ms"), val("torch_graphs", "b1", "p50_ms")
    targets.append(("batch-1 p50 latency <= PyTorch with CUDA graphs",
                    "%s vs %s ms" % (_n(q1, 2), _n(g1, 2)), None if None in (q1, g1) else q1 <= g1))
    q128 = val("quiver", "b128", "throughput_per_s")
    t128 = [v for v in (val("torch_eager", "b128", "throughput_per_s"),
                        val("torch_graphs", "b128", "throughput_per_s")) if v is not None]
    best = max(t128) if t128 else None
    targets.append(("batch-128 throughput >= 0.9 x PyTorch's best", "%s vs %s img/s" % (_n(q128, 0), _n(best, 0)),
                    None if None in (q128, best) else q128 >= 0.9 * best))
    # Batching is held to what whole batches reach on this device (Quiver's batch-128 throughput), not
    # to a multiple of the unbatched figure: concurrent batch-1 clients already fill much of the GPU.
    u64, b64 = val("quiver", "c64", "throughput_per_s"), val("quiver_batching", "c64", "throughput_per_s")
    targets.append(("64 clients: batching >= 0.8 x Quiver's batch-128 throughput",
                    "%s vs %s img/s (%sx; unbatched %s)" % (_n(b64, 0), _n(q128, 0),
                                                            _n(b64 / q128 if b64 and q128 else None, 2), _n(u64, 0)),
                    None if None in (b64, q128) else b64 >= 0.8 * q128))
    for name, err in results["agreement"].items():
        targets.append(("outputs agree: %s (bound %.0e of scale)" % (name, BOUND),
                        _n(err, None), None if err is None else err <= BOUND))
    lines += ["", "| target | figures | met |", "| --- | --- | --- |"]
    lines += ["| %s | %s | %s |" % (t, f, "not measured" if m is None else ("yes" if m else "NO"))
              for t, f, m in targets]
    return lines, targets


def _n(v, digits):
    if v is None:
        return "n/a"
    return "%.2e" % v if digits is None else ("%." + str(digits) + "f") % v


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quiver-bench", required=True)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--json")
    parser.add_argument("--md")
    parser.add_argument("--summary", help="one line: each target, its figures and whether it was met")
    parser.add_argument("--budget", type=float, default=200)
    parser.add_argument("--device", default="gpu(0)", help="Quiver's device")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--torch-fp32", action="store_true",
                        help="PyTorch without TF32 (its default runs convolutions in TF32)")
    parser.add_argument("--export-dir")
    parser.add_argument("--shape", default="3,224,224")
    parser.add_argument("--iters", type=int, default=200, help="batch-1 latency iterations")
    parser.add_argument("--scale-down", type=int, default=1, help="divide the other iteration counts")
    args = parser.parse_args()
    budget = Budget(args.budget)
    args.quiver_device = args.device
    os.makedirs(args.work, exist_ok=True)
    results = {"quiver": {}, "quiver_batching": {}, "torch_eager": {}, "torch_graphs": {}, "agreement": {},
               "shape_note": "input %s, Quiver on %s" % (args.shape.replace(",", "x"), args.device)}
    model_cpu = None
    export_dir = args.export_dir or os.path.join(args.work, "export")
    if not args.export_dir:
        log("exporting torchvision's ResNet-50")
        try:
            subprocess.run([sys.executable, os.path.join(HERE, "export_resnet50.py"), "--out", export_dir],
                           check=True, timeout=max(10, min(120, budget.left() - 10)))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            log("the export failed: %s" % e)
            sys.exit(2)
    args.prefix = os.path.join(export_dir, "resnet50_tv")
    inputs = sorted(f for f in os.listdir(export_dir) if f.startswith("input-") and f.endswith(".npy"))
    args.input = os.path.join(export_dir, inputs[0])
    # Quiver's output on its device against torch's CPU output (or the export's reference).
    refs = [f for f in ("torch_cpu-out0.npy", "reference-out0.npy") if os.path.exists(os.path.join(export_dir, f))]
    try:
        proc = subprocess.run([args.runner, "--prefix", args.prefix, "--device", args.device, "--input", args.input,
                               "--out", os.path.join(args.work, "quiver")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=max(10, min(120, budget.left() - 10)))
        failure = None if proc.returncode == 0 else proc.stderr.strip()[-300:]
    except subprocess.TimeoutExpired:
        failure = "timed out"
    quiver_out = np.load(os.path.join(args.work, "quiver-out0.npy")) if failure is None else None
    if failure:
        log("quiver_run_fixture failed: " + failure)
    for ref in refs:
        want = np.load(os.path.join(export_dir, ref)).astype(np.float64)
        results["agreement"]["Quiver %s vs %s" % (args.device, ref.split("-")[0])] = (
            None if quiver_out is None else float(np.abs(quiver_out - want).max() / np.abs(want).max()))
    quiver_side(args, budget, results)
    if not args.no_torch:
        sys.path.insert(0, HERE)
        import export_resnet50

        model_cpu = export_resnet50.torch_model(json.load(open(os.path.join(export_dir, "export.json")))["seed"])
        try:
            torch_side(args, budget, results, model_cpu)
        except Exception as e:  # a failing PyTorch half still leaves Quiver's figures
            log("PyTorch side failed: %r" % e)
            results["torch_eager"].setdefault("b1", {"error": repr(e)})
        gpu_out = results.pop("torch_gpu_out", None)
        if gpu_out is not None and quiver_out is not None:
            results["agreement"]["Quiver %s vs torch_gpu" % args.device] = float(
                np.abs(quiver_out - gpu_out).max() / np.abs(gpu_out).max())
    lines, targets = report(results)
    print("\n".join(lines))
    results["targets"] = [{"target": t, "figures": f, "met": m} for t, f, m in targets]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(lines) + "\n")
    if args.summary:
        verdict = {True: "met", False: "NOT met", None: "not measured"}
        with open(args.summary, "w") as f:
            f.write("; ".join("%s: %s (%s)" % (t, fig, verdict[m]) for t, fig, m in targets) + "\n")
    sys.exit(0 if all(m for _, _, m in targets) else 1)


if __name__ == "__main__":
    main()
