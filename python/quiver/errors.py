"""Exceptions raised by Quiver: one class per native status code, all subclasses of QuiverError."""
from __future__ import annotations

import concurrent.futures

from . import capi


class QuiverError(Exception):
    """A failure reported by the Quiver runtime.

    Attributes:
        status: the native ``QvStatus`` code.
        message: the runtime's message, naming what was wrong.
    """

    status: int = capi.QV_ERR_INTERNAL

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    @classmethod
    def from_message(cls, message: str) -> "QuiverError":
        """The exception for a failure detected on the Python side, with this class's status."""
        return cls(cls.status, message)


class InvalidArgumentError(QuiverError, ValueError):
    """A null handle, a bad flag, a wrong count (QV_ERR_INVALID_ARGUMENT)."""
    status = capi.QV_ERR_INVALID_ARGUMENT


class NotFoundError(QuiverError, LookupError):
    """A missing file, parameter or name (QV_ERR_NOT_FOUND)."""
    status = capi.QV_ERR_NOT_FOUND


class ParseError(QuiverError, ValueError):
    """Malformed symbol JSON or .params bytes (QV_ERR_PARSE)."""
    status = capi.QV_ERR_PARSE


class ShapeError(QuiverError, ValueError):
    """Shapes or dtypes that do not fit the graph (QV_ERR_SHAPE)."""
    status = capi.QV_ERR_SHAPE


class UnsupportedError(QuiverError):
    """An operator, dtype, device or file version Quiver does not run (QV_ERR_UNSUPPORTED)."""
    status = capi.QV_ERR_UNSUPPORTED


class BusyError(QuiverError):
    """max_inflight invocations are already in flight, or max_queue requests are queued (QV_ERR_BUSY)."""
    status = capi.QV_ERR_BUSY


class OutOfMemoryError(QuiverError, MemoryError):
    """An allocation failed or a size exceeds what can be allocated (QV_ERR_OUT_OF_MEMORY)."""
    status = capi.QV_ERR_OUT_OF_MEMORY


class DeviceError(QuiverError):
    """A device that is missing or failed (QV_ERR_DEVICE)."""
    status = capi.QV_ERR_DEVICE


class InternalError(QuiverError):
    """A bug in Quiver (QV_ERR_INTERNAL): please report it with the message."""
    status = capi.QV_ERR_INTERNAL


class CancelledError(QuiverError, concurrent.futures.CancelledError):
    """The prediction was cancelled (Future.cancel(), QV_ERR_CANCELLED)."""
    status = capi.QV_ERR_CANCELLED


class DeadlineExceededError(QuiverError, TimeoutError):
    """The prediction's deadline passed before it finished; the runtime dropped it
    (QV_ERR_DEADLINE_EXCEEDED)."""
    status = capi.QV_ERR_DEADLINE_EXCEEDED


class ClosedError(QuiverError, ValueError):
    """The object was closed: its native memory is released and it cannot be used any more."""
    status = capi.QV_ERR_INVALID_ARGUMENT


_BY_STATUS = {cls.status: cls for cls in (
    InvalidArgumentError, NotFoundError, ParseError, ShapeError, UnsupportedError, BusyError,
    OutOfMemoryError, DeviceError, InternalError, CancelledError, DeadlineExceededError)}

capi.set_error_classes(_BY_STATUS)


def error_for(status: int, message: str) -> QuiverError:
    """The exception for a native status code and message."""
    return _BY_STATUS.get(status, QuiverError)(status, message)
