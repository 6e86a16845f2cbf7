"""`quiver bench`: its numbers hang together, --plot writes a PNG, and refused flags fail cleanly."""
from __future__ import annotations

from cli_runner import one_line_error, quiver
from conftest import prefix


def test_json_report_of_two_clients_at_batch_2(manifest, tmp_path):
    plot = tmp_path / "bench.png"
    result = quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--batch-size", "2", "--clients", "2",
                    "--duration", "0.5", "--json", "--plot", str(plot))
    assert result.status == 0
    report = result.json()
    assert report["inputs"] == {"data": [2, 3, 16, 16]} and report["clients"] == 2 and report["batch_size"] == 2
    latency = report["latency_ms"]
    assert report["count"] > 0 and 0 < latency["min"] <= latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    throughput = report["throughput"]
    assert abs(throughput["samples_per_s"] - 2 * throughput["invocations_per_s"]) < 1e-6 * throughput["samples_per_s"]
    assert abs(throughput["invocations_per_s"] * report["duration_s"] - report["count"]) < 1e-6 * report["count"]
    assert report["duration_s"] >= 0.5
    # The model's parameters at least stay held while the clients run.
    assert report["memory"]["peak_bytes_in_use"] >= report["memory"]["bytes_in_use"] > 954 * 4
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_text_report_names_the_percentiles(manifest):
    result = quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--duration", "0.3")
    assert result.status == 0
    for line in ("p50:", "p90:", "p99:", "throughput:", "memory held:", "first inference:"):
        assert line in result.stdout


def test_stats_add_the_runtimes_counts_of_the_same_run(manifest):
    result = quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--clients", "2", "--duration", "0.3",
                    "--option", "max_batch_size=4", "--json", "--stats")
    assert result.status == 0
    report = result.json()
    requests = report["stats"]["requests"]
    # Each measured prediction, the warm-up and each client's own first one.
    assert requests["completed"] == requests["admitted"] == report["count"] + 1 + report["clients"]
    assert report["stats"]["plans"]["compiled"] >= 1
    text = quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--duration", "0.2", "--stats")
    assert text.status == 0
    for line in ("runtime statistics:", "  requests:", "  queue wait:", "  run:", "  batches:", "  plans:"):
        assert line in text.stdout
    assert "runtime statistics:" not in quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16",
                                               "--duration", "0.2").stdout


def test_precision_is_the_runtimes_flag_and_reported(manifest):
    result = quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--precision", "auto", "--duration", "0.2",
                    "--json")
    assert result.status == 0
    assert result.json()["precision"] in ("bfloat16", "float32")  # auto resolved, never "auto"
    assert quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--duration", "0.2",
                  "--json").json()["precision"] == "float32"
    one_line_error(quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--precision", "bf16"),
                   "bench", "'precision'", "bfloat16")


def test_errors_are_one_line_with_status_2(manifest, tmp_path):
    one_line_error(quiver("bench", prefix("tiny")), "bench", "--shape")
    one_line_error(quiver("bench", prefix("tiny"), "--shape", "data:1,3,16"), "bench", "conv1")
    one_line_error(quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--clients", "0"), "bench", "'0'")
    one_line_error(quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--option", "max_inflight"),
                   "bench", "max_inflight")
    one_line_error(quiver("bench", prefix("tiny"), "--shape", "data:1,3,16,16", "--plot",
                          str(tmp_path / "no" / "dir.png")), "bench", "dir")
    one_line_error(quiver("bench", str(tmp_path / "absent"), "--shape", "data:1,3,16,16"), "bench", "absent")
