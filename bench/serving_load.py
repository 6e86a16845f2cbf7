"""Load for bench/compare_serving.sh: CLIENTS concurrent callers, each sending a batch-1 image request as
soon as its previous one is answered, for SECONDS after a warm-up; prints one JSON line (requests/s,
p50 and p99 latency in ms, errors).

    python bench/serving_load.py grpc HOST:PORT MODEL --clients 16 --seconds 10
    python bench/serving_load.py in-process PREFIX --clients 16 --seconds 10     (Quiver's apredict)

The callers are asyncio tasks of one process (tritonclient.grpc.aio over one channel for the servers),
so the load costs the same however many clients there are. Runs in the serving venv.
"""
import argparse
import asyncio
import json
import time
from typing import Any, Awaitable, Callable, List

import numpy as np

SHAPE = (1, 3, 224, 224)


async def drive(call: Callable[[], Awaitable[Any]], clients: int, warmup: float, seconds: float) -> dict:
    latencies: List[float] = []
    errors = [0]
    start = time.perf_counter()
    measure_from, stop_at = start + warmup, start + warmup + seconds

    async def client() -> None:
        while True:
            t0 = time.perf_counter()
            if t0 >= stop_at:
                return
            try:
                await call()
            except Exception:
                errors[0] += 1
                continue
            if t0 >= measure_from:
                latencies.append(time.perf_counter() - t0)

    await asyncio.gather(*(client() for _ in range(clients)))
    ms = np.array(latencies) * 1e3
    return {"clients": clients, "requests": len(latencies), "per_second": len(latencies) / seconds,
            "p50_ms": float(np.percentile(ms, 50)) if len(ms) else None,
            "p99_ms": float(np.percentile(ms, 99)) if len(ms) else None, "errors": errors[0]}


async def over_grpc(url: str, model: str, input_name: str, ns: argparse.Namespace) -> dict:
    import tritonclient.grpc.aio as grpc_client

    client = grpc_client.InferenceServerClient(url)
    image = np.random.default_rng(0).random(SHAPE, dtype=np.float32)
    entry = grpc_client.InferInput(input_name, list(SHAPE), "FP32")
    entry.set_data_from_numpy(image)
    try:
        return await drive(lambda: client.infer(model, [entry]), ns.clients, ns.warmup, ns.seconds)
    finally:
        await client.close()


async def in_process(prefix: str, ns: argparse.Namespace) -> dict:
    import quiver

    image = np.random.default_rng(0).random(SHAPE, dtype=np.float32)
    options = {"max_batch_size": ns.max_batch_size, "batch_timeout_us": ns.batch_timeout_us} \
        if ns.max_batch_size > 1 else {}
    with quiver.Predictor(prefix, input_descs=[quiver.DataDesc("data", SHAPE)], max_inflight=512,
                          options=options) as predictor:
        return await drive(lambda: predictor.apredict(image), ns.clients, ns.warmup, ns.seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("grpc", "in-process"))
    parser.add_argument("target", help="HOST:PORT (grpc) or the model prefix (in-process)")
    parser.add_argument("model", nargs="?", help="the model's name on the server (grpc)")
    parser.add_argument("--input", default="data", help="the model's input name (default data)")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--max-batch-size", type=int, default=16, help="in-process: Quiver's batching, as served")
    parser.add_argument("--batch-timeout-us", type=int, default=1000)
    ns = parser.parse_args()
    if ns.mode == "grpc":
        result = asyncio.run(over_grpc(ns.target, ns.model, ns.input, ns))
    else:
        result = asyncio.run(in_process(ns.target, ns))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
