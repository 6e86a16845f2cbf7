"""Latency and throughput of one model through the Python package, under concurrent client threads.

    python bench/python_bench.py --prefix P [--epoch 0] [--batch 1] [--clients 1] [--iters 50]
                                 [--warmup 5] [--shape 3,224,224]

The Python twin of quiver_bench (same arguments, same one-line JSON on stdout): client threads share
ONE Predictor; each calls predict() on its own random input (fixed seed) and a call's latency runs
from just before predict() to the numpy result in hand.
"""
from __future__ import annotations

import argparse
import json
import threading
import time

import numpy as np

import quiver


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--epoch", type=int, default=0)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--shape", default="3,224,224")
    args = parser.parse_args()

    shape = (args.batch,) + tuple(int(d) for d in args.shape.split(","))
    latencies: list = [[] for _ in range(args.clients)]
    with quiver.Predictor(args.prefix, args.epoch, input_descs=[quiver.DataDesc("data", shape)]) as predictor:
        start_line = threading.Barrier(args.clients + 1)

        def client(index: int) -> None:
            x = np.random.default_rng(index).standard_normal(shape).astype(np.float32)
            for _ in range(args.warmup):
                predictor.predict(x)
            start_line.wait()
            for _ in range(args.iters):
                t0 = time.perf_counter()
                predictor.predict(x)
                latencies[index].append(time.perf_counter() - t0)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        for t in threads:
            t.start()
        start_line.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0

    ms = np.array([x for per_client in latencies for x in per_client]) * 1e3
    print(json.dumps({
        "engine": "quiver-python", "model": args.prefix.rsplit("/", 1)[-1], "batch": args.batch,
        "clients": args.clients, "iters": args.iters, "p50_ms": float(np.percentile(ms, 50)),
        "p90_ms": float(np.percentile(ms, 90)), "p99_ms": float(np.percentile(ms, 99)),
        "throughput_per_s": args.batch * args.clients * args.iters / elapsed}))


if __name__ == "__main__":
    main()
