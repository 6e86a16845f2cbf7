"""Runs QuiverModels in KServe's model server: REST and gRPC endpoints of the Open Inference Protocol,
health and readiness, and Prometheus metrics (KServe's and Quiver's per-model statistics) at /metrics."""
from __future__ import annotations

import os
import socket
import sys
from contextlib import contextmanager
from typing import Any, Iterator, List, Sequence

from ..errors import InvalidArgumentError
from ..metrics import prometheus_text
from .security import Security
from .settings import ModelSettings

DEFAULT_HTTP_PORT = 8080
DEFAULT_GRPC_PORT = 8081
# The runtime's share of the memory the process may use (physical, or the cgroup's limit) unless
# QUIVER_MEMORY_LIMIT says otherwise: the rest is for requests being decoded and answers being
# encoded, so that overload is answered 429 by the runtime instead of the kernel's OOM killer.
RUNTIME_MEMORY_SHARE = 0.75


@contextmanager
def _own_arguments() -> Iterator[None]:
    """KServe reads its options from sys.argv when first imported; Quiver's command line is not for it."""
    saved = sys.argv
    sys.argv = saved[:1]
    try:
        yield
    finally:
        sys.argv = saved


def _check_free(host: str, port: int) -> None:
    """Refuses an address that cannot be bound (another process listens there, or the host is not this
    machine's) before loading anything: the servers would fail later, with a traceback."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise InvalidArgumentError.from_message(f"{host} port {port} cannot be served: {error.strerror}") from None


def share_memory_with_requests() -> None:
    """QUIVER_MEMORY_LIMIT as RUNTIME_MEMORY_SHARE of what the process may use, unless it is set: before
    the models load, since the runtime reads it once, at its first allocation."""
    os.environ.setdefault("QUIVER_MEMORY_LIMIT", f"{round(RUNTIME_MEMORY_SHARE * 100)}%")


class StatsCollector:
    """Prometheus collector: each served model's Quiver statistics (quiver.metrics' series)."""

    def __init__(self, models: Sequence[Any]) -> None:
        self.models = list(models)

    def collect(self) -> Iterator[Any]:
        from prometheus_client.parser import text_string_to_metric_families

        stats = {m.name: m.predictor.stats() for m in self.models
                 if m.predictor is not None and not m.predictor.closed}
        if stats:
            yield from text_string_to_metric_families(prometheus_text(stats))


def load_models(settings: Sequence[ModelSettings]) -> List[Any]:
    """The models of `settings`, loaded (compiled, and warmed up where shapes are known)."""
    with _own_arguments():
        from .model import QuiverModel
    models = [QuiverModel(s) for s in settings]
    for model in models:
        model.load()
    return models


def serve(settings: Sequence[ModelSettings], http_port: int = DEFAULT_HTTP_PORT,
          grpc_port: int = DEFAULT_GRPC_PORT, grace_period: int = 30, security: Security = Security()) -> None:
    """Loads the models and serves them until SIGINT or SIGTERM; requests in flight then get their
    answers (up to `grace_period` seconds) before the process ends. `security` says where the servers
    listen and what a request needs (docs/serving.rst, Security)."""
    for port in (http_port, grpc_port):
        _check_free(security.host, port)
    share_memory_with_requests()
    models = load_models(settings)
    with _own_arguments():
        from kserve import model_server
        from prometheus_client import REGISTRY

        from .errors import ServingError, rest_handler
        from .kserve_servers import GuardedModelServer

    model_server.app.add_exception_handler(ServingError, rest_handler)
    REGISTRY.register(StatsCollector(models))
    GuardedModelServer(security, http_port=http_port, grpc_port=grpc_port, enable_latency_logging=False,
                       grace_period=grace_period).start(models)
