"""QuiverModel: one Quiver model behind KServe's model server (Open Inference Protocol v2, REST and
gRPC). Concurrent requests are awaited on the server's event loop and merged into batches by Quiver's
own request queue; a request's ``timeout`` parameter (microseconds, as Triton's clients send it)
becomes Quiver's deadline and its ``priority`` Quiver's priority."""
from __future__ import annotations

import asyncio
import base64
import binascii
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from grpc import StatusCode
from kserve import Model
from kserve.protocol.infer_type import InferOutput, InferRequest, InferResponse

from .. import errors as quiver_errors
from ..classifier import Classifier
from ..data_desc import DataDesc
from ..image_classifier import ImageClassifier
from ..object_detector import ObjectDetector
from ..predictor import Predictor
from . import tensors
from .errors import ServingError, bad_request, from_quiver
from .settings import CLASSES, ModelSettings
# The input of the image kinds: encoded images (JPEG, PNG, ...), one per batch row.
IMAGE_INPUT = "image"
# The object detector's outputs, per image padded to the batch's most detections.
DETECTION_OUTPUTS = (("labels", np.object_, ()), ("scores", np.float32, ()), ("boxes", np.float32, (4,)))


class QuiverModel(Model):  # type: ignore[misc]  # kserve is untyped
    """A model of `settings`, loaded by load() (the server calls it at start)."""

    def __init__(self, settings: ModelSettings) -> None:
        super().__init__(settings.name)
        self.settings = settings
        self.predictor: Optional[Predictor] = None
        self._inputs: List[Dict[str, Any]] = []
        self._outputs: List[Dict[str, Any]] = []
        self._shapes: Dict[str, List[int]] = {}  # inputs whose shape the settings give
        self._inflight = 0
        self._stopping = False

    # -- lifetime --------------------------------------------------------------------------------

    def load(self) -> bool:
        if self.predictor is None and not self._stopping:
            s = self.settings
            keywords, options = s.predictor_arguments()
            descs = [DataDesc(name, dims, s.dtypes.get(name, "float32"), "NCHW" if len(dims) == 4 else "")
                     for name, dims in s.shapes.items()]
            descs += [DataDesc(name, (), dtype, "") for name, dtype in s.dtypes.items() if name not in s.shapes]
            self.predictor = CLASSES[s.kind](s.prefix, input_descs=descs or None, options=options, **keywords)
            self._inputs, self._outputs = self._describe()
        self.ready = self.predictor is not None and not self._stopping
        return self.ready

    def stop(self) -> None:
        """Stops taking requests; the model is closed once the requests in flight have their answers."""
        self._stopping = True
        self.ready = False
        self._close_when_idle()

    def _close_when_idle(self) -> None:
        if self._stopping and self._inflight == 0 and self.predictor is not None:
            self.predictor.close()

    # -- metadata --------------------------------------------------------------------------------

    def get_input_types(self) -> List[Dict[str, Any]]:
        return self._inputs

    def get_output_types(self) -> List[Dict[str, Any]]:
        return self._outputs

    def _describe(self) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
        """The metadata's inputs and outputs. Where every input's shape is known (the settings' shapes;
        an image model's input size), one prediction of zeros compiles that shape now and gives the
        outputs' shapes. The batch axis is -1 unless the model's shapes are static; an input without
        a shape in the settings is [-1] (any shape)."""
        p = self.predictor
        assert p is not None
        batch_free = str(self.settings.options.get("static_shape", "false")).lower() not in ("true", "1")
        if self._takes_images():
            inputs = [tensors.tensor_entry(IMAGE_INPUT, np.object_, [-1])]
        else:
            for name in p.input_names:
                desc = p.input_desc(name)
                if desc is not None and desc.shape:
                    self._shapes[name] = _batch_as(desc.shape, batch_free)
            inputs = [tensors.tensor_entry(n, t, self._shapes.get(n, [-1])) for n, t in p.input_dtypes.items()]
        if isinstance(p, ObjectDetector):
            return inputs, [tensors.tensor_entry(n, t, [-1, -1, *rest]) for n, t, rest in DETECTION_OUTPUTS]
        sample = self._zeros(p)
        if sample is None:
            return inputs, [{"name": n, "datatype": "FP32", "shape": [-1]} for n in p.output_names]
        return inputs, [tensors.tensor_entry(n, a.dtype, _batch_as(a.shape, batch_free))
                        for n, a in p.predict_named(sample).items()]

    def _zeros(self, p: Predictor) -> Any:
        """Inputs of zeros in the shapes the model was given, or None where one is unknown."""
        if isinstance(p, ImageClassifier):
            return p.preprocess([np.zeros((8, 8, 3), np.uint8)])
        descs = [p.input_desc(n) for n in p.input_names]
        shapes = {d.name: d.shape for d in descs if d is not None and d.shape}
        if len(shapes) != len(descs):
            return None
        return {name: np.zeros(shape, p.input_dtypes[name]) for name, shape in shapes.items()}

    def _takes_images(self) -> bool:
        return isinstance(self.predictor, (ImageClassifier, ObjectDetector))

    # -- inference -------------------------------------------------------------------------------

    async def predict(self, payload: InferRequest, headers: Optional[Dict[str, str]] = None,
                      response_headers: Optional[Dict[str, str]] = None) -> InferResponse:
        if not isinstance(payload, InferRequest):
            raise bad_request("this model takes Open Inference Protocol (v2) requests")
        p = self.predictor
        if p is None or self._stopping:
            raise ServingError(f"model {self.name!r} is shutting down", StatusCode.UNAVAILABLE)
        self._inflight += 1
        try:
            timeout_us = tensors.number_parameter(payload.parameters, "timeout", float)
            timeout = timeout_us / 1e6 if timeout_us else None
            priority = int(tensors.number_parameter(payload.parameters, "priority", int) or 0)
            try:
                if isinstance(p, ObjectDetector):
                    arrays = await self._detect(p, payload, timeout, priority)
                else:
                    arrays = await self._run(p, payload, timeout, priority)
            except quiver_errors.QuiverError as error:
                raise from_quiver(error) from None
            except asyncio.TimeoutError:
                raise ServingError(f"the request's timeout ({timeout_us} us) passed", StatusCode.DEADLINE_EXCEEDED) from None
            return self._response(payload, arrays)
        finally:
            self._inflight -= 1
            self._close_when_idle()

    async def _run(self, p: Predictor, payload: InferRequest, timeout: Optional[float],
                   priority: int) -> Dict[str, np.ndarray]:
        if isinstance(p, ImageClassifier):
            images = self._image_rows(payload)
            loop = asyncio.get_running_loop()
            # Decoded one row at a time (within the model's ImageLimits), off the event loop.
            inputs: Any = await loop.run_in_executor(None, lambda: p.preprocess(images))
        else:
            inputs = self._tensor_inputs(p, payload)
        outputs = await p.apredict(inputs, timeout=timeout, priority=priority)
        return dict(zip(p.output_names, outputs if isinstance(outputs, list) else [outputs]))

    def _tensor_inputs(self, p: Predictor, payload: InferRequest) -> Dict[str, np.ndarray]:
        given = {i.name: i for i in payload.inputs}
        missing = [n for n in p.input_names if n not in given]
        extra = sorted(set(given) - set(p.input_names))
        if missing or extra:
            raise bad_request(f"the model takes inputs {p.input_names}; the request has {sorted(given)}")
        arrays = {}
        for entry in self._inputs:
            array = tensors.as_array(given[entry["name"]], entry["datatype"])
            _check_shape(entry["name"], self._shapes.get(entry["name"]), array.shape)
            if array.ndim:
                self._check_rows(array.shape[0])
            arrays[entry["name"]] = array
        return arrays

    def _image_rows(self, payload: InferRequest) -> List[bytes]:
        """The encoded images of an image model's request: its one BYTES input, one image per row. Over
        gRPC the rows are the files' bytes; KServe's REST server passes BYTES on as text only, so there
        each row is the file in base64."""
        if len(payload.inputs) != 1 or payload.inputs[0].name != IMAGE_INPUT:
            raise bad_request(f"this model takes one input {IMAGE_INPUT!r} of encoded images (BYTES); the request "
                              f"has {[i.name for i in payload.inputs]}")
        images = tensors.as_array(payload.inputs[0], "BYTES").reshape(-1)
        self._check_rows(len(images))
        try:
            return [base64.b64decode(row, validate=True) if isinstance(row, str) else bytes(row) for row in images]
        except binascii.Error:
            raise bad_request(f"input {IMAGE_INPUT!r}: over REST each image is sent in base64") from None

    def _check_rows(self, rows: int) -> None:
        """Refuses requests of more rows than the model batches (each new row count would be a compile)."""
        cap = self.settings.row_cap
        if cap is not None and rows > cap:
            raise bad_request(f"the request has {rows} rows; model {self.name!r} takes at most {cap} per request "
                              "(max_rows in its settings)")

    async def _detect(self, p: ObjectDetector, payload: InferRequest, timeout: Optional[float],
                      priority: int) -> Dict[str, np.ndarray]:
        """Boxes in each image's pixels, its labels and scores (threshold: the request's ``threshold``
        parameter, default 0.5), padded to the batch's most detections with "", 0 and zero boxes. The
        request's timeout covers decoding and the runs; past it the runtime drops what is queued."""
        images = self._image_rows(payload)
        threshold = tensors.number_parameter(payload.parameters, "threshold", float)
        threshold = 0.5 if threshold is None else threshold
        loop = asyncio.get_running_loop()
        found = await asyncio.wait_for(loop.run_in_executor(
            None, lambda: p.detect_batch(images, threshold, timeout=timeout, priority=priority)), timeout)
        most = max((len(f) for f in found), default=0)
        labels = np.full((len(found), most), b"", dtype=object)
        scores = np.zeros((len(found), most), np.float32)
        boxes = np.zeros((len(found), most, 4), np.float32)
        for i, detections in enumerate(found):
            for k, (label, score, box) in enumerate(detections):
                labels[i, k], scores[i, k], boxes[i, k] = label.encode("utf-8"), score, box
        return {"labels": labels, "scores": scores, "boxes": boxes}

    def _response(self, payload: InferRequest, arrays: Dict[str, np.ndarray]) -> InferResponse:
        requested = {o.name: o for o in payload.request_outputs or []}
        names = tensors.requested_names(payload.request_outputs, list(arrays))
        outputs = []
        for name in names:
            array = arrays[name]
            classes = tensors.number_parameter(getattr(requested.get(name), "parameters", None), "classification", int)
            if classes:
                labels = self.predictor.labels if isinstance(self.predictor, Classifier) else None
                array = tensors.classification(array, int(classes), labels)
            output = InferOutput(name=name, shape=list(array.shape), datatype=tensors.datatype(array.dtype))
            # As bytes: KServe writes them as they are (gRPC, REST's binary extension) or as JSON.
            output.set_data_from_numpy(array, binary_data=True)
            outputs.append(output)
        return InferResponse(response_id=payload.id or "", model_name=self.name, infer_outputs=outputs,
                             use_binary_outputs=payload.use_binary_outputs,
                             requested_outputs=payload.request_outputs)


def _batch_as(shape: Sequence[int], batch_free: bool) -> List[int]:
    """A shape for the metadata: the batch axis -1 where any batch size runs."""
    dims = [int(d) for d in shape]
    return [-1, *dims[1:]] if batch_free and dims else dims


def _check_shape(name: str, expected: Optional[List[int]], shape: Sequence[int]) -> None:
    if expected is None:
        return  # the runtime checks what it runs
    if len(shape) != len(expected) or any(e not in (-1, s) for e, s in zip(expected, shape)):
        raise bad_request(f"input {name!r} has shape {list(shape)}; the model takes {expected}")

