"""The Python examples run end to end on the fixtures, as CI runs them."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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


def test_text_classifier_matches_mxnet(tmp_path):
    # A conformance model (Embedding -> bidirectional LSTM, NTC) and MXNet's recorded scores for its
    # batch of three 20-token sequences, given here as lines of ids.
    conformance = os.environ.get("QUIVER_CONFORMANCE_DIR", "")
    if not conformance or not (Path(conformance) / "text_lstm_bi2-in-3x20.npy").exists():
        message = "no conformance fixtures (QUIVER_CONFORMANCE_DIR): run tests/conformance/make_fixtures.sh ci"
        if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    ids = np.load(Path(conformance) / "text_lstm_bi2-in-3x20.npy").astype(np.int64)
    want = np.load(Path(conformance) / "text_lstm_bi2-out0-3x20.npy")
    ids_file = tmp_path / "ids.txt"
    # Two lengths: the 20-token lines and a 7-token prefix of the first (its own batch and plan).
    ids_file.write_text("\n".join(" ".join(map(str, row)) for row in ids) + "\n" + " ".join(map(str, ids[0, :7])))
    out = _run(str(EXAMPLES / "text_classifier.py"), str(Path(conformance) / "text_lstm_bi2"), str(ids_file),
               "--top-k", str(want.shape[1]))
    lines = [line for line in out.splitlines() if line.startswith("line ")]
    assert len(lines) == 4
    bound = 1e-4 * max(1.0, float(np.abs(want).max()))
    for line, row in zip(lines, want):
        got = {int(part.split()[1]): float(part.split()[2]) for part in line.split(": ", 1)[1].split(", ")}
        assert sorted(got) == list(range(want.shape[1]))
        assert max(abs(got[c] - row[c]) for c in got) <= bound, (line, row)
