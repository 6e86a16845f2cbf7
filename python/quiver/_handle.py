"""Ownership of one native handle shared by threads: close() frees it once no call is using it."""
from __future__ import annotations

import threading
from typing import Any, Callable

from .errors import ClosedError


class NativeHandle:
    """Owns a native handle; `acquire()`/`release()` bracket each call that passes it to the runtime."""

    __slots__ = ("_handle", "_free", "_what", "_lock", "_users", "_closed")

    def __init__(self, handle: Any, free: Callable[[Any], None], what: str) -> None:
        self._handle = handle
        self._free = free
        self._what = what
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False

    def acquire(self) -> Any:
        """The handle, kept alive until the matching release(); ClosedError after close()."""
        with self._lock:
            if self._closed:
                raise ClosedError.from_message(f"{self._what} is closed")
            self._users += 1
            return self._handle

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            handle = self._take_if_unused()
        if handle is not None:
            self._free(handle)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Frees the handle now, or when the last call using it returns. Idempotent."""
        with self._lock:
            self._closed = True
            handle = self._take_if_unused()
        if handle is not None:
            self._free(handle)

    def _take_if_unused(self) -> Any:
        if not self._closed or self._users or self._handle is None:
            return None
        handle, self._handle = self._handle, None
        return handle
