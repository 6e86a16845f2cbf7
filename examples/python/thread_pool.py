"""Serves requests from a thread pool that shares ONE Predictor (parameters in memory once).

    python thread_pool.py MODEL_PREFIX INPUT.f32 --shape 3,224,224 [--threads 4] [--requests 32]

Each request is the recorded input plus a little noise. Every thread's result is checked bit for bit
against the same request run sequentially, then the throughput of 1 thread and of --threads threads
is printed.
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import quiver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_prefix")
    parser.add_argument("input")
    parser.add_argument("--shape", required=True, help="C,H,W of one input")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--requests", type=int, default=32)
    args = parser.parse_args()

    shape = (1,) + tuple(int(d) for d in args.shape.split(","))
    base = np.fromfile(args.input, dtype=np.float32)[: int(np.prod(shape))].reshape(shape)
    rng = np.random.default_rng(0)
    requests = [base + rng.normal(0, 0.01, shape).astype(np.float32) for _ in range(args.requests)]

    with quiver.Predictor(args.model_prefix, input_descs=[quiver.DataDesc("data", shape)]) as predictor:
        start = time.perf_counter()
        sequential = [predictor.predict(r) for r in requests]
        one_thread = len(requests) / (time.perf_counter() - start)

        with ThreadPoolExecutor(args.threads) as pool:
            start = time.perf_counter()
            shared = list(pool.map(predictor.predict, requests))
            many_threads = len(requests) / (time.perf_counter() - start)

    mismatches = sum(not np.array_equal(a, b) for a, b in zip(shared, sequential))
    print(f"thread_pool: {len(requests)} requests, 1 thread {one_thread:.1f}/s, "
          f"{args.threads} threads sharing one predictor {many_threads:.1f}/s, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
