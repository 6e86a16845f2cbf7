"""Errors answered with the protocol's status: one exception that is a gRPC status for KServe's gRPC
server and an HTTP status (with v2's ``{"error": ...}`` body) for its REST server."""
from __future__ import annotations

from typing import Any

from grpc import StatusCode
from grpc_interceptor.exceptions import GrpcException

from .. import errors as quiver_errors

# gRPC status -> HTTP status, as the gRPC/HTTP mapping of google.rpc.Code has them.
_HTTP_STATUS = {StatusCode.INVALID_ARGUMENT: 400, StatusCode.NOT_FOUND: 404, StatusCode.DEADLINE_EXCEEDED: 504,
                StatusCode.RESOURCE_EXHAUSTED: 429, StatusCode.CANCELLED: 499, StatusCode.UNAVAILABLE: 503,
                StatusCode.UNIMPLEMENTED: 501, StatusCode.INTERNAL: 500,
                StatusCode.PERMISSION_DENIED: 403, StatusCode.UNAUTHENTICATED: 401}

# Quiver's exceptions -> the status a client gets.
_BY_ERROR = ((quiver_errors.DeadlineExceededError, StatusCode.DEADLINE_EXCEEDED),
             (quiver_errors.BusyError, StatusCode.RESOURCE_EXHAUSTED),
             (quiver_errors.CancelledError, StatusCode.CANCELLED),
             (quiver_errors.ClosedError, StatusCode.UNAVAILABLE),
             (quiver_errors.UnsupportedError, StatusCode.UNIMPLEMENTED),
             (quiver_errors.OutOfMemoryError, StatusCode.RESOURCE_EXHAUSTED),
             (quiver_errors.InvalidArgumentError, StatusCode.INVALID_ARGUMENT),
             (quiver_errors.ShapeError, StatusCode.INVALID_ARGUMENT),
             (quiver_errors.ParseError, StatusCode.INVALID_ARGUMENT))


class ServingError(GrpcException):  # type: ignore[misc]  # GrpcException is untyped
    """A request's failure with its gRPC status and the matching HTTP status."""

    @property
    def http_status(self) -> int:
        return _HTTP_STATUS.get(self.status_code, 500)


def bad_request(message: str) -> ServingError:
    return ServingError(message, StatusCode.INVALID_ARGUMENT)


def from_quiver(error: quiver_errors.QuiverError) -> ServingError:
    """The protocol's answer to a Quiver exception, with its message."""
    status = next((code for cls, code in _BY_ERROR if isinstance(error, cls)), StatusCode.INTERNAL)
    return ServingError(error.message or type(error).__name__, status)


async def rest_handler(_: Any, error: ServingError) -> Any:
    """FastAPI's handler for ServingError: the status and v2's error body."""
    from fastapi.responses import JSONResponse

    return JSONResponse(status_code=error.http_status, content={"error": error.details})
