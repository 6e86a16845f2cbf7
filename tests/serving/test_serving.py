"""`quiver serve` against Triton's own Python clients (tritonclient, HTTP and gRPC): metadata, results
equal to the Python API, Quiver's batching across concurrent clients, the protocol's errors, deadlines,
metrics, and a shutdown that answers every request in flight."""
from __future__ import annotations

import base64
import re
import subprocess
import sys
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

import numpy as np
import pytest
import quiver
import tritonclient.grpc as grpc_client
import tritonclient.http as http_client
from tritonclient.utils import InferenceServerException

from conftest import (ANIMALS, BATCH_TIMEOUT_US, COLOURS, IMAGE_KWARGS, png_images, rows, start_server,
                      stop_server)

# tritonclient's HTTP client sends a JSON-only request without a content type; KServe reads such a body
# as binary unless told.
JSON = {"Content-Type": "application/json"}


def http_input(name: str, array: np.ndarray, datatype: str, binary: bool = True) -> Any:
    entry = http_client.InferInput(name, list(array.shape), datatype)
    entry.set_data_from_numpy(array, binary_data=binary)
    return entry


def grpc_input(name: str, array: np.ndarray, datatype: str) -> Any:
    entry = grpc_client.InferInput(name, list(array.shape), datatype)
    entry.set_data_from_numpy(array)
    return entry


def metric(server, name: str, **labels: str) -> float:
    """One sample of the server's /metrics (0 when absent)."""
    text = urllib.request.urlopen(f"http://{server.http}/metrics", timeout=10).read().decode()
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        match = re.fullmatch(rf"{re.escape(name)}\{{(.*)\}} (\S+)", line)
        if match and all(part in match.group(1).split(",") for part in wanted.split(",")):
            return float(match.group(2))
    return 0.0


def test_health_and_metadata_over_http_and_grpc(server):
    http, grpc = http_client.InferenceServerClient(server.http), grpc_client.InferenceServerClient(server.grpc)
    for client in (http, grpc):
        assert client.is_server_live() and client.is_server_ready()
        assert all(client.is_model_ready(name) for name in ("two_out", "embed", "colours", "detector"))
    expected = {
        "two_out": ([("data", "FP32", [-1, 2, 3])], [("fc_output", "FP32", [-1, 4]), ("relu_output", "FP32", [-1, 2, 3])]),
        "embed": ([("data", "INT32", [-1, 3])], [("embed_output", "FP32", [-1, 3, 2])]),
        "colours": ([("image", "BYTES", [-1])], [("fc_output", "FP32", [-1, 3])]),
        "detector": ([("image", "BYTES", [-1])],
                     [("labels", "BYTES", [-1, -1]), ("scores", "FP32", [-1, -1]), ("boxes", "FP32", [-1, -1, 4])]),
    }
    for name, (inputs, outputs) in expected.items():
        from_http = http.get_model_metadata(name)
        from_grpc = grpc.get_model_metadata(name, as_json=True)
        for metadata in (from_http, from_grpc):
            assert metadata["name"] == name
            assert [(t["name"], t["datatype"], [int(d) for d in t["shape"]]) for t in metadata["inputs"]] == inputs
            assert [(t["name"], t["datatype"], [int(d) for d in t["shape"]]) for t in metadata["outputs"]] == outputs


def test_results_equal_the_python_api_over_every_transport(server, models):
    data = rows(5)
    with quiver.Predictor(models["two_out"]) as predictor:
        expected = predictor.predict_named(data)
    http = http_client.InferenceServerClient(server.http)
    grpc = grpc_client.InferenceServerClient(server.grpc)
    binary = http.infer("two_out", [http_input("data", data, "FP32")])
    as_json = http.infer("two_out", [http_input("data", data, "FP32", binary=False)], headers=JSON,
                         outputs=[http_client.InferRequestedOutput(n, binary_data=False) for n in expected])
    over_grpc = grpc.infer("two_out", [grpc_input("data", data, "FP32")])
    for result in (binary, as_json, over_grpc):
        for name, value in expected.items():
            np.testing.assert_array_equal(result.as_numpy(name), value)
    # One requested output is all that comes back.
    only_fc = grpc.infer("two_out", [grpc_input("data", data, "FP32")],
                         outputs=[grpc_client.InferRequestedOutput("fc_output")])
    assert only_fc.as_numpy("relu_output") is None
    np.testing.assert_array_equal(only_fc.as_numpy("fc_output"), expected["fc_output"])


def test_integer_inputs_are_taken_as_the_model_declares(server, models):
    ids = np.array([[0, 3, 9], [1, 1, 2]], np.int32)
    with quiver.Predictor(models["embed"], input_descs=[quiver.DataDesc("data", (1, 3), "int32", "")]) as p:
        expected = p.predict(ids)
    http = http_client.InferenceServerClient(server.http)
    grpc = grpc_client.InferenceServerClient(server.grpc)
    np.testing.assert_array_equal(http.infer("embed", [http_input("data", ids, "INT32")]).as_numpy("embed_output"),
                                  expected)
    np.testing.assert_array_equal(grpc.infer("embed", [grpc_input("data", ids, "INT32")]).as_numpy("embed_output"),
                                  expected)


def test_concurrent_clients_are_batched_by_quiver_bit_for_bit(server, models):
    clients = 16
    inputs = [rows(1, seed=100 + i) for i in range(clients)]
    with quiver.Predictor(models["two_out"]) as predictor:
        expected = [predictor.predict_named(x) for x in inputs]
    batches_before = _batched_rows(server)
    barrier = threading.Barrier(clients)

    def call(i: int) -> Any:
        client = grpc_client.InferenceServerClient(server.grpc) if i % 2 else http_client.InferenceServerClient(server.http)
        make = grpc_input if i % 2 else http_input
        barrier.wait()
        return client.infer("two_out", [make("data", inputs[i], "FP32")])

    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(call, range(clients)))
    for result, want in zip(results, expected):
        for name, value in want.items():
            np.testing.assert_array_equal(result.as_numpy(name), value)
    grown = {size: count - batches_before.get(size, 0) for size, count in _batched_rows(server).items()}
    assert sum(size * count for size, count in grown.items()) == clients
    assert any(size > 1 and count > 0 for size, count in grown.items()), f"no batch merged requests: {grown}"


def _batched_rows(server) -> Dict[int, float]:
    """quiver_batches_total of two_out by the rows its batches held."""
    text = urllib.request.urlopen(f"http://{server.http}/metrics", timeout=10).read().decode()
    found = re.findall(r'quiver_batches_total\{model="two_out",rows="(\d+)"\} (\S+)', text)
    return {int(size): float(count) for size, count in found}


def test_encoded_images_are_classified_as_the_image_classifier_does(server, models):
    images = png_images(4)
    with quiver.ImageClassifier(models["colours"], **IMAGE_KWARGS) as classifier:
        from PIL import Image
        import io

        decoded = [Image.open(io.BytesIO(b)).convert("RGB") for b in images]
        expected_scores = classifier.predict(classifier.preprocess(decoded))
        expected_labels = [best[0][0] for best in classifier.classify(decoded, top_k=1)]
    assert sorted(set(expected_labels)) == sorted(COLOURS)  # the images tell the classes apart
    http = http_client.InferenceServerClient(server.http)
    grpc = grpc_client.InferenceServerClient(server.grpc)
    # REST carries each image in base64 (KServe passes BYTES on over REST as text), gRPC as it is.
    in_base64 = np.array([base64.b64encode(b) for b in images], dtype=object)
    over_http = http.infer("colours", [http_input("image", in_base64, "BYTES")],
                           outputs=[http_client.InferRequestedOutput("fc_output", class_count=1)])
    over_grpc = grpc.infer("colours", [grpc_input("image", np.array(images, dtype=object), "BYTES")])
    np.testing.assert_array_equal(over_grpc.as_numpy("fc_output"), expected_scores)
    # Triton's classification extension: "score:index:label", best first.
    labels = [entry.decode().split(":")[2] for entry in over_http.as_numpy("fc_output").reshape(-1)]
    assert labels == expected_labels


def test_encoded_images_are_detected_as_the_object_detector_does(server, models):
    images = png_images(2)
    with quiver.ObjectDetector(models["detector"], input_descs=[quiver.DataDesc("data", (1, 3, 8, 8))]) as detector:
        from PIL import Image
        import io

        expected = detector.detect_batch([Image.open(io.BytesIO(b)) for b in images])
    assert expected[0] and expected[0][0][0] == ANIMALS[1]
    result = grpc_client.InferenceServerClient(server.grpc).infer(
        "detector", [grpc_input("image", np.array(images, dtype=object), "BYTES")])
    for i, found in enumerate(expected):
        assert [label.decode() for label in result.as_numpy("labels")[i]] == [d[0] for d in found]
        np.testing.assert_allclose(result.as_numpy("scores")[i], [d[1] for d in found], rtol=1e-6)
        np.testing.assert_allclose(result.as_numpy("boxes")[i], [d[2] for d in found], rtol=1e-6)


@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_bad_requests_get_the_protocols_errors_and_the_server_keeps_serving(server, transport):
    make, client = ((http_input, http_client.InferenceServerClient(server.http)) if transport == "http"
                    else (grpc_input, grpc_client.InferenceServerClient(server.grpc)))
    invalid = "400" if transport == "http" else "StatusCode.INVALID_ARGUMENT"
    not_found = "404" if transport == "http" else "StatusCode.NOT_FOUND"
    text = base64.b64encode(b"not an image") if transport == "http" else b"not an image"
    cases = [
        ("two_out", [make("data", np.zeros((2, 3, 2), np.float32), "FP32")], invalid, "shape [2, 3, 2]"),
        ("two_out", [make("data", np.zeros((2, 2, 3), np.int64), "INT64")], invalid, "datatype INT64"),
        ("two_out", [make("tokens", np.zeros((2, 2, 3), np.float32), "FP32")], invalid, "inputs ['data']"),
        ("colours", [make("image", np.array([text], dtype=object), "BYTES")], invalid, "not an image"),
        ("no_such_model", [make("data", rows(1), "FP32")], not_found, "no_such_model"),
    ]
    for model, inputs, status, words in cases:
        with pytest.raises(InferenceServerException) as caught:
            client.infer(model, inputs)
        assert caught.value.status() == status, caught.value
        assert words in caught.value.message(), caught.value
    data = rows(2)  # the server still answers, and right
    np.testing.assert_array_equal(client.infer("two_out", [make("data", data, "FP32")]).as_numpy("relu_output"),
                                  np.maximum(data, 0))


@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_a_request_past_its_deadline_is_refused_and_counted(server, transport):
    make, client = ((http_input, http_client.InferenceServerClient(server.http)) if transport == "http"
                    else (grpc_input, grpc_client.InferenceServerClient(server.grpc)))
    before = metric(server, "quiver_requests_ended_total", model="two_out", outcome="deadline_exceeded")
    with pytest.raises(InferenceServerException) as caught:
        # Triton's `timeout` request parameter, in microseconds: far less than two_out's batch timeout.
        client.infer("two_out", [make("data", rows(1), "FP32")], timeout=BATCH_TIMEOUT_US // 10)
    assert caught.value.status() == ("504" if transport == "http" else "StatusCode.DEADLINE_EXCEEDED")
    assert "deadline" in caught.value.message()
    after = metric(server, "quiver_requests_ended_total", model="two_out", outcome="deadline_exceeded")
    assert after == before + 1


@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_a_detection_past_its_deadline_is_refused_and_the_detector_keeps_serving(server, transport):
    images = np.array(png_images(1), dtype=object)
    if transport == "http":
        make, client = http_input, http_client.InferenceServerClient(server.http)
        images = np.array([base64.b64encode(b) for b in images], dtype=object)
    else:
        make, client = grpc_input, grpc_client.InferenceServerClient(server.grpc)
    with pytest.raises(InferenceServerException) as caught:
        client.infer("detector", [make("image", images, "BYTES")], timeout=1)  # 1 us: gone while decoding
    assert caught.value.status() == ("504" if transport == "http" else "StatusCode.DEADLINE_EXCEEDED")
    assert "timeout" in caught.value.message()
    found = client.infer("detector", [make("image", images, "BYTES")], timeout=60_000_000, priority=3)
    assert found.as_numpy("labels").shape[0] == 1


def test_metrics_carry_kserve_and_quiver_series(server):
    text = urllib.request.urlopen(f"http://{server.http}/metrics", timeout=10).read().decode()
    for series in ("quiver_requests_admitted_total", "quiver_run_seconds", "quiver_plans_compiled_total",
                   "request_predict_seconds"):
        assert f"{series}" in text, series
    assert metric(server, "quiver_requests_admitted_total", model="two_out") > 0


def test_shutdown_answers_every_request_in_flight(models, tmp_path):
    """SIGTERM while requests wait in Quiver's queue: each gets its result, then the process ends (0)."""
    clients = 12
    running = start_server([models["two_out"], "--shape", "data:1,2,3", "--max-batch-size", "64",
                            "--batch-timeout-us", "3000000"], tmp_path / "server.log")
    try:
        inputs = [rows(1, seed=200 + i) for i in range(clients)]
        with quiver.Predictor(models["two_out"]) as predictor:
            expected = [predictor.predict(x)[1] for x in inputs]

        def call(i: int) -> Any:
            if i % 2:
                client = grpc_client.InferenceServerClient(running.grpc)
                return client.infer("two_out", [grpc_input("data", inputs[i], "FP32")])
            return http_client.InferenceServerClient(running.http, network_timeout=60).infer(
                "two_out", [http_input("data", inputs[i], "FP32")])

        with ThreadPoolExecutor(clients) as pool:
            futures = [pool.submit(call, i) for i in range(clients)]
            _wait_until(lambda: metric(running, "quiver_requests_admitted_total", model="two_out") >= clients)
            assert not any(f.done() for f in futures), "the requests were answered before the shutdown"
            running.process.send_signal(15)
            results = [f.result(timeout=60) for f in futures]
        for result, want in zip(results, expected):
            np.testing.assert_array_equal(result.as_numpy("relu_output"), want)
        assert running.process.wait(60) == 0, running.log.read_text()[-4000:]
    finally:
        stop_server(running)


def _wait_until(condition: Any, timeout: float = 30) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_a_port_in_use_is_refused_in_one_line(server, models):
    busy = server.http.rsplit(":", 1)[1]
    done = subprocess.run([sys.executable, "-m", "quiver", "serve", models["two_out"], "--port", busy],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"quiver serve: error: 127.0.0.1 port {busy} cannot be served: Address already in use"], done.stderr


def test_a_gpu_model_answers_over_every_transport(models, tmp_path):
    """`--device gpu(0)` on the emulated GPU (QUIVER_EMULATED_GPU=1: host memory behind a device of its
    own, engine/backends/emulated_gpu): the outputs, which only a copy can read, equal the CPU's."""
    data = rows(3)
    with quiver.Predictor(models["two_out"]) as predictor:
        expected = predictor.predict_named(data)
    running = start_server([models["two_out"], "--device", "gpu(0)", "--shape", "data:1,2,3"],
                           tmp_path / "server.log", env={"QUIVER_EMULATED_GPU": "1"})
    try:
        http = http_client.InferenceServerClient(running.http).infer("two_out", [http_input("data", data, "FP32")])
        grpc = grpc_client.InferenceServerClient(running.grpc).infer("two_out", [grpc_input("data", data, "FP32")])
        for result in (http, grpc):
            for name, want in expected.items():
                np.testing.assert_array_equal(result.as_numpy(name), want)
    finally:
        assert stop_server(running) == 0, running.log.read_text()[-4000:]
