"""Tensors that stay on their device: inputs from PyTorch, CuPy or JAX read in place (DLPack, the CUDA
array interface) and outputs left where the model computed them (``predict(..., out="device")``)."""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import capi
from ._dtypes import CODES, DTYPES
from ._handle import NativeHandle
from .errors import InvalidArgumentError

# DLPack's device types (dlpack.h): the CPU, a CUDA GPU, and pinned host memory a GPU can reach.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST = 1, 2, 3
# CUDA's legacy default stream: what a DLPack producer synchronises with when asked for stream=None.
_LEGACY_DEFAULT_STREAM = 1


def device_id(device: str) -> int:
    """The N of "gpu(N)" or "cpu(N)"; 0 for "cpu"."""
    match = re.fullmatch(r"\s*(?:cpu|gpu)\s*(?:\(\s*(\d+)\s*\))?\s*", device)
    return int(match.group(1) or 0) if match else 0


def is_device_tensor(value: Any) -> bool:
    """Whether `value` is a tensor in GPU memory (it exports the CUDA array interface, or DLPack on a
    device other than the host), which Quiver reads in place instead of through numpy."""
    if isinstance(value, np.ndarray):
        return False
    if hasattr(value, "__cuda_array_interface__"):
        return True
    return hasattr(value, "__dlpack__") and _dlpack_device(value)[0] not in (_DL_CPU, _DL_CUDA_HOST)


def host_view(value: Any) -> Any:
    """A numpy view of a host tensor that exports DLPack but not numpy's protocols; `value` otherwise."""
    if not isinstance(value, np.ndarray) and hasattr(value, "__dlpack__") and not hasattr(value, "__array__"):
        return np.from_dlpack(value)
    return value


def input_handle(value: Any, dev_id: int) -> Any:
    """A native array over a device tensor's memory, without copying, ordered after the producer's
    stream; the tensor is kept alive until no work reads it. `dev_id`: the model's GPU, for the CUDA
    array interface (which does not say which device its pointer is on)."""
    # A DeviceArray goes through DLPack, whose export holds its memory even if it is closed meanwhile.
    interface = None if isinstance(value, DeviceArray) else getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return _from_cuda_array_interface(value, interface, dev_id)
    device_type, _ = _dlpack_device(value)
    if device_type != _DL_CUDA:
        raise InvalidArgumentError.from_message(
            f"a DLPack tensor on device type {device_type} cannot be read: Quiver takes host and CUDA tensors")
    # stream=None asks the producer to make its work visible to the legacy default stream, which the
    # runtime then waits for before anything reads the tensor.
    return capi.array_from_dlpack(value.__dlpack__(), _LEGACY_DEFAULT_STREAM)


def _dlpack_device(value: Any) -> Tuple[int, int]:
    device = value.__dlpack_device__()
    return int(device[0]), int(device[1])


def _from_cuda_array_interface(value: Any, interface: Dict[str, Any], dev_id: int) -> Any:
    shape = tuple(int(d) for d in interface["shape"])
    dtype = np.dtype(interface["typestr"])
    if dtype not in CODES or not dtype.isnative:
        raise InvalidArgumentError.from_message(
            f"__cuda_array_interface__ type {interface['typestr']!r} has no Quiver equivalent "
            "(native float32, float64, float16, uint8, int8, int32, int64)")
    strides = interface.get("strides")
    if strides is not None and tuple(strides) != _row_major_strides(shape, dtype.itemsize):
        raise InvalidArgumentError.from_message(
            f"the tensor is not dense and row-major (strides {tuple(strides)} for shape {shape}): make it "
            "contiguous first")
    pointer = int(interface["data"][0])
    stream = interface.get("stream") if int(interface.get("version", 0)) >= 3 else None
    return capi.array_from_device_pointer(pointer, shape, CODES[dtype], capi.QV_GPU, dev_id,
                                          int(stream or 0), value)


def _row_major_strides(shape: Tuple[int, ...], itemsize: int) -> Tuple[int, ...]:
    strides, step = [], itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


class DeviceArray:
    """An output left in the memory of the device that computed it (``predict(x, out="device")``).

    It exports ``__dlpack__`` (``torch.from_dlpack``, ``cupy.from_dlpack``, ``jax.dlpack``; numpy for a
    CPU model's) and, on a GPU, ``__cuda_array_interface__``, without a copy; another Predictor on the
    same device reads it in place. ``numpy()`` copies it to the host. ``shape`` (a tuple) and ``dtype``
    (a numpy dtype) describe it. The memory is freed once this object and every tensor made from it
    are gone.
    """

    def __init__(self, handle: Any) -> None:
        """Takes ownership of `handle` once constructed (if this raises, the caller keeps it)."""
        self.shape: Tuple[int, ...] = tuple(capi.QvNDArrayGetShape(handle))
        self.dtype: "np.dtype[Any]" = DTYPES[capi.QvNDArrayGetDType(handle)]
        dev_type, dev_id = capi.QvNDArrayGetDevice(handle)
        self._on_gpu = dev_type == capi.QV_GPU
        self._dev_id = dev_id
        self._handle = NativeHandle(handle, capi.QvNDArrayFree, "this DeviceArray")

    @property
    def device(self) -> str:
        """``"gpu(N)"`` or ``"cpu(0)"``."""
        return f"gpu({self._dev_id})" if self._on_gpu else "cpu(0)"

    def numpy(self) -> np.ndarray:
        """A copy in host memory."""
        handle = self._handle.acquire()
        try:
            return capi.array_copy_to_numpy(handle)
        finally:
            self._handle.release()

    def __dlpack__(self, *, stream: Optional[int] = None, **_: Any) -> Any:
        """A DLPack capsule over the memory, which keeps it until the consumer lets go (even past
        close()). The runtime's writes have completed on the device when it is made, so the consumer's
        `stream` may read it at once."""
        export = _Export(self._handle)
        return capi.array_to_dlpack(export.handle, export)

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (_DL_CUDA, self._dev_id) if self._on_gpu else (_DL_CPU, 0)

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        """The CUDA array interface (version 3) of a GPU array. Its consumer must keep this object
        alive, and not close() it, while it uses the pointer."""
        if not self._on_gpu:
            raise AttributeError("a CPU array has no __cuda_array_interface__ (use __dlpack__ or numpy())")
        handle = self._handle.acquire()
        try:
            capi.QvNDArrayWaitToRead(handle)
            pointer = capi.array_device_pointer(handle)
        finally:
            self._handle.release()
        # stream None: nothing is pending on the device any more (the array is readable).
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (pointer, False), "version": 3,
                "strides": None, "stream": None}

    def close(self) -> None:
        """Frees the memory now (tensors made from it keep it until they are gone). Idempotent."""
        handle = getattr(self, "_handle", None)
        if handle is not None:
            handle.close()

    def __del__(self) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<DeviceArray shape={self.shape} dtype={self.dtype} device={self.device}>"


class _Export:
    """One DLPack consumer's hold on a DeviceArray's memory: the handle stays acquired (a close() meanwhile
    frees it only once every hold is gone) until the consumer's deleter drops this object."""

    __slots__ = ("_owner", "handle")

    def __init__(self, owner: NativeHandle) -> None:
        self.handle = owner.acquire()
        self._owner = owner

    def __del__(self) -> None:
        self._owner.release()


def to_device_arrays(outputs: List[Any]) -> List[DeviceArray]:
    """DeviceArrays owning readable output handles (on failure the handles not yet wrapped are freed)."""
    arrays = []
    for index, handle in enumerate(outputs):
        try:
            arrays.append(DeviceArray(handle))
        except BaseException:
            for rest in outputs[index:]:
                capi.QvNDArrayFree(rest)
            raise
    return arrays
