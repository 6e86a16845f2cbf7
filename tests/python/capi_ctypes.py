"""The C API reached directly through ctypes: an oracle for the SWIG binding's results."""
from __future__ import annotations

import ctypes
from pathlib import Path
from typing import List

import numpy as np

import quiver

_lib = ctypes.CDLL(str(Path(quiver.__file__).parent / "libquiver.so.1"))
_handle = ctypes.c_void_p


def _check(status: int) -> None:
    if status != 0:
        _lib.QvGetLastError.restype = ctypes.c_char_p
        raise RuntimeError(f"C API status {status}: {_lib.QvGetLastError().decode()}")


def run(model_prefix: str, x: np.ndarray) -> List[np.ndarray]:
    """Loads the model, invokes it once on float32 `x` and returns its outputs, all through the C API."""
    sym, op = _handle(), _handle()
    _check(_lib.QvSymbolCreateFromFile(f"{model_prefix}-symbol.json".encode(), ctypes.byref(sym)))
    n, n_names = ctypes.c_uint32(), ctypes.c_uint32()
    arrays, names = ctypes.POINTER(_handle)(), ctypes.POINTER(ctypes.c_char_p)()
    _check(_lib.QvNDArrayLoad(f"{model_prefix}-0000.params".encode(), ctypes.byref(n), ctypes.byref(arrays),
                              ctypes.byref(n_names), ctypes.byref(names)))
    params = [_handle(arrays[i]) for i in range(n.value)]
    param_names = (ctypes.c_char_p * n.value)(*[names[i] for i in range(n.value)])
    _check(_lib.QvCreateCachedOpEx(sym, n, param_names, (_handle * n.value)(*params), 0, None, None,
                                   ctypes.byref(op), 1))
    for p in params:
        _lib.QvNDArrayFree(p)
    _lib.QvSymbolFree(sym)

    x = np.ascontiguousarray(x, dtype=np.float32)
    shape = (ctypes.c_int64 * x.ndim)(*x.shape)
    data = _handle()
    _check(_lib.QvNDArrayCreateFromBuffer(x.ctypes.data_as(ctypes.c_void_p), shape, x.ndim, 0, None, None,
                                          ctypes.byref(data)))
    n_out, outputs = ctypes.c_uint32(), ctypes.POINTER(_handle)()
    _check(_lib.QvInvokeAsync(op, 1, ctypes.byref(data), ctypes.byref(n_out), ctypes.byref(outputs)))
    results = []
    for i in range(n_out.value):
        out = _handle(outputs[i])
        ndim, dims = ctypes.c_uint32(), ctypes.POINTER(ctypes.c_int64)()
        _check(_lib.QvNDArrayGetShape(out, ctypes.byref(ndim), ctypes.byref(dims)))
        result = np.empty([dims[d] for d in range(ndim.value)], dtype=np.float32)
        _check(_lib.QvNDArraySyncCopyToCPU(out, result.ctypes.data_as(ctypes.c_void_p), result.nbytes))
        _lib.QvNDArrayFree(out)
        results.append(result)
    _lib.QvNDArrayFree(data)
    _lib.QvFreeCachedOp(op)
    return results
