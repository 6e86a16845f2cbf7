"""One Predictor shared by threads: identical results to sequential runs; the GIL is free while it runs."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import quiver
from conftest import case, prefix


def test_8_threads_sharing_one_predictor_match_sequential_bit_for_bit(manifest):
    x, _, _ = case(manifest, "resnet18_v1", "b2_160")
    rng = np.random.default_rng(8)
    inputs = [rng.standard_normal(x.shape).astype(np.float32) for _ in range(16)]
    with quiver.Predictor(prefix("resnet18_v1")) as p:
        sequential = [p.predict(i) for i in inputs]
        with ThreadPoolExecutor(8) as pool:
            for _ in range(2):
                concurrent = list(pool.map(p.predict, inputs))
                for got, want in zip(concurrent, sequential):
                    np.testing.assert_array_equal(got, want)


def test_the_gil_is_released_while_a_prediction_runs(manifest):
    x, _, _ = case(manifest, "resnet18_v1", "b4_224")
    with quiver.Predictor(prefix("resnet18_v1")) as p:
        p.predict(x)  # compile the plan first
        ticks = 0
        stop = threading.Event()

        def predict_loop():
            for _ in range(3):
                p.predict(x)
            stop.set()

        worker = threading.Thread(target=predict_loop)
        worker.start()
        while not stop.is_set():
            ticks += 1  # only advances if predict() let go of the GIL
        worker.join()
    assert ticks > 1000
