"""ONNX Runtime under concurrent batch-1 clients sharing ONE InferenceSession: the baseline of
bench/compare_batching.sh. Prints one JSON line with the keys quiver_bench prints.

    <ort venv python> bench/ort_bench.py --model M.onnx --clients 16 [--iters 10] [--warmup 3]
        [--shape 3,224,224] [--threads N] [--check IN.f32,OUT.f32]

Each client thread runs session.run in a loop on its own random input; latency is one run call.
--threads sets intra_op_num_threads (default: ONNX Runtime's, one per usable core). --check runs the
recorded input first and reports the largest difference from the recorded (MXNet) output.
"""
import argparse
import json
import os
import sys

import numpy as np
import onnxruntime as ort

from client_threads import run_clients


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--shape", default="3,224,224")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--check", default="")
    args = parser.parse_args()
    shape = (1,) + tuple(int(d) for d in args.shape.split(","))

    options = ort.SessionOptions()
    if args.threads:
        options.intra_op_num_threads = args.threads
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    result = {"engine": "onnxruntime", "version": ort.__version__, "model": os.path.basename(args.model),
              "batch": 1, "clients": args.clients, "iters": args.iters, "warmup": args.warmup}
    if args.check:
        in_file, out_file = args.check.split(",")
        x = np.fromfile(in_file, dtype=np.float32).reshape(shape)
        expected = np.fromfile(out_file, dtype=np.float32).reshape(1, -1)
        got = session.run(None, {name: x})[0].reshape(1, -1)
        result["max_abs_diff_vs_mxnet"] = float(np.abs(got - expected).max())

    inputs = [np.random.default_rng(1234 + c).standard_normal(shape).astype(np.float32) for c in range(args.clients)]
    try:
        seconds, wall = run_clients(args.clients, args.warmup, args.iters,
                                    lambda c: session.run(None, {name: inputs[c]}))
    except Exception as error:
        sys.exit(f"ort_bench: {error!r}")
    all_ms = np.array(seconds) * 1e3
    result.update({"p50_ms": float(np.percentile(all_ms, 50)), "p90_ms": float(np.percentile(all_ms, 90)),
                   "p99_ms": float(np.percentile(all_ms, 99)), "mean_ms": float(all_ms.mean()),
                   "throughput_per_s": args.clients * args.iters / wall})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
