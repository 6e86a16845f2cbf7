"""Futures and asyncio: done() never blocks, callbacks come from the runtime, results match predict()."""
from __future__ import annotations

import asyncio
import gc
import threading

import numpy as np
import pytest

import quiver
from conftest import case, prefix


@pytest.fixture(scope="module")
def resnet(manifest):
    with quiver.Predictor(prefix("resnet18_v1"), input_descs=[quiver.DataDesc("data", (4, 3, 224, 224))]) as p:
        yield p


def test_done_is_false_while_running_and_never_blocks(manifest, resnet):
    x, expected, scale = case(manifest, "resnet18_v1", "b4_224")
    future = resnet.predict_async(x)
    # A 4-image ResNet-18 takes far longer than submitting and asking: a blocking done() would say True.
    assert future.done() is False
    assert future.running()
    got = future.result()
    assert future.done() is True
    assert np.abs(got - expected).max() <= 1e-4 * scale


def test_result_timeout_raises_timeout_error(manifest, resnet):
    x, _, _ = case(manifest, "resnet18_v1", "b4_224")
    future = resnet.predict_async(x)
    with pytest.raises(TimeoutError):
        future.result(timeout=0)
    assert future.result(timeout=60).shape == (4, 1000)


def test_done_callback_runs_once_on_the_runtime_thread(manifest, resnet):
    x, _, _ = case(manifest, "resnet18_v1", "b1_224")
    fired = []
    event = threading.Event()

    def on_done(f):
        fired.append((threading.current_thread().ident, f.result(0).shape))
        event.set()

    future = resnet.predict_async(x)
    future.add_done_callback(on_done)
    assert event.wait(60)
    quiver.wait_all()
    assert fired == [(fired[0][0], (1, 1000))]
    assert fired[0][0] != threading.get_ident()
    late = []
    future.add_done_callback(lambda f: late.append(threading.get_ident()))  # already done: runs at once
    assert late == [threading.get_ident()]


def test_a_dropped_future_still_completes_and_frees_its_outputs(manifest, resnet):
    x, _, _ = case(manifest, "resnet18_v1", "b1_224")
    quiver.wait_all()
    before = quiver.memory_stats().arrays_alive
    resnet.predict_async(x.copy())  # dropped at once; the runtime keeps its input alive
    quiver.wait_all()
    import gc
    gc.collect()
    assert quiver.memory_stats().arrays_alive == before


def test_32_concurrent_apredict_match_predict(manifest):
    x, _, _ = case(manifest, "tiny", "b2_16")
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal(x.shape).astype(np.float32) for _ in range(32)]
    with quiver.Predictor(prefix("tiny")) as p:
        expected = [p.predict(b) for b in batches]

        async def main():
            return await asyncio.gather(*(p.apredict(b) for b in batches))

        got = asyncio.run(main())
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_apredict_compiles_new_shapes_off_the_event_loop(manifest, monkeypatch):
    """A shape's first submission compiles its plan: apredict makes it on an executor thread; once the
    shape has been submitted, on the loop's own thread (submitting is then quick)."""
    x, _, _ = case(manifest, "tiny", "b2_16")
    with quiver.Predictor(prefix("tiny")) as p:
        threads = []
        submit = p._submit

        def recording(*args):
            threads.append(threading.current_thread())
            return submit(*args)

        monkeypatch.setattr(p, "_submit", recording)

        async def main():
            loop_thread = threading.current_thread()
            first = await p.apredict(x)
            again = await p.apredict(x)
            other = await p.apredict(x[:1])
            return loop_thread, first, again, other

        loop_thread, first, again, other = asyncio.run(main())
        np.testing.assert_array_equal(first, p.predict(x))
        np.testing.assert_array_equal(again, first)
        np.testing.assert_allclose(other, first[:1], rtol=1e-5, atol=1e-6)
    assert threads[0] is not loop_thread and threads[1] is loop_thread and threads[2] is not loop_thread


def test_waiting_inside_a_done_callback_raises_instead_of_stalling_every_future(manifest, resnet):
    x, _, _ = case(manifest, "resnet18_v1", "b4_224")
    first = resnet.predict_async(x)
    seen = []
    done = threading.Event()

    def callback(_):
        # Submitted from the callback thread, which also completes it: it cannot be done yet.
        second = resnet.predict_async(x)
        try:
            second.result()
        except quiver.InvalidArgumentError as error:
            seen.append((error, second))
        done.set()

    first.add_done_callback(callback)
    assert done.wait(60), "the callback never ran"
    error, second = seen[0]
    assert "inside a done-callback" in str(error)
    assert second.result(60) is not None and first.result(60) is not None  # nothing stalled


def test_apredict_failure_raises_in_the_awaiting_task(manifest):
    with quiver.Predictor(prefix("tiny")) as p:
        async def main():
            await p.apredict(np.zeros((1, 4, 16, 16), np.float32))  # 4 channels, not 3

        with pytest.raises(quiver.ShapeError):
            asyncio.run(main())


def test_closing_a_future_in_flight_frees_its_outputs(manifest, resnet):
    x, _, _ = case(manifest, "resnet18_v1", "b4_224")
    quiver.wait_all()
    # Arrays an earlier test left in reference cycles (an exception's traceback holding its future) are
    # freed by the collector whenever it runs: now, not during this count.
    gc.collect()
    before = quiver.memory_stats().arrays_alive
    with resnet.predict_async(x) as future:
        assert not future.done()
    quiver.wait_all()
    assert future.done()
    with pytest.raises(quiver.ClosedError):
        future.result()
    assert quiver.memory_stats().arrays_alive == before
