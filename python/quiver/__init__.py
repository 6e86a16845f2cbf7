"""Quiver: a thread-safe, asynchronous inference runtime for MXNet models.

Example::

    import quiver
    with quiver.Predictor("model/resnet18_v1", input_descs=[quiver.DataDesc("data", (1, 3, 224, 224))]) as p:
        scores = p.predict(batch)                # numpy in, numpy out
        future = p.predict_async(batch)          # future.done() never blocks
        scores = await p.apredict(batch)         # asyncio
"""

import atexit as _atexit
import json as _json
from typing import List as _List, NamedTuple as _NamedTuple, Tuple as _Tuple

from . import capi
from .calibration import calibrate
from .data_desc import DataDesc
from .device_array import DeviceArray
from .errors import (BusyError, CancelledError, ClosedError, DeadlineExceededError, DeviceError, InternalError,
                     InvalidArgumentError, NotFoundError, OutOfMemoryError, ParseError, QuiverError, ShapeError,
                     UnsupportedError)
from .classifier import Classifier
from .future import Future
from .image import ImageTransform
from .image_limits import ImageLimits
from .image_classifier import ImageClassifier
from .object_detector import ObjectDetector
from .predictor import Predictor
from .segmenter import Segmentation, Segmenter
from . import profiler

__all__ = [
    "__version__", "BusyError", "CancelledError", "Classifier", "calibrate", "ClosedError", "DataDesc", "DeadlineExceededError", "DeviceArray",
    "DeviceError",
    "Future", "ImageClassifier", "ImageLimits",
    "ImageTransform", "InternalError", "InvalidArgumentError", "MemoryStats", "NotFoundError", "ObjectDetector",
    "OutOfMemoryError", "ParseError", "Predictor", "QuiverError", "Segmentation", "Segmenter", "ShapeError",
    "UnsupportedError",
    "CachedOpFlag", "cached_op_flags", "get_num_threads", "memory_stats", "set_num_threads", "version", "wait_all",
]


class MemoryStats(_NamedTuple):
    """Native memory held by the runtime (QvGetMemoryStats)."""
    bytes_in_use: int
    arrays_alive: int


def memory_stats() -> MemoryStats:
    """Bytes of native array storage, parameters and workspaces, and arrays alive."""
    return MemoryStats(*capi.QvGetMemoryStats())


class CachedOpFlag(_NamedTuple):
    """One flag a model takes (Predictor's ``options``, ``quiver --option``): its default ("" if none)."""
    name: str
    default: str
    help: str


def cached_op_flags() -> _List[CachedOpFlag]:
    """Every cached-op flag the runtime takes, from the table it parses them with (QvListCachedOpFlags)."""
    return [CachedOpFlag(f["name"], f["default"], f["help"]) for f in _json.loads(capi.QvListCachedOpFlags())]


def set_num_threads(threads: int) -> None:
    """Sets how many threads may compute at once in this process, across every model (QvSetNumThreads).

    It starts as the smallest of the CPUs the process may use, QUIVER_NUM_THREADS and OMP_NUM_THREADS
    (which Spark and Ray set to the CPUs they give a worker process); kernels started afterwards share
    the new budget."""
    capi.QvSetNumThreads(int(threads))


def get_num_threads() -> int:
    """The compute-thread budget (QvGetNumThreads)."""
    return int(capi.QvGetNumThreads())


def version() -> _Tuple[int, int, int]:
    """The native library's (major, minor, patch)."""
    major, minor, patch = capi.QvGetVersion()
    return int(major), int(minor), int(patch)


# The native library's version (QvGetVersion), so that the package never claims another one.
__version__: str = ".".join(map(str, version()))


def wait_all() -> None:
    """Waits until all submitted work, and the callbacks it triggered, has finished."""
    capi.QvWaitAll()


# Finish native work (and its Python callbacks) before the interpreter shuts down.
_atexit.register(capi.QvWaitAll)
