"""Batch inference with Ray Data: an actor pool of quiver.ray.BatchPredictor over a data set's rows.

    python ray_predict.py MODEL_PREFIX ROWS.npy OUT.npz [--input data] [--actors 2] [--batch-size 16]

ROWS.npy holds one model input per row (N, ...). The data set gets two more columns, "id" and "note",
which the model does not take and which come back with the outputs. OUT.npz holds "id" and each
output, by name, in id order.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
import ray  # type: ignore[import-not-found]  # (mypy runs where ray is not installed)

from quiver.ray import BatchPredictor


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_prefix")
    parser.add_argument("rows")
    parser.add_argument("out")
    parser.add_argument("--input", default="data", help="the model input the rows are")
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    rows = np.load(args.rows)
    ray.init(num_cpus=args.actors, include_dashboard=False)
    ds = ray.data.from_items([{"id": i, "note": f"row {i}", args.input: row} for i, row in enumerate(rows)])
    predicted = ds.map_batches(BatchPredictor, fn_constructor_kwargs={"model_prefix": args.model_prefix},
                               batch_format="numpy", batch_size=args.batch_size, concurrency=args.actors,
                               num_cpus=1)
    results = sorted(predicted.iter_rows(), key=lambda row: int(row["id"]))
    outputs = [k for k in results[0] if k not in ("id", "note", args.input)]
    assert all(r["note"] == f"row {r['id']}" for r in results), "the extra columns did not come back"
    columns = {"id": np.array([r["id"] for r in results])}
    columns.update({k: np.stack([r[k] for r in results]) for k in outputs})
    np.savez(args.out, allow_pickle=False, **columns)
    print(f"{len(results)} rows, outputs {outputs}, {args.actors} actors")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
