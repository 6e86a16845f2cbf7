"""The measuring loop of `quiver bench`: client threads predicting back to back on one Predictor."""
from __future__ import annotations

import threading
import time
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence

import numpy as np

from .. import capi
from ..data_desc import DataDesc
from ..errors import InvalidArgumentError
from ..predictor import Predictor
from . import progress


class Sample(NamedTuple):
    end_s: float      # when the prediction finished, seconds after the measurement began
    latency_s: float


class Measurement(NamedTuple):
    samples: List[Sample]
    wall_s: float
    peak_bytes: int   # the most QvGetMemoryStats reported while the clients ran


def warm_up(predictor: Predictor, inputs: Mapping[str, np.ndarray]) -> float:
    """One prediction, timed apart: the first one pays for what only happens once."""
    start = time.perf_counter()
    predictor.predict(inputs)
    return time.perf_counter() - start


def run_clients(predictor: Predictor, inputs: Mapping[str, np.ndarray], clients: int, duration_s: float
                ) -> Measurement:
    """`clients` threads each predict back to back for `duration_s` (after one warm-up prediction each,
    so that every client's workspace exists before the clock starts)."""
    ready = threading.Barrier(clients + 1)
    stop = threading.Event()
    per_client: List[List[Sample]] = [[] for _ in range(clients)]
    failures: List[BaseException] = []
    origin = [0.0]

    def client(samples: List[Sample]) -> None:
        try:
            predictor.predict(inputs)
        except BaseException as error:  # reported by the main thread; the others stop
            failures.append(error)
            stop.set()
        ready.wait()
        while not stop.is_set():
            start = time.perf_counter()
            try:
                predictor.predict(inputs)
            except BaseException as error:
                failures.append(error)
                stop.set()
                return
            end = time.perf_counter()
            samples.append(Sample(end - origin[0], end - start))

    threads = [threading.Thread(target=client, args=(s,), daemon=True) for s in per_client]
    for thread in threads:
        thread.start()
    ready.wait()
    origin[0] = time.perf_counter()
    peak = _watch(stop, origin[0], duration_s)
    stop.set()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - origin[0]
    if failures:
        raise failures[0]
    samples = sorted((s for client_samples in per_client for s in client_samples), key=lambda s: s.end_s)
    return Measurement(samples, wall, peak)


def _watch(stop: threading.Event, origin: float, duration_s: float) -> int:
    """Shows the time spent and samples the runtime's memory until the duration is over."""
    peak = 0
    with progress.bar(round(duration_s, 1), "benchmarking", unit="s") as shown:
        shown_s = 0.0
        while not stop.wait(min(0.1, duration_s / 10)):
            peak = max(peak, int(capi.QvGetMemoryStats()[0]))
            elapsed = min(time.perf_counter() - origin, duration_s)
            shown.update(round(elapsed - shown_s, 1))
            shown_s += round(elapsed - shown_s, 1)
            if elapsed >= duration_s:
                break
    return max(peak, int(capi.QvGetMemoryStats()[0]))


def inputs_for(predictor: Predictor, descs: Sequence[DataDesc]) -> Dict[str, np.ndarray]:
    """random_inputs of the --shape sizes, one per input of the model; InvalidArgumentError naming the
    inputs no --shape gave."""
    by_name = {d.name: d.shape for d in descs}
    missing = [n for n in predictor.input_names if n not in by_name]
    if missing:
        raise InvalidArgumentError.from_message(f"no --shape for the model's input(s) {missing}")
    return random_inputs({n: by_name[n] for n in predictor.input_names})


def random_inputs(shapes: Mapping[str, Sequence[int]], seed: Optional[int] = 0) -> Dict[str, np.ndarray]:
    """Standard-normal float32 inputs by name: a fixed seed, so that runs are repeatable."""
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal(tuple(shape), dtype=np.float32) for name, shape in shapes.items()}
