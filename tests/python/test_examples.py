"""The Python examples run end to end on the fixtures, as CI runs them."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600)
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_frame_classifier_matches_mxnets_accuracy(manifest):
    # MXNet's own accuracy on the same held-back digits, as the fixtures recorded it.
    model = manifest["models"]["digits_cnn"]
    count = model["split"]["test_count"]
    mxnet_correct = round(model["mxnet_test_accuracy"] * count)
    out = _run(str(EXAMPLES / "frame_classifier.py"), str(FIXTURES / "digits_cnn"),
               str(FIXTURES / "digits_cnn-in-360x1x8x8.f32"), str(FIXTURES / "digits_cnn-test-labels.i32"),
               "--synset", str(FIXTURES / "digits_cnn_synset.txt"), "--max-inflight", "4",
               "--min-accuracy", str(mxnet_correct / count))
    assert f"{mxnet_correct}/{count} correct" in out


def test_thread_pool_results_match_sequential(manifest):
    out = _run(str(EXAMPLES / "thread_pool.py"), str(FIXTURES / "tiny"), str(FIXTURES / "tiny-in-2x3x16x16.f32"),
               "--shape", "3,16,16", "--threads", "4", "--requests", "64")
    assert "0 mismatches" in out
