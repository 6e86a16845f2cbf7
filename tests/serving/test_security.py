"""`quiver serve` facing hostile peers: loopback by default, a token on every route but health, bodies
over the limit answered 413, model control off, and image bombs refused with 400 while the
server's memory stays small and it keeps answering."""
from __future__ import annotations

import base64
import io
import json
import socket
import ssl
import sys
import subprocess
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, Optional, Tuple

import numpy as np
import pytest
import tritonclient.grpc as grpc_client
import tritonclient.http as http_client
from PIL import Image
from tritonclient.utils import InferenceServerException

from certificates import self_signed
from conftest import IMAGE_KWARGS, Server, png_images, rows, settings_for, start_server, stop_server
from test_serving import grpc_input, http_input

TOKEN = "s3cret-token-for-tests"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
# Small enough that a test can pass it, larger than every ordinary request here.
MAX_REQUEST_BYTES = 256 * 1024


@pytest.fixture(scope="module")
def guarded(models, tmp_path_factory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("guarded")
    (folder / "models.json").write_text(json.dumps(settings_for(models)))
    (folder / "token").write_text(TOKEN + "\n")
    running = start_server(["--settings", str(folder / "models.json"), "--auth-token-file", str(folder / "token"),
                            "--max-request-bytes", str(MAX_REQUEST_BYTES)], folder / "server.log")
    yield running
    stop_server(running)


def _get(url: str, headers: Optional[Dict[str, str]] = None, data: Optional[bytes] = None,
         context: Optional[ssl.SSLContext] = None) -> Tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_health_is_open_and_every_other_route_needs_the_token(guarded):
    base = f"http://{guarded.http}"
    for path in ("/v2/health/ready", "/v2/health/live"):
        assert _get(base + path)[0] == 200
    for path in ("/v2/models/two_out", "/v2/models/two_out/ready", "/metrics"):
        status, body = _get(base + path)
        assert status == 401 and b"Bearer" in body, (path, status, body)
        assert _get(base + path, {"Authorization": "Bearer wrong"})[0] == 401
        assert _get(base + path, BEARER)[0] == 200
    data = rows(2)
    http = http_client.InferenceServerClient(guarded.http)
    with pytest.raises(InferenceServerException) as caught:
        http.infer("two_out", [http_input("data", data, "FP32")])
    assert caught.value.status() == "401"
    answer = http.infer("two_out", [http_input("data", data, "FP32")], headers=BEARER)
    np.testing.assert_array_equal(answer.as_numpy("relu_output"), np.maximum(data, 0))

    grpc = grpc_client.InferenceServerClient(guarded.grpc)
    assert grpc.is_server_ready() and grpc.is_server_live()
    with pytest.raises(InferenceServerException) as caught:
        grpc.infer("two_out", [grpc_input("data", data, "FP32")])
    assert caught.value.status() == "StatusCode.UNAUTHENTICATED"
    with pytest.raises(InferenceServerException):
        grpc.get_model_metadata("two_out")
    answer = grpc.infer("two_out", [grpc_input("data", data, "FP32")], headers={"authorization": f"Bearer {TOKEN}"})
    np.testing.assert_array_equal(answer.as_numpy("relu_output"), np.maximum(data, 0))


def test_bodies_over_the_limit_are_refused_unread(guarded):
    big = np.zeros((MAX_REQUEST_BYTES // 24 + 64, 2, 3), np.float32)  # just over the limit in binary form
    http = http_client.InferenceServerClient(guarded.http)
    with pytest.raises(InferenceServerException) as caught:
        http.infer("two_out", [http_input("data", big, "FP32")], headers=BEARER)
    assert caught.value.status() == "413" and str(MAX_REQUEST_BYTES) in caught.value.message()
    # A chunked body is counted as it arrives: tests/python/test_serving_security.py holds that against
    # the guard itself. Over a socket the client may still be sending when the 413 comes and the
    # connection closes (broken pipe), so the answer cannot be read reliably here.
    grpc = grpc_client.InferenceServerClient(guarded.grpc)
    with pytest.raises(InferenceServerException) as caught:
        grpc.infer("two_out", [grpc_input("data", big, "FP32")], headers={"authorization": f"Bearer {TOKEN}"})
    assert caught.value.status() == "StatusCode.RESOURCE_EXHAUSTED"
    data = rows(1)
    answer = http.infer("two_out", [http_input("data", data, "FP32")], headers=BEARER)
    np.testing.assert_array_equal(answer.as_numpy("relu_output"), np.maximum(data, 0))


def test_model_control_is_off_so_no_request_can_unload_a_model(guarded):
    status, body = _get(f"http://{guarded.http}/v2/repository/models/two_out/unload", BEARER, data=b"{}")
    assert status == 403 and b"model control is off" in body
    grpc = grpc_client.InferenceServerClient(guarded.grpc)
    with pytest.raises(InferenceServerException) as caught:
        grpc.unload_model("two_out", headers={"authorization": f"Bearer {TOKEN}"})
    assert caught.value.status() == "StatusCode.PERMISSION_DENIED"
    assert _get(f"http://{guarded.http}/v2/models/two_out/ready", BEARER)[0] == 200


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


def test_image_bombs_are_refused_with_400_and_the_server_stays_small(guarded):
    """A 20 KB PNG of 13000 x 13000 pixels (507 MB decoded), a GIF, a 100000 x 1 strip, malformed
    parameters and too many rows: each gets its answer, the peak RSS grows by less than 150 MB."""
    bomb = _png(Image.new("1", (13000, 13000)))
    strip = _png(Image.new("RGB", (100000, 1), (200, 10, 10)))
    gif = io.BytesIO()
    Image.new("RGB", (8, 8)).save(gif, format="GIF")
    http = http_client.InferenceServerClient(guarded.http)

    def infer(model: str, images: Any, **options: Any) -> Any:
        encoded = np.array([base64.b64encode(b) for b in images], dtype=object)
        return http.infer(model, [http_input("image", encoded, "BYTES")], headers=BEARER, **options)

    before = _peak_rss_kib(guarded.process.pid)
    cases = [("colours", [bomb], {}, "max_pixels"), ("detector", [bomb, png_images(1)[0]], {}, "max_pixels"),
             ("colours", [gif.getvalue()], {}, "allowed format"),
             ("colours", png_images(17), {}, "at most 16 per request")]
    # Parameters tritonclient will not send (it reserves "priority"): as plain JSON.
    malformed = [("colours", {"priority": "high"}, "'priority' must be a number"),
                 ("detector", {"threshold": "nan"}, "'threshold' must be finite"),
                 ("two_out", {"timeout": "soon"}, "'timeout' must be a number")]
    for _ in range(3):
        for model, images, options, words in cases:
            with pytest.raises(InferenceServerException) as caught:
                infer(model, images, **options)
            assert caught.value.status() == "400" and words in caught.value.message(), (model, str(caught.value))
        for model, parameters, words in malformed:
            entry = ({"name": "data", "shape": [1, 2, 3], "datatype": "FP32", "data": [0] * 6} if model == "two_out"
                     else {"name": "image", "shape": [1], "datatype": "BYTES",
                           "data": [base64.b64encode(png_images(1)[0]).decode()]})
            body = json.dumps({"inputs": [entry], "parameters": parameters}).encode()
            status, answer = _get(f"http://{guarded.http}/v2/models/{model}/infer",
                                  {**BEARER, "Content-Type": "application/json"}, data=body)
            assert status == 400 and words in answer.decode(), (model, status, answer)
    assert [p.decode().split(":")[2] for p in infer(
        "colours", [strip], outputs=[http_client.InferRequestedOutput("fc_output", class_count=1)]
    ).as_numpy("fc_output").reshape(-1)] == ["red"]
    grew_mib = (_peak_rss_kib(guarded.process.pid) - before) / 1024
    assert grew_mib < 150, f"the peak RSS grew by {grew_mib:.0f} MiB"
    assert _get(f"http://{guarded.http}/v2/health/ready")[0] == 200


def _other_address() -> Optional[str]:
    """An address of this machine that is not loopback (the one a route out would use), if any."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks a route
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_the_servers_listen_on_loopback_unless_told(guarded):
    address = _other_address()
    if address is None:
        pytest.skip("this machine has no address but loopback: nothing to reach the server from")
    for port in (guarded.http.rsplit(":", 1)[1], guarded.grpc.rsplit(":", 1)[1]):
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((address, int(port)), timeout=5).close()


def test_a_host_that_is_not_this_machine_is_refused_before_loading(models):
    done = subprocess.run([sys.executable, "-m", "quiver", "serve", models["two_out"],
                           "--host", "192.0.2.1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "192.0.2.1 port 8080 cannot be served" in done.stderr, done.stderr


def test_tls_serves_rest_and_grpc_encrypted_and_nothing_in_the_clear(models, tmp_path):
    cert, key = self_signed(tmp_path)
    trusted = {"ssl": True, "ssl_context_factory": lambda: ssl.create_default_context(cafile=str(cert))}
    running = start_server([models["two_out"], "--shape", "data:1,2,3", "--tls-cert", str(cert),
                            "--tls-key", str(key)], tmp_path / "server.log", client_options=trusted)
    try:
        data = rows(2)
        over_https = http_client.InferenceServerClient(running.http, **trusted).infer(
            "two_out", [http_input("data", data, "FP32")])
        np.testing.assert_array_equal(over_https.as_numpy("relu_output"), np.maximum(data, 0))
        secure_grpc = grpc_client.InferenceServerClient(running.grpc, ssl=True, root_certificates=str(cert))
        np.testing.assert_array_equal(secure_grpc.infer("two_out", [grpc_input("data", data, "FP32")])
                                      .as_numpy("relu_output"), np.maximum(data, 0))
        # A client that does not trust the certificate is refused by its own check; one in the clear gets nothing.
        with pytest.raises(ssl.SSLCertVerificationError):
            http_client.InferenceServerClient(running.http, ssl=True).is_server_ready()
        with pytest.raises(Exception) as clear:
            _get(f"http://{running.http}/v2/health/ready")
        assert not isinstance(clear.value, AssertionError)
        with pytest.raises(InferenceServerException) as clear_grpc:
            grpc_client.InferenceServerClient(running.grpc).is_server_ready()
        assert clear_grpc.value.status() == "StatusCode.UNAVAILABLE"
    finally:
        assert stop_server(running) == 0

