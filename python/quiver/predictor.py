"""Predictor: one loaded model, shared by any number of threads, with sync, future and asyncio calls."""
from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable, Dict, IO, List, Mapping, Optional, Sequence, Set, Tuple, TypeVar, Union

import numpy as np

from . import _files, capi
from ._dtypes import DTYPES
from ._handle import NativeHandle
from .data_desc import DataDesc
from .errors import InvalidArgumentError, NotFoundError
from .device_array import device_id, host_view, input_handle, is_device_tensor, to_device_arrays
from .future import Future, to_numpy

ArrayLike = Any
Inputs = Union[ArrayLike, Mapping[str, ArrayLike], Sequence[ArrayLike]]
Source = Union[str, bytes, bytearray, memoryview, IO[bytes], IO[str]]

_Self = TypeVar("_Self", bound="Predictor")

# _create's arguments after the params: input_descs, device, max_inflight, thread_safe, static_shape, options.
Settings = Tuple[Optional[Sequence[DataDesc]], str, int, bool, bool, Optional[Mapping[str, Any]]]

# Constructor keywords that become QvCreateCachedOpEx flags of the same names: the precision and the
# scheduling flags.
FLAG_KEYWORDS = ("precision", "max_batch_size", "batch_timeout_us", "instances", "max_queue")


class Predictor:
    """Runs an MXNet model (``-symbol.json`` + ``.params``) with Quiver.

    The model is compiled and its parameters are loaded once; one Predictor is safe to share across
    threads, and any batch size runs (a plan is compiled per new input shape, once).

    Args:
        model_prefix: path prefix of ``<prefix>-symbol.json`` and ``<prefix>-<epoch:04d>.params``: a
            local path, a ``file://`` URI, an ``https://`` (or ``http://``) URL, or any URI fsspec reads
            when it is installed (``s3://bucket/models/resnet18_v1``, ``hdfs://``, ``gs://``, ``abfs://``,
            ...; with the scheme's package: s3fs, gcsfs, ...). Remote files are read into memory; a
            missing or unreadable file raises NotFoundError naming its URI.
        epoch: the epoch number in the params file name.
        input_descs: the data inputs (names, shapes to compile ahead of time, dtypes, layouts). When
            omitted, inputs are the symbol's non-parameter variables, taking what the symbol
            declares for them (``mx.sym.var(name, dtype=...)``), else float32. A DataDesc's dtype
            other than float32 (token ids as ``"int32"``, say) is the type the input takes.
        device: ``"cpu"`` or ``"gpu(N)"``.
        max_inflight: predictions admitted at once; one more raises BusyError instead of queueing.
        thread_safe: False runs invocations one after another with a single workspace.
        static_shape: True fixes the input shapes at the first prediction.
        options: further ``QvCreateCachedOpEx`` flags (string keys; values are converted to strings).
        storage_options: for URIs read through fsspec, its filesystem's options
            (``{"endpoint_url": ..., "anon": True}`` for s3fs, ...); for URLs, ``{"headers": {...}}``;
            for both, ``"max_bytes"``: the most a remote file may have (default 8 GiB). They also serve
            ``synset.txt`` beside the model.
        precision: what the model computes in: ``"float32"`` (the default), ``"bfloat16"`` (on CPUs
            with native bfloat16 instructions; about 3 significant digits), ``"int8"`` (models that
            carry int8 calibration, such as MXNet's quantize_net exports, on CPUs with AVX2) or
            ``"auto"`` (the fastest this CPU runs natively for this model). Inputs and outputs stay
            float32. See docs/precision.rst.
        max_batch_size, batch_timeout_us, instances, max_queue: keywords for the scheduling flags of
            the same names (see docs/scheduling.rst): predictions from many threads are queued and merged into
            batches of up to ``max_batch_size`` rows. Omitted: no request queue.

    Inputs are read in place, without copying, when they already are C-contiguous arrays of the input's
    dtype: do not write to them until the prediction has finished. Outputs are numpy arrays over the
    runtime's memory (no copy; a GPU model's are copied to the host, or stay on the device as
    :class:`~quiver.DeviceArray` objects with ``out="device"``). Use as a context manager, or call close(), to
    release native memory.
    """

    def __init__(self, model_prefix: Union[str, "os.PathLike[str]"], epoch: int = 0,
                 input_descs: Optional[Sequence[DataDesc]] = None, device: str = "cpu",
                 max_inflight: int = 64, *, thread_safe: bool = True, static_shape: bool = False,
                 options: Optional[Mapping[str, Any]] = None,
                 storage_options: Optional[Mapping[str, Any]] = None, **extras: Any) -> None:
        prefix = os.fspath(model_prefix)
        local = _files.local_path(prefix)
        self._storage_options = storage_options

        def make_symbol() -> Any:
            if local is not None:  # files are read by the native library
                return capi.QvSymbolCreateFromFile(f"{local}-symbol.json")
            json = _files.read(f"{prefix}-symbol.json", "symbol file", storage_options)
            return capi.QvSymbolCreateFromJSON(json.decode("utf-8"))

        def load_params() -> Any:
            if local is not None:
                return capi.QvNDArrayLoad(f"{local}-{epoch:04d}.params")
            return capi.QvNDArrayLoadFromBuffer(_files.read(f"{prefix}-{epoch:04d}.params", "params file",
                                                            storage_options))

        self._load(make_symbol, load_params, (input_descs, device, max_inflight, thread_safe, static_shape, options),
                   _files.parent(prefix), extras)

    @classmethod
    def from_bytes(cls, symbol: Source, params: Source, input_descs: Optional[Sequence[DataDesc]] = None,
                   device: str = "cpu", max_inflight: int = 64, *, thread_safe: bool = True,
                   static_shape: bool = False, options: Optional[Mapping[str, Any]] = None,
                   **extras: Any) -> "Predictor":
        """A model from the symbol JSON and the .params contents held in memory or read from file
        objects, so that models can come from any storage (``fsspec``, S3, HDFS, a zip file).

        Args:
            symbol: the symbol JSON as ``str``/``bytes``, or a file object to read it from.
            params: the .params bytes (any buffer), or a binary file object to read them from.
            Other arguments as for the constructor (subclasses' own keywords included, e.g. synset).
        """
        symbol_json = _read(symbol)
        if isinstance(symbol_json, (bytes, bytearray, memoryview)):
            symbol_json = bytes(symbol_json).decode("utf-8")
        params_bytes = _read(params)
        if isinstance(params_bytes, str):
            raise TypeError("params must be bytes or a binary file object, not str")
        self = cls.__new__(cls)
        self._storage_options = None
        self._load(lambda: capi.QvSymbolCreateFromJSON(symbol_json),
                   lambda: capi.QvNDArrayLoadFromBuffer(params_bytes),
                   (input_descs, device, max_inflight, thread_safe, static_shape, options), None, extras)
        return self

    def _configure(self, model_dir: Optional[str], **extras: Any) -> None:
        """Takes a subclass's own keyword arguments (labels, image settings) once the model is loaded;
        `model_dir` is the model files' directory (a path or a URI: see _files), None for models from
        bytes; files in it are read with ``self._storage_options``."""
        if extras:
            raise TypeError(f"{type(self).__name__} got unexpected keyword arguments: {', '.join(sorted(extras))}")

    def _load(self, make_symbol: Callable[[], Any], load_params: Callable[[], Any], settings: "Settings",
              model_dir: Optional[str], extras: Dict[str, Any]) -> None:
        """Compiles the model from its symbol and parameters (loaders given by the constructors), then
        hands the subclass its own keywords; `settings` are _create's arguments after the params."""
        scheduling = {key: extras.pop(key) for key in FLAG_KEYWORDS if key in extras}
        symbol = make_symbol()
        try:
            self._create(symbol, load_params(), *settings, scheduling)
        finally:
            capi.QvSymbolFree(symbol)
        try:
            self._configure(model_dir, **extras)
        except BaseException:
            self.close()
            raise

    def _create(self, symbol: Any, params: Any, input_descs: Optional[Sequence[DataDesc]], device: str,
                max_inflight: int, thread_safe: bool, static_shape: bool,
                options: Optional[Mapping[str, Any]], scheduling: Mapping[str, Any]) -> None:
        handles, names = params
        try:
            flags = {"device": device, "max_inflight": str(int(max_inflight)),
                     "static_shape": "true" if static_shape else "false"}
            descs = list(input_descs or ())
            shaped = [d for d in descs if d.shape]
            if shaped:
                flags["data_shapes"] = ";".join(f"{d.name}:({','.join(map(str, d.shape))})" for d in shaped)
            typed = [d for d in descs if d.dtype != "float32"]
            if typed:
                flags["data_types"] = ";".join(f"{d.name}:{d.dtype}" for d in typed)
            both = sorted(set(scheduling) & set(map(str, options or {})))
            if both:
                raise InvalidArgumentError.from_message(f"{both} given both as keywords and in options")
            for key, value in {**scheduling, **(options or {})}.items():
                flags[str(key)] = _flag_value(value)
            op = capi.QvCreateCachedOpEx(symbol, named_params(handles, names), flags, 1 if thread_safe else 0)
        finally:
            for handle in handles:
                capi.QvNDArrayFree(handle)
        self._op = NativeHandle(op, capi.QvFreeCachedOp, "this Predictor")
        self._device_id = device_id(device)
        self._submitted_shapes: Set[Any] = set()  # apredict's: input shapes whose plans exist
        self._input_names: List[str] = capi.QvCachedOpListInputs(op)
        self._output_names: List[str] = capi.QvCachedOpListOutputs(op)
        self._precision: str = capi.QvCachedOpGetPrecision(op)
        by_name = {d.name: d for d in descs}
        unknown = sorted(set(by_name) - set(self._input_names))
        if unknown:
            self.close()
            raise InvalidArgumentError.from_message(
                f"input_descs name {unknown}, which the model does not take (its inputs: {self._input_names})")
        self._descs: Dict[str, Optional[DataDesc]] = {n: by_name.get(n) for n in self._input_names}
        # Inputs are converted to what the op takes (flag data_types, else the symbol's declaration).
        self._dtypes = [DTYPES[capi.QvCachedOpGetInputDType(op, i)] for i in range(len(self._input_names))]

    # -- description -------------------------------------------------------------------------------

    @property
    def input_names(self) -> List[str]:
        """The data inputs, in the order a list of inputs is taken."""
        return list(self._input_names)

    @property
    def output_names(self) -> List[str]:
        """The outputs, in the order they are returned."""
        return list(self._output_names)

    @property
    def input_dtypes(self) -> Dict[str, np.dtype]:
        """The element type each input takes; other arrays are converted to it (numpy's rules)."""
        return dict(zip(self._input_names, self._dtypes))

    @property
    def precision(self) -> str:
        """What the model computes in: ``"float32"``, ``"bfloat16"`` or ``"int8"`` (``"auto"``
        resolved to what this machine runs)."""
        return self._precision

    def stats(self) -> Dict[str, Any]:
        """What the model has done since it was loaded (QvCachedOpGetStats): requests by how they ended,
        queue waits and run times (``p50``/``p90``/``p99`` in microseconds), batch sizes and padding,
        plans compiled, kept and evicted. ``quiver.metrics.prometheus_text`` renders it for Prometheus."""
        return self._op_json(capi.QvCachedOpGetStats)

    def describe(self) -> Dict[str, Any]:
        """The nodes the model runs after Quiver's graph passes (QvCachedOpDescribe), in execution order:
        ``{"nodes": [{"name", "op", "fused": [{"name", "op"}, ...]}, ...]}``; the profiler's operator
        spans carry these names."""
        return self._op_json(capi.QvCachedOpDescribe)

    def _op_json(self, call: Callable[[Any], str]) -> Dict[str, Any]:
        """`call`'s JSON answer about the cached op, parsed; the op stays alive meanwhile."""
        op = self._op.acquire()
        try:
            result: Dict[str, Any] = json.loads(call(op))
            return result
        finally:
            self._op.release()

    def input_desc(self, name: Optional[str] = None) -> Optional[DataDesc]:
        """The DataDesc given for an input (the first input when name is None), or None."""
        return self._descs[name if name is not None else self._input_names[0]]

    # -- predictions -------------------------------------------------------------------------------

    def predict(self, inputs: Inputs, *, timeout: Optional[float] = None, priority: int = 0,
                out: str = "host") -> Any:
        """Runs the model and waits for the result.

        Args:
            inputs: one array (single-input models), a ``{name: array}`` mapping (other keys are
                ignored), or a list in ``input_names`` order. Any batch size. numpy arrays, anything
                numpy takes, and GPU tensors (``__dlpack__``, ``__cuda_array_interface__``: PyTorch,
                CuPy, JAX), which are read in place, after the work their stream has queued.
            timeout: seconds the prediction may take; past them the runtime drops it (queued or
                between two operators) and DeadlineExceededError (a TimeoutError) is raised.
            priority: higher goes first among predictions queued on this Predictor (scheduling
                flags); without a request queue it has no effect.
            out: ``"host"``: numpy arrays (a GPU model's copied to the host); ``"device"``:
                :class:`~quiver.DeviceArray` objects left in the model's device memory, for DLPack consumers.
        Returns:
            an array for a single-output model, else a list of arrays in ``output_names`` order.
        Raises:
            ShapeError for inputs that do not fit the model; ClosedError after close().
        """
        return self._unpack(self._predict_all(inputs, timeout, priority, out))

    def predict_named(self, inputs: Inputs, *, timeout: Optional[float] = None,
                      priority: int = 0, out: str = "host") -> Dict[str, Any]:
        """As predict(), but returns every output by name (``output_names`` order), whatever their
        number: ``p.predict_named({"tokens": ids, "valid_length": lengths})["scores"]``."""
        return dict(zip(self._output_names, self._predict_all(inputs, timeout, priority, out)))

    def _predict_all(self, inputs: Inputs, timeout: Optional[float], priority: int, out: str) -> List[Any]:
        convert = _converter(out)
        arrays = self._arrays(inputs)
        outputs = self._submit(arrays, timeout, priority)
        try:
            for handle in outputs:
                capi.QvNDArrayWaitToRead(handle)
        except BaseException:
            for handle in outputs:
                capi.QvNDArrayFree(handle)
            raise
        return convert(outputs)

    def predict_async(self, inputs: Inputs, *, timeout: Optional[float] = None, priority: int = 0,
                      out: str = "host") -> Future:
        """Submits a prediction and returns at once with a Future (see predict for the arguments:
        `timeout` is the runtime's deadline, counted from now). ``Future.cancel()`` drops it.

        Raises BusyError when ``max_inflight`` predictions are in flight (or ``max_queue`` queued).
        """
        convert = _converter(out)
        arrays = self._arrays(inputs)
        return Future(self._submit(arrays, timeout, priority), arrays, self._unpack, convert)

    async def apredict(self, inputs: Inputs, *, timeout: Optional[float] = None, priority: int = 0) -> Any:
        """``await predictor.apredict(x)``: predict_async for asyncio; the event loop never blocks.
        Cancelling the awaiting task cancels the prediction."""
        loop = asyncio.get_running_loop()
        arrays = self._arrays(inputs)
        shapes = _shape_key(arrays)
        if shapes is not None and shapes in self._submitted_shapes:
            native = self._submit(arrays, timeout, priority)
        else:
            # A new shape is compiled by the submission, which then takes a while: off the event loop.
            native = await loop.run_in_executor(None, self._submit, arrays, timeout, priority)
            if shapes is not None:
                if len(self._submitted_shapes) >= _MAX_REMEMBERED_SHAPES:
                    self._submitted_shapes.clear()
                self._submitted_shapes.add(shapes)
        future = Future(native, arrays, self._unpack, _converter("host"))
        waiter = loop.create_future()

        def wake(_: Future) -> None:
            try:
                loop.call_soon_threadsafe(_settle, waiter, future)
            except RuntimeError:  # the loop was closed while the prediction ran
                pass

        future.add_done_callback(wake)
        try:
            return await waiter
        except asyncio.CancelledError:  # the awaiting task was cancelled: so is the prediction
            future.cancel()
            raise

    # -- lifetime ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Releases the model's native memory. Predictions in flight still complete. Idempotent."""
        op = getattr(self, "_op", None)
        if op is not None:
            op.close()

    @property
    def closed(self) -> bool:
        return self._op.closed

    def __enter__(self: _Self) -> _Self:  # `with Classifier(...) as c` types c as a Classifier
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<{type(self).__name__} inputs={self._input_names} outputs={self._output_names} {state}>"

    # -- internals ---------------------------------------------------------------------------------

    def _arrays(self, inputs: Inputs) -> List[Any]:
        return input_arrays(inputs, self._input_names, self._dtypes)

    def _submit(self, arrays: List[Any], timeout: Optional[float], priority: int) -> List[Any]:
        options = None
        if timeout is not None or priority:
            check_timeout(timeout)
            options = (max(1, round(timeout * 1e6)) if timeout is not None else 0, int(priority))
        handles = []
        try:
            for array in arrays:
                if isinstance(array, np.ndarray):
                    handles.append(capi.array_from_buffer(array))
                else:
                    handles.append(input_handle(array, self._device_id))
            op = self._op.acquire()
            try:
                if options is None:
                    return capi.QvInvokeAsync(op, handles, None)
                return capi.QvInvokeAsyncEx(op, handles, None, options)
            finally:
                self._op.release()
        finally:
            # The runtime keeps what the computation reads; the caller keeps `arrays` alive.
            for handle in handles:
                capi.QvNDArrayFree(handle)

    def _unpack(self, outputs: List[np.ndarray]) -> Any:
        return outputs[0] if len(outputs) == 1 else outputs


def check_timeout(timeout: Optional[float]) -> None:
    """Refuses a timeout that is not a positive number of seconds (None: no timeout)."""
    if timeout is not None and not timeout > 0:
        raise InvalidArgumentError.from_message(f"timeout must be a positive number of seconds, not {timeout}")


# apredict remembers this many input shapes as compiled (then forgets them all and learns again).
_MAX_REMEMBERED_SHAPES = 1024


def _shape_key(arrays: List[Any]) -> Optional[Tuple[Any, ...]]:
    """The inputs' shapes and dtypes, or None where an input has none to read."""
    try:
        return tuple((tuple(a.shape), str(a.dtype)) for a in arrays)
    except AttributeError:
        return None


def input_arrays(inputs: Inputs, names: Sequence[str], dtypes: Sequence[Any]) -> List[Any]:
    """The arrays for a model's inputs `names`, in order, as C-contiguous arrays of `dtypes`: from one
    array (a one-input model), a list, or a {name: array} mapping. A mapping's inputs are picked by name
    and its other keys ignored (a batch of a data set with more columns than the model takes). GPU
    tensors pass through as they are: their element type must be the input's."""
    if isinstance(inputs, Mapping):
        missing = [n for n in names if n not in inputs]
        if missing:
            raise InvalidArgumentError.from_message(
                f"the inputs lack {missing}: the model takes {list(names)}, the mapping has {sorted(map(str, inputs))}")
        values = [inputs[n] for n in names]
    elif isinstance(inputs, (list, tuple)) and len(names) > 1:
        if len(inputs) != len(names):
            raise InvalidArgumentError.from_message(
                f"the model takes {len(names)} inputs {names}, got a list of {len(inputs)}")
        values = list(inputs)
    elif len(names) == 1:
        values = [inputs]
    else:
        raise InvalidArgumentError.from_message(
            f"the model takes {len(names)} inputs {names}: pass a list or a {{name: array}} mapping")
    return [v if is_device_tensor(v) else np.ascontiguousarray(host_view(v), dtype=t) for v, t in zip(values, dtypes)]


def _converter(out: str) -> Callable[[List[Any]], List[Any]]:
    """What readable output handles become: numpy arrays (`out` "host") or DeviceArrays ("device")."""
    if out == "host":
        return to_numpy
    if out == "device":
        return to_device_arrays
    raise InvalidArgumentError.from_message(f'out must be "host" or "device", not {out!r}')


def named_params(handles: List[Any], names: List[str]) -> Dict[str, Any]:
    """A loaded .params file's arrays by name (Quiver binds parameters by name)."""
    if len(names) != len(handles):
        raise NotFoundError.from_message("the .params file stores no parameter names; Quiver binds parameters by name")
    return dict(zip(names, handles))


def _settle(waiter: "asyncio.Future[Any]", future: Future) -> None:
    if waiter.done():  # the awaiting task was cancelled
        return
    try:
        waiter.set_result(future.result(0))
    except Exception as error:
        waiter.set_exception(error)


def _read(source: Source) -> Union[str, bytes, bytearray, memoryview]:
    return source.read() if hasattr(source, "read") else source


def _flag_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
