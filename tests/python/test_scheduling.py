"""The scheduling flags through Predictor (keywords and options=), deadlines (timeout=) and
Future.cancel(), driven from many threads."""
from __future__ import annotations

import concurrent.futures
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import quiver
from conftest import case, load_f32, prefix


def _digits(manifest):
    c = manifest["models"]["digits_cnn"]["cases"][0]
    return load_f32(c["input_file"], c["input_shape"])


def test_16_threads_through_a_batching_predictor_match_unbatched_and_mxnet(manifest):
    x, mxnet_out, scale = case(manifest, "resnet18_v1", "b4_224")
    rng = np.random.default_rng(16)
    inputs = [rng.standard_normal((1,) + x.shape[1:]).astype(np.float32) for _ in range(28)] + \
             [x[i:i + 1] for i in range(4)]
    with quiver.Predictor(prefix("resnet18_v1")) as plain:
        expected = [plain.predict(i) for i in inputs]
    with quiver.Predictor(prefix("resnet18_v1"), max_batch_size=8, batch_timeout_us=20000) as p:
        with ThreadPoolExecutor(16) as pool:
            got = list(pool.map(p.predict, inputs))
    tolerance = 1e-5 * max(np.abs(e).max() for e in expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        assert np.abs(g - e).max() <= tolerance
    # The MXNet-recorded rows: each request got its own.
    for i in range(4):
        assert np.abs(got[28 + i] - mxnet_out[i:i + 1]).max() <= 1e-4 * scale


def test_options_mapping_passes_the_flags_and_max_queue_gives_busy(manifest):
    x = _digits(manifest)[:1]
    with quiver.Predictor(prefix("digits_cnn"), options={"max_batch_size": 4, "batch_timeout_us": 60_000_000,
                                                        "max_queue": 1}) as p:
        first = p.predict_async(x)
        with pytest.raises(quiver.BusyError, match="max_queue"):
            p.predict_async(x)
        start = time.monotonic()
        assert first.cancel()
        assert first.cancelled() and first.done()
        with pytest.raises(quiver.CancelledError):
            first.result()
        with pytest.raises(concurrent.futures.CancelledError):  # what concurrent.futures users catch
            first.result()
        assert time.monotonic() - start < 5


def test_scheduling_keywords_are_checked(manifest):
    with pytest.raises(quiver.InvalidArgumentError, match="max_batch_size"):
        quiver.Predictor(prefix("digits_cnn"), max_batch_size=0)
    with pytest.raises(quiver.InvalidArgumentError, match="both"):
        quiver.Predictor(prefix("digits_cnn"), max_queue=3, options={"max_queue": 4})
    with quiver.Predictor(prefix("digits_cnn")) as p:
        with pytest.raises(quiver.InvalidArgumentError, match="timeout"):
            p.predict(_digits(manifest)[:1], timeout=0)


def test_a_timeout_ends_a_queued_prediction_with_deadline_exceeded(manifest):
    x = _digits(manifest)[:1]
    with quiver.Predictor(prefix("digits_cnn"), max_batch_size=8, batch_timeout_us=60_000_000) as p:
        start = time.monotonic()
        with pytest.raises(quiver.DeadlineExceededError) as info:
            p.predict(x, timeout=0.1)
        elapsed = time.monotonic() - start
        assert isinstance(info.value, TimeoutError)
        assert 0.09 <= elapsed < 5
        future = p.predict_async(x, timeout=0.05)
        assert isinstance(future.exception(), quiver.DeadlineExceededError)


def test_many_threads_cancelling_half_of_their_predictions(manifest):
    data = _digits(manifest)
    with quiver.Predictor(prefix("digits_cnn")) as plain:
        expected = plain.predict(data[:64])
    outcomes = []
    lock = threading.Lock()

    def client(t):
        futures = []
        for k in range(16):
            i = (t * 16 + k) % 64
            futures.append((i, p.predict_async(data[i:i + 1], priority=k % 3)))
        cancelled = [f.cancel() for n, (_, f) in enumerate(futures) if n % 2 == 0]
        for n, (i, f) in enumerate(futures):
            with lock:
                outcomes.append((i, n % 2 == 0 and cancelled[n // 2], f))

    with quiver.Predictor(prefix("digits_cnn"), max_batch_size=16, batch_timeout_us=2000, max_inflight=1024) as p:
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(client, range(8)))
        n_cancelled = 0
        for i, was_cancelled, f in outcomes:
            if was_cancelled:
                n_cancelled += 1
                with pytest.raises(quiver.CancelledError):
                    f.result(10)
            else:
                got = f.result(10)
                assert np.abs(got - expected[i:i + 1]).max() <= 1e-5 * np.abs(expected).max()
    assert len(outcomes) == 128
    assert n_cancelled > 0


def test_cancel_after_the_end_changes_nothing(manifest):
    x = _digits(manifest)[:1]
    with quiver.Predictor(prefix("digits_cnn")) as p:
        future = p.predict_async(x)
        result = future.result(10)
        assert not future.cancel()
        assert not future.cancelled()
        np.testing.assert_array_equal(future.result(), result)


def test_cancelling_an_asyncio_task_cancels_its_queued_prediction(manifest):
    import asyncio

    x = _digits(manifest)[:1]
    with quiver.Predictor(prefix("digits_cnn"), max_batch_size=8, batch_timeout_us=60_000_000) as p:
        async def main():
            task = asyncio.ensure_future(p.apredict(x))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        start = time.monotonic()
        asyncio.run(main())
        quiver.wait_all()  # returns once the dropped request has ended, not after the 60 s timeout
        assert time.monotonic() - start < 5
