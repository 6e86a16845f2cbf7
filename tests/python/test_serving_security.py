"""quiver.serving.security in plain Python (no serving engine): the Security settings, the token file,
and the REST guard (token, then body limit) as an ASGI middleware in front of a stand-in app."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, Optional

import pytest
from quiver.errors import InvalidArgumentError
from quiver.serving.security import Guard, Security, read_token


def _call(security: Security, path: str, headers: Dict[str, str], chunks: List[bytes]) -> Dict[str, Any]:
    """What Guard answers (status, body) and what the app behind it received (None: not called)."""
    seen: Dict[str, Any] = {"app_body": None}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        seen["app_body"] = message["body"]
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    incoming = [{"type": "http.request", "body": c, "more_body": i + 1 < len(chunks)} for i, c in enumerate(chunks)]

    async def receive() -> Dict[str, Any]:
        return incoming.pop(0)

    async def send(message: Dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            seen["status"] = message["status"]
        else:
            seen["body"] = message["body"]

    scope = {"type": "http", "path": path,
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(Guard(app, security=security)(scope, receive, send))
    return seen


def test_the_token_guards_every_path_but_health():
    security = Security(token="t0k3n", max_request_bytes=1 << 20)
    assert _call(security, "/v2/health/ready", {}, [b""])["status"] == 200
    refused = _call(security, "/v2/models/m/infer", {}, [b"{}"])
    assert refused["status"] == 401 and refused["app_body"] is None and "Bearer" in json.loads(refused["body"])["error"]
    assert _call(security, "/metrics", {"Authorization": "Bearer wrong"}, [b""])["status"] == 401
    assert _call(security, "/metrics", {"Authorization": "Bearer t0k3n"}, [b""])["status"] == 200


@pytest.mark.parametrize("declared", [True, False])
def test_bodies_over_the_limit_are_refused_before_the_app_sees_them(declared: bool):
    security = Security(max_request_bytes=100)
    chunks = [b"x" * 60, b"x" * 60]
    headers = {"Content-Length": "120"} if declared else {}
    refused = _call(security, "/v2/models/m/infer", headers, chunks)
    assert refused["status"] == 413 and refused["app_body"] is None and "100 bytes" in refused["body"].decode()
    fits = _call(security, "/v2/models/m/infer", {}, [b"x" * 50, b"y" * 50])
    assert fits["status"] == 200 and fits["app_body"] == b"x" * 50 + b"y" * 50  # replayed whole, once


def test_security_settings_are_checked(tmp_path):
    with pytest.raises(InvalidArgumentError, match="both a certificate and its key"):
        Security(tls_cert=str(tmp_path / "cert.pem"))
    with pytest.raises(InvalidArgumentError, match="does not exist"):
        Security(tls_cert=str(tmp_path / "cert.pem"), tls_key=str(tmp_path / "key.pem"))
    with pytest.raises(InvalidArgumentError, match="max_request_bytes"):
        Security(max_request_bytes=0)
    (tmp_path / "token").write_text("  s3cret \nsecond line\n")
    assert read_token(str(tmp_path / "token")) == "s3cret"
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(InvalidArgumentError, match="is empty"):
        read_token(str(tmp_path / "empty"))
    with pytest.raises(InvalidArgumentError, match="auth token file"):
        read_token(str(tmp_path / "missing"))
    assert Security(token="a").authorized("Bearer a") and not Security(token="a").authorized(None)
    assert Security().authorized(None)
