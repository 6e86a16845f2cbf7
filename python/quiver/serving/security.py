"""What stands between a network peer and the models: a shared-secret token on every route but health,
a request-body limit, TLS from certificate files, and (kserve_servers.py) KServe's model-control routes
turned off. Imports neither KServe nor gRPC until a server starts: the command line reads its defaults."""
from __future__ import annotations

import hmac
import os
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

from ..errors import InvalidArgumentError

# As Triton's default HTTP input cap: a request body larger than this is answered 413 unread.
DEFAULT_MAX_REQUEST_BYTES = 64 << 20
# What anyone may ask without the token: whether the server is up (load balancers and probes).
OPEN_HTTP_PATHS = frozenset({"/", "/v2/health/live", "/v2/health/ready"})
OPEN_GRPC_METHODS = frozenset({"/inference.GRPCInferenceService/ServerLive",
                               "/inference.GRPCInferenceService/ServerReady"})

Scope = Dict[str, Any]
Receive = Callable[[], Awaitable[Dict[str, Any]]]
Send = Callable[[Dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class Security:
    """How `quiver serve` faces the network.

    Args:
        host: the address both servers bind (127.0.0.1 by default; 0.0.0.0 in a container).
        token: when set, every route but health needs ``Authorization: Bearer TOKEN`` (REST) or the
            ``authorization`` metadata ``Bearer TOKEN`` (gRPC).
        tls_cert, tls_key: PEM files; both set serve REST over HTTPS and gRPC over TLS.
        max_request_bytes: the largest request body (REST) or message (gRPC) taken.
        model_control: whether KServe's repository routes (load and unload a model) answer.
    """

    host: str = "127.0.0.1"
    token: Optional[str] = None
    tls_cert: Optional[str] = None
    tls_key: Optional[str] = None
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    model_control: bool = False

    def __post_init__(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise InvalidArgumentError.from_message("TLS needs both a certificate and its key")
        for path in (self.tls_cert, self.tls_key):
            if path is not None and not os.path.isfile(path):
                raise InvalidArgumentError.from_message(f"TLS file {path} does not exist")
        if self.token is not None and not self.token:
            raise InvalidArgumentError.from_message("the auth token is empty")
        if self.max_request_bytes < 1:
            raise InvalidArgumentError.from_message("max_request_bytes must be positive")

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None

    def authorized(self, value: Optional[str]) -> bool:
        """Whether an Authorization header (or gRPC metadata) value carries the token."""
        if self.token is None:
            return True
        return value is not None and hmac.compare_digest(value.encode(), f"Bearer {self.token}".encode())


def read_token(path: str) -> str:
    """The token in a file (its first line): kept off the command line, where `ps` would show it."""
    try:
        with open(path, encoding="utf-8") as f:
            token = f.readline().strip()
    except OSError as error:
        raise InvalidArgumentError.from_message(f"auth token file {path}: {error.strerror}") from None
    if not token:
        raise InvalidArgumentError.from_message(f"auth token file {path} is empty")
    return token


class Guard:
    """ASGI middleware in front of KServe's REST app: the token, then the body limit (the body is read
    here, counted, and replayed to the app only when it fits)."""

    def __init__(self, app: App, security: Security) -> None:
        self.app = app
        self.security = security

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if scope.get("path") not in OPEN_HTTP_PATHS and not self.security.authorized(headers.get("authorization")):
            await _answer(send, 401, "this server needs its token: Authorization: Bearer TOKEN",
                          [(b"www-authenticate", b"Bearer")])
            return
        limit = self.security.max_request_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _answer(send, 413, f"the request body ({declared} bytes) is over the {limit} bytes allowed")
            return
        chunks: List[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            size += len(message.get("body", b""))
            if size > limit:
                await _answer(send, 413, f"the request body is over the {limit} bytes allowed")
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Dict[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)


async def _answer(send: Send, status: int, message: str, headers: Optional[List[Tuple[bytes, bytes]]] = None) -> None:
    import json

    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


def grpc_token_interceptor(security: Security) -> Any:
    """A gRPC server interceptor refusing calls without the token (health calls excepted)."""
    import grpc

    async def refuse(request: Any, context: Any) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "this server needs its token: authorization: Bearer TOKEN")

    class TokenInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc is untyped
        async def intercept_service(self, continuation: Any, details: Any) -> Any:
            handler = await continuation(details)
            metadata = dict(details.invocation_metadata or ())
            if details.method in OPEN_GRPC_METHODS or security.authorized(metadata.get("authorization")):
                return handler
            return grpc.unary_unary_rpc_method_handler(refuse)  # the v2 service's methods are all unary

    return TokenInterceptor()
