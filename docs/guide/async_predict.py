"""Submit without blocking: a Future per prediction, or `await` from asyncio."""
import asyncio
import sys

import numpy as np

import quiver

with quiver.Predictor(sys.argv[1]) as predictor:
    x = np.zeros((1, 3, 16, 16), np.float32)
    futures = [predictor.predict_async(x) for _ in range(8)]  # all in flight at once
    print([f.done() for f in futures])                          # never blocks
    results = [f.result(timeout=60) for f in futures]           # waits

    async def main() -> None:
        scores = await predictor.apredict(x)  # the event loop keeps running meanwhile
        assert np.array_equal(scores, results[0])

    asyncio.run(main())
