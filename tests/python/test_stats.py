"""Predictor.stats() and quiver.metrics.prometheus_text: the counts match what the callers saw, under
threads that cancel some predictions and let others pass their deadline."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import quiver
from conftest import prefix
from quiver.metrics import prometheus_text

_SAMPLE = re.compile(r'^([a-z_]+)\{([a-z_]+="[^"]*"(?:,[a-z_]+="[^"]*")*)\} (\S+)$')


def _digits_input(manifest):
    shape = manifest["models"]["digits_cnn"]["cases"][0]["input_shape"]
    return np.random.default_rng(3).standard_normal((1,) + tuple(shape[1:])).astype(np.float32)


def test_stats_count_what_the_callers_saw(manifest):
    x = _digits_input(manifest)
    with quiver.Predictor(prefix("digits_cnn"), max_batch_size=8, batch_timeout_us=2000) as p:
        def client(i):
            future = p.predict_async(x)
            if i % 3 == 1:
                future.cancel()
            try:
                future.result()
                return "completed"
            except quiver.CancelledError:
                return "cancelled"
            except Exception:  # noqa: BLE001 - anything else is a failure the test reports
                return "failed"

        with ThreadPoolExecutor(8) as pool:
            outcomes = list(pool.map(client, range(120)))
        stats = p.stats()
    requests = stats["requests"]
    assert requests["admitted"] == 120
    assert requests["completed"] == outcomes.count("completed") > 0
    assert requests["cancelled"] == outcomes.count("cancelled")
    assert requests["failed"] == outcomes.count("failed") == 0
    assert sum(int(size) * n for size, n in stats["batches"]["sizes"].items()) == stats["batches"]["rows"]
    assert stats["queue_wait_us"]["count"] >= requests["completed"]
    assert stats["plans"]["compiled"] >= 1


def test_requests_over_max_batch_size_share_one_count_not_a_size_each(manifest):
    x = _digits_input(manifest)
    with quiver.Predictor(prefix("digits_cnn"), max_batch_size=4) as p:
        for rows in (1, 3, 5, 9, 17, 33):
            p.predict(np.repeat(x[:1], rows, axis=0))
        batches = p.stats()["batches"]
        text = prometheus_text({"m": p.stats()})
    assert batches["sizes"] == {"1": 1, "3": 1}
    assert batches["oversize"] == 4 and batches["count"] == 6 and batches["rows"] == 68
    assert 'quiver_batches_oversize_total{model="m"} 4' in text
    assert len([line for line in text.splitlines() if line.startswith("quiver_batches_total")]) == 2


def test_prometheus_text_is_well_formed_and_carries_the_counts(manifest):
    x = _digits_input(manifest)
    with quiver.Predictor(prefix("digits_cnn")) as a, quiver.Predictor(prefix("digits_cnn"), max_batch_size=4) as b:
        for _ in range(3):
            a.predict(x)
        b.predict(x)
        text = prometheus_text({"plain": a.stats(), "batched": b.stats()})
    assert text.endswith("\n")
    families, samples = set(), {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            families.add(line.split()[2])
            continue
        if line.startswith("# HELP "):
            continue
        match = _SAMPLE.match(line)
        assert match, line
        samples[(match.group(1), match.group(2))] = float(match.group(3))
    assert {"quiver_requests_ended_total", "quiver_run_seconds", "quiver_batches_total"} <= families
    assert samples[("quiver_requests_ended_total", 'model="plain",outcome="completed"')] == 3
    assert samples[("quiver_requests_ended_total", 'model="batched",outcome="completed"')] == 1
    assert samples[("quiver_run_seconds_count", 'model="plain"')] == 3
    assert samples[("quiver_batches_total", 'model="batched",rows="1"')] == 1
    assert samples[("quiver_run_seconds", 'model="plain",quantile="0.99"')] > 0
