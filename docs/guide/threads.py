"""One Predictor shared by many threads: parameters in memory once, invocations in parallel."""
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import quiver

with quiver.Predictor(sys.argv[1]) as predictor:
    requests = [np.full((1, 3, 16, 16), i, np.float32) for i in range(16)]
    with ThreadPoolExecutor(4) as pool:
        shared = list(pool.map(predictor.predict, requests))
    assert all(np.array_equal(a, predictor.predict(r)) for a, r in zip(shared, requests))
    print(quiver.memory_stats())
