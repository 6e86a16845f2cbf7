"""A request queue: predictions from many threads merged into batches of up to 8 rows."""
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import quiver

# Each request waits at most 2 ms for others; a full batch runs at once.
with quiver.Predictor(sys.argv[1], max_batch_size=8, batch_timeout_us=2000) as predictor:
    requests = [np.full((1, 3, 16, 16), i, np.float32) for i in range(32)]
    with ThreadPoolExecutor(8) as pool:
        batched = list(pool.map(predictor.predict, requests))
    print(f"{len(batched)} answers, each of shape {batched[0].shape}")
