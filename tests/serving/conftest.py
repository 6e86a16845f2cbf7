"""Hand-made models (tests/python/mxnet_files.py) served by `quiver serve` in a subprocess on loopback
ports, for Triton's clients. Their results are exact in float32 (small integers), so any batching gives
the same bits as the Python API."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Iterator, List, NamedTuple, Optional

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mxnet_files import (COLOUR_IMAGE_KWARGS as IMAGE_KWARGS, COLOURS, coloured_pngs as png_images,  # noqa: E402,F401
                         constant_outputs_model, exact_rows as rows, mean_colour_model, params_bytes, symbol_json,
                         two_output_model, write_model)

ANIMALS = ["cat", "dog"]
# The detector's one output: a dog at (0.1, 0.2)-(0.5, 0.6) of the image, then a padding row.
DETECTIONS = np.array([[[1, 0.9, 0.1, 0.2, 0.5, 0.6], [-1, 0, 0, 0, 0, 0]]], np.float32)
# Long enough that concurrent requests meet in one batch on a busy 2-core machine.
BATCH_TIMEOUT_US = 50_000


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> Dict[str, str]:
    """two_out: data (rows, 2, 3) -> fc (rows, 4) and relu (rows, 2, 3); embed: int32 ids (rows, 3) ->
    (rows, 3, 2) vectors; colours: an NCHW image -> 3 scores; detector: an image -> DETECTIONS."""
    root = tmp_path_factory.mktemp("models")
    embed_weight = np.random.default_rng(40).integers(-9, 10, (10, 2)).astype(np.float32)
    found = {
        "two_out": write_model(root / "two_out", two_output_model(39)),
        "embed": write_model(root / "embed", (symbol_json([
            ("null", "data", {}, []), ("null", "embed_weight", {}, []),
            ("Embedding", "embed", {"input_dim": "10", "output_dim": "2"}, [0, 1])], [2]),
            params_bytes({"arg:embed_weight": embed_weight}))),
        "colours": write_model(root / "colours" / "colours", mean_colour_model()),
        "detector": write_model(root / "detector" / "detector", constant_outputs_model([DETECTIONS])),
    }
    (root / "colours" / "synset.txt").write_text("\n".join(COLOURS) + "\n")
    (root / "detector" / "synset.txt").write_text("\n".join(ANIMALS) + "\n")
    return found


def settings_for(models: Dict[str, str]) -> Dict[str, List[Dict[str, object]]]:
    """The settings file that serves every test model."""
    return {"models": [
        {"name": "two_out", "prefix": models["two_out"], "shapes": {"data": [1, 2, 3]},
         "batch_timeout_us": BATCH_TIMEOUT_US},
        {"name": "embed", "prefix": models["embed"], "shapes": {"data": [1, 3]}, "dtypes": {"data": "int32"}},
        {"name": "colours", "prefix": models["colours"], "kind": "image_classifier",
         "shapes": {"data": [1, 3, 8, 8]}, "kwargs": IMAGE_KWARGS},
        {"name": "detector", "prefix": models["detector"], "kind": "object_detector",
         "shapes": {"data": [1, 3, 8, 8]}},
    ]}


class Server(NamedTuple):
    process: "subprocess.Popen[bytes]"
    http: str
    grpc: str
    log: Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(arguments: List[str], log: Path, env: Optional[Dict[str, str]] = None,
                 client_options: Optional[Dict[str, object]] = None) -> Server:
    """`quiver serve ARGUMENTS` on two free ports, once it answers ready; `env` is added to the environment,
    `client_options` go to the HTTP client that asks (ssl=True for a server with TLS)."""
    import tritonclient.http as http_client

    http_port, grpc_port = free_port(), free_port()
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "quiver", "serve", *arguments, "--port", str(http_port),
                                    "--grpc-port", str(grpc_port)], stdout=out, stderr=subprocess.STDOUT,
                                   env={**os.environ, **(env or {})})
    server = Server(process, f"127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}", log)
    client = http_client.InferenceServerClient(server.http, **(client_options or {}))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"quiver serve exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            if client.is_server_ready():
                return server
        except Exception:  # not listening yet
            pass
        time.sleep(0.2)
    stop_server(server)
    raise AssertionError(f"quiver serve was not ready within 120 s:\n{log.read_text()[-4000:]}")


def stop_server(server: Server, timeout: float = 60) -> int:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
    try:
        return server.process.wait(timeout)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise AssertionError(f"quiver serve did not stop within {timeout} s:\n{server.log.read_text()[-4000:]}")


@pytest.fixture(scope="session")
def server(models, tmp_path_factory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("server")
    settings = folder / "models.json"
    settings.write_text(json.dumps(settings_for(models)))
    running = start_server(["--settings", str(settings)], folder / "server.log")
    yield running
    stop_server(running)
