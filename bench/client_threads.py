"""The client threads of the Python benchmarks (python_bench.py, baseline_bench.py): each client makes
its warm-up calls, all start the timed calls together, and a call's latency is its wall time."""
import threading
import time
from typing import Callable, List, Tuple

import numpy as np


def run_clients(clients: int, warmup: int, iters: int, call: Callable[[int], object]) -> Tuple[List[float], float]:
    """Runs ``call(client)`` ``warmup`` times untimed, then ``iters`` times timed, in each of ``clients``
    threads. Returns the latencies of all timed calls in seconds and the seconds from the common start
    to the last client's end. A call's exception is raised here once every thread has stopped."""
    latencies: List[List[float]] = [[] for _ in range(clients)]
    finished = [0.0] * clients
    errors: List[BaseException] = []
    start_line = threading.Barrier(clients + 1)

    def client(c: int) -> None:
        try:
            for _ in range(warmup):
                call(c)
        except Exception as error:  # raised by run_clients; the others must still pass the start line
            errors.append(error)
        start_line.wait()
        if errors:
            return
        try:
            for _ in range(iters):
                t0 = time.perf_counter()
                call(c)
                latencies[c].append(time.perf_counter() - t0)
        except Exception as error:
            errors.append(error)
        finished[c] = time.perf_counter()

    threads = [threading.Thread(target=client, args=(c,), daemon=True) for c in range(clients)]
    for t in threads:
        t.start()
    start_line.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [x for per_client in latencies for x in per_client], max(finished) - start


def latency_summary(seconds: List[float], wall: float, images: int) -> dict:
    """The keys every benchmark prints: latency percentiles and mean of the calls in milliseconds, and
    images per second over the timed phase."""
    ms = np.array(seconds) * 1e3
    return {"p50_ms": float(np.percentile(ms, 50)), "p90_ms": float(np.percentile(ms, 90)),
            "p99_ms": float(np.percentile(ms, 99)), "mean_ms": float(ms.mean()), "throughput_per_s": images / wall}
