"""No growth of native memory (QvGetMemoryStats) or of the process's RSS over 10,000 predictions."""
from __future__ import annotations

import gc
import resource

import numpy as np

import quiver
from conftest import case, prefix


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def test_10k_predictions_keep_native_memory_and_rss_flat(manifest):
    x, _, _ = case(manifest, "tiny", "b2_16")
    with quiver.Predictor(prefix("tiny")) as p:
        expected = p.predict(x)
        for i in range(10_000):
            if i == 200:  # after warm-up: plans, pools and Python caches settled
                quiver.wait_all()
                gc.collect()
                stats, rss = quiver.memory_stats(), _rss_kib()
            if i % 2:
                got = p.predict(x)
            else:
                got = p.predict_async(x).result()
            if i % 1000 == 0:
                np.testing.assert_array_equal(got, expected)
        quiver.wait_all()
        gc.collect()
        after, rss_after = quiver.memory_stats(), _rss_kib()  # `got` alive now as at the warm-up mark
    print(f"native memory after warm-up {stats}, after 10k {after}; RSS {rss} KiB -> {rss_after} KiB")
    assert after.arrays_alive == stats.arrays_alive
    assert after.bytes_in_use <= stats.bytes_in_use + 64 * 1024
    assert rss_after - rss < 8 * 1024  # a leak of one 80-byte output per call would be ~800 KiB + overheads
