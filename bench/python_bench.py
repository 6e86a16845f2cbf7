"""Latency and throughput of one model through the Python package, under concurrent client threads.

    python bench/python_bench.py --prefix P [--epoch 0] [--batch 1] [--clients 1] [--iters 50]
                                 [--warmup 5] [--shape 3,224,224] [--input-name data]
                                 [--extra-input NAME:D0,...=V0,... ...]

The Python twin of quiver_bench (same arguments, same one-line JSON on stdout): client threads share
ONE Predictor; each calls predict() on its own random input (fixed seed) and a call's latency runs
from just before predict() to the numpy result in hand.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import quiver
from client_threads import latency_summary, run_clients
from model_inputs import add_input_arguments, extra_arrays, sample_shape


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--epoch", type=int, default=0)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    add_input_arguments(parser)
    args = parser.parse_args()

    shape = (args.batch,) + sample_shape(args)
    extras = extra_arrays(args.extra_input)
    descs = [quiver.DataDesc(args.input_name, shape, layout="")] + [quiver.DataDesc(n, a.shape, layout="")
                                                                 for n, a in extras.items()]
    with quiver.Predictor(args.prefix, args.epoch, input_descs=descs) as predictor:
        inputs = [{args.input_name: np.random.default_rng(c).standard_normal(shape).astype(np.float32), **extras}
                  for c in range(args.clients)]
        seconds, elapsed = run_clients(args.clients, args.warmup, args.iters, lambda c: predictor.predict(inputs[c]))

    print(json.dumps({"engine": "quiver-python", "model": args.prefix.rsplit("/", 1)[-1], "batch": args.batch,
                      "clients": args.clients, "iters": args.iters,
                      **latency_summary(seconds, elapsed, args.batch * args.clients * args.iters)}))


if __name__ == "__main__":
    main()
