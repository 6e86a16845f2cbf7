"""Future: the outputs of one asynchronous prediction, completed by the runtime's OnReady callback."""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, List, Optional

from . import capi
from .errors import CancelledError, ClosedError, InvalidArgumentError, QuiverError, error_for

_log = logging.getLogger("quiver")
# Set while done-callbacks run from the runtime's callback thread: every future completes there, so a
# callback that waits for an unfinished one would wait for ever (and stall every other future).
_in_done_callbacks = threading.local()


class Future:
    """The result of :meth:`Predictor.predict_async`.

    Completion comes from the runtime (``QvNDArrayOnReady``), not from a polling thread. ``done()``
    never blocks. Results are numpy arrays viewing a CPU model's output memory (no copy; a GPU model's
    are copied to the host), or :class:`~quiver.DeviceArray` objects for ``out="device"``.
    """

    def __init__(self, outputs: List[Any], keepalive: Any, unpack: Callable[[List[Any]], Any],
                 convert: Optional[Callable[[List[Any]], List[Any]]] = None) -> None:
        self._outputs = outputs          # native output handles, ours until collected
        self._keepalive = keepalive      # input memory the computation reads, dropped when it ends
        self._unpack = unpack
        self._convert = convert or to_numpy  # readable handles -> what result() returns
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._pending = len(outputs)
        self._failure: Optional[QuiverError] = None
        self._callbacks: List[Callable[["Future"], Any]] = []
        self._result: Any = None
        self._collected = False
        self._cancelled = False
        # Each registration holds a reference to this future until the runtime calls it back, which
        # keeps the inputs alive even if the caller drops the future.
        for handle in outputs:
            capi.on_ready(handle, self._on_ready)

    def done(self) -> bool:
        """True once the prediction has finished (successfully or not). Never blocks."""
        if self._finished.is_set() or self._cancelled:
            return True
        with self._lock:
            if self._collected:
                return True
            return all(capi.QvNDArrayCanRead(handle) for handle in self._outputs)

    def running(self) -> bool:
        return not self.done()

    def cancel(self) -> bool:
        """Cancels the prediction (QvCancel) unless it has finished: a queued one is dropped, a
        running one stops at its next operator (or leaves its batch at once). Returns True if it was
        cancelled; result() then raises CancelledError. Done-callbacks run once the runtime has let go
        of the inputs, which is at once for a queued prediction. Never blocks."""
        with self._lock:
            if self._cancelled:
                return True
            if self._finished.is_set() or self._collected:
                return False
            # Under the lock: close() cannot free the handle meanwhile.
            self._cancelled = bool(capi.QvCancel(self._outputs[0]))
            return self._cancelled

    def cancelled(self) -> bool:
        """True if cancel() cancelled the prediction."""
        return self._cancelled

    def result(self, timeout: Optional[float] = None) -> Any:
        """The prediction's output(s), waiting up to `timeout` seconds (None: no limit).

        Raises TimeoutError when it does not finish in time (the prediction goes on: give it a
        ``timeout`` at submission, or cancel() it, to have the runtime drop it), CancelledError after
        cancel(), or the QuiverError the computation failed with (for example ShapeError,
        DeadlineExceededError), naming the problem.
        """
        if self._cancelled:
            raise CancelledError.from_message("the prediction was cancelled")
        if getattr(_in_done_callbacks, "active", False) and not self._finished.is_set():
            raise InvalidArgumentError.from_message(
                "result() of an unfinished prediction inside a done-callback: the callback runs on the thread that "
                "completes every prediction, so the wait could never end; chain with add_done_callback instead")
        if not self._finished.wait(timeout):
            raise TimeoutError(f"the prediction did not finish within {timeout} s")
        with self._lock:
            if not self._collected:
                self._collect()
        if self._failure is not None:
            raise self._failure
        return self._result

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
        """The exception the prediction failed with, or None; waits like result()."""
        try:
            self.result(timeout)
        except CancelledError:
            raise  # as concurrent.futures does for a cancelled future
        except TimeoutError as error:
            if isinstance(error, QuiverError):  # DeadlineExceededError: the prediction's own outcome
                return error
            raise
        except QuiverError as error:
            return error
        return None

    def add_done_callback(self, fn: Callable[["Future"], Any]) -> None:
        """Calls fn(future) when the prediction finishes: at once if it has, otherwise on Quiver's
        callback thread. Callbacks must not block for long (result() of an unfinished future inside one
        raises InvalidArgumentError instead of blocking for ever); exceptions they raise are logged."""
        with self._lock:
            if not self._finished.is_set():  # set under this lock, when the callbacks are taken
                self._callbacks.append(fn)
                return
        self._call(fn)

    def close(self) -> None:
        """Releases outputs never collected with result(); safe while the prediction still runs (it
        completes and its memory is freed). result() then raises ClosedError. Idempotent."""
        with self._lock:
            if self._collected:
                return
            outputs, self._outputs = self._outputs, []
            self._collected = True
            if self._result is None and self._failure is None:
                self._failure = ClosedError.from_message("this Future was closed before its result was collected")
        for handle in outputs:
            capi.QvNDArrayFree(handle)

    def __repr__(self) -> str:
        if self._cancelled:
            state = "cancelled"
        elif not self._finished.is_set():
            state = "pending"
        elif self._failure is not None:
            state = f"failed: {type(self._failure).__name__}"
        else:
            state = "done"
        return f"<quiver.Future {state}>"

    def __enter__(self) -> "Future":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # The safety net for outputs never turned into numpy arrays.
        if hasattr(self, "_lock"):
            self.close()

    # -- runtime side -------------------------------------------------------------------------------

    def _on_ready(self, status: int, message: str) -> None:
        with self._lock:
            if status != capi.QV_OK and self._failure is None:
                self._failure = error_for(status, message)
            self._pending -= 1
            if self._pending:
                return
            self._keepalive = None
            self._finished.set()
            callbacks, self._callbacks = self._callbacks, []  # none can be added once finished
        outer = getattr(_in_done_callbacks, "active", False)
        _in_done_callbacks.active = True
        try:
            for fn in callbacks:
                self._call(fn)
        finally:
            _in_done_callbacks.active = outer

    def _collect(self) -> None:
        outputs, self._outputs = self._outputs, []
        self._collected = True
        if self._failure is not None:
            for handle in outputs:
                capi.QvNDArrayFree(handle)
            return
        try:
            self._result = self._unpack(self._convert(outputs))
        except QuiverError as error:
            self._failure = error

    def _call(self, fn: Callable[["Future"], Any]) -> None:
        try:
            fn(self)
        except Exception:  # a user callback's failure must not reach the runtime's thread
            _log.exception("quiver: exception in a Future done-callback")


def to_numpy(outputs: List[Any]) -> List[Any]:
    """numpy views of readable output handles; ownership of every handle moves to its array (on failure
    the handles not yet converted are freed)."""
    arrays = []
    for index, handle in enumerate(outputs):
        try:
            arrays.append(capi.array_to_numpy(handle))
        except BaseException:
            for rest in outputs[index:]:
                capi.QvNDArrayFree(rest)
            raise
    return arrays
