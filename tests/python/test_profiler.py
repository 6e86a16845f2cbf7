"""quiver.profiler and `quiver profile`: spans of every operator of every prediction, a Chrome trace
file, aggregate statistics that add up, and nothing recorded outside the block."""
from __future__ import annotations

import json

import numpy as np
import pytest

import quiver
from cli_runner import one_line_error, quiver as run_quiver
from conftest import prefix


def test_profile_records_each_operator_of_each_prediction(manifest, tmp_path):
    x = np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32)
    with quiver.Predictor(prefix("tiny")) as p:
        p.predict(x)  # compiled outside the profile
        nodes = [n["name"] for n in p.describe()["nodes"]]
        trace_file = tmp_path / "trace.json"
        with quiver.profiler.profile(trace_file):
            for _ in range(3):
                p.predict(x)
        p.predict(x)  # after the block: not recorded
    trace = json.loads(trace_file.read_text())
    assert trace == quiver.profiler.trace()
    events = trace["traceEvents"]
    assert sum(e["cat"] == "invocation" for e in events) == 3
    operators = [e["name"] for e in events if e["cat"] == "operator"]
    assert sorted(operators) == sorted(nodes * 3)
    stats = quiver.profiler.aggregate()
    assert stats["invocations"]["count"] == 3
    assert sum(row["share"] for row in stats["nodes"]) == pytest.approx(1.0)
    # On the CPU a convolution says which kernel computed it (a oneDNN implementation or Winograd).
    convolutions = [row for row in stats["nodes"] if row["op"] == "Convolution"]
    assert convolutions and all(row["kernel"] for row in convolutions)
    table = quiver.profiler.table(top=3)
    assert "3 invocation(s)" in table and stats["nodes"][0]["node"] in table
    every_node = quiver.profiler.table(top=len(stats["nodes"]))
    assert all(row["kernel"] in every_node for row in convolutions)
    quiver.profiler.clear()
    assert quiver.profiler.trace()["traceEvents"] == []


def test_profile_command_prints_the_top_nodes_and_writes_the_trace(manifest, tmp_path):
    trace_file = tmp_path / "out.json"
    result = run_quiver("profile", prefix("tiny"), "--shape", "data:1,3,16,16", "--runs", "4", "--top", "2",
                        "--trace", str(trace_file))
    assert result.status == 0
    assert "4 invocation(s)" in result.stdout and "share" in result.stdout
    assert sum(e["cat"] == "invocation" for e in json.loads(trace_file.read_text())["traceEvents"]) == 4
    stats = run_quiver("profile", prefix("tiny"), "--shape", "data:1,3,16,16", "--runs", "2", "--json").json()
    assert stats["invocations"]["count"] == 2 and stats["operators"]
    one_line_error(run_quiver("profile", prefix("tiny")), "profile", "--shape")
