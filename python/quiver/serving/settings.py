"""What a served model is: its files, how it is loaded and how requests are batched, from a settings
file or from `quiver serve`'s arguments.

A settings file is JSON: one model object, or ``{"models": [...]}`` for several. A model object::

    {"name": "resnet18", "prefix": "/models/resnet18_v1", "epoch": 0,
     "kind": "image_classifier",             # predictor (default), classifier, image_classifier, object_detector
     "device": "cpu", "precision": "auto",
     "shapes": {"data": [1, 3, 224, 224]},   # compiled at load; the metadata's shapes (batch as -1)
     "dtypes": {"tokens": "int32"},          # inputs taken as other types than float32
     "max_batch_size": 16, "batch_timeout_us": 1000,
     "max_rows": 16,                         # rows per request (default max_batch_size when batching)
     "options": {"max_inflight": 256},       # any other cached-op flag (`quiver flags`)
     "kwargs": {"synset": "/models/synset.txt"}}   # the kind's own keywords (labels, image settings)
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional, Tuple, Type

from .._batches import KINDS as BATCH_KINDS
from ..errors import InvalidArgumentError
from ..object_detector import ObjectDetector
from ..predictor import Predictor

# The class that loads each kind of model: the scale-out helpers' kinds, and the detector.
CLASSES: Dict[str, Type[Predictor]] = {**BATCH_KINDS, "object_detector": ObjectDetector}
KINDS = tuple(CLASSES)

# Quiver's dynamic batching across concurrent requests, on unless a model says otherwise; the serving
# engine's own batching stays off. A lone request waits at most batch_timeout_us for company.
DEFAULT_MAX_BATCH_SIZE = 16
DEFAULT_BATCH_TIMEOUT_US = 1000
# Requests admitted at once per model (Predictor's max_inflight): past it a request is answered
# "busy" instead of queueing without bound.
DEFAULT_MAX_INFLIGHT = 512


@dataclass
class ModelSettings:
    """One served model (see the module's documentation for the file form)."""

    prefix: str
    name: str = ""
    epoch: int = 0
    kind: str = "predictor"
    device: str = "cpu"
    precision: Optional[str] = None
    shapes: Dict[str, List[int]] = field(default_factory=dict)
    dtypes: Dict[str, str] = field(default_factory=dict)
    max_batch_size: int = DEFAULT_MAX_BATCH_SIZE
    batch_timeout_us: int = DEFAULT_BATCH_TIMEOUT_US
    max_rows: Optional[int] = None
    options: Dict[str, Any] = field(default_factory=dict)
    kwargs: Dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.prefix:
            raise InvalidArgumentError.from_message("a served model needs a prefix")
        self.name = self.name or os.path.basename(self.prefix.rstrip("/"))
        if self.kind not in KINDS:
            raise InvalidArgumentError.from_message(
                f"model {self.name!r}: kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.max_batch_size < 1 or self.batch_timeout_us < 0:
            raise InvalidArgumentError.from_message(
                f"model {self.name!r}: max_batch_size must be at least 1 and batch_timeout_us not negative")
        if self.max_rows is not None and self.max_rows < 1:
            raise InvalidArgumentError.from_message(f"model {self.name!r}: max_rows must be at least 1")
        for input_name, dims in self.shapes.items():
            if not dims or any(int(d) <= 0 for d in dims):
                raise InvalidArgumentError.from_message(
                    f"model {self.name!r}: shape of {input_name!r} must be positive sizes, not {dims}")

    @property
    def row_cap(self) -> Optional[int]:
        """The most rows a request may have: max_rows, else max_batch_size where requests are batched
        (a larger request would run alone at a row count of its choosing, each new one a compile)."""
        if self.max_rows is not None:
            return self.max_rows
        return self.max_batch_size if self.max_batch_size > 1 else None

    @classmethod
    def from_dict(cls, entry: Dict[str, Any]) -> "ModelSettings":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(entry) - known)
        if unknown:
            raise InvalidArgumentError.from_message(
                f"unknown model settings {unknown}; known: {sorted(known)}")
        return cls(**entry)

    def predictor_arguments(self) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """Keywords for the Predictor class of `kind` (without input_descs), and the cached-op flags."""
        options: Dict[str, Any] = {}
        if self.max_batch_size > 1:
            options.update(max_batch_size=str(self.max_batch_size), batch_timeout_us=str(self.batch_timeout_us))
        if self.precision:
            options["precision"] = self.precision
        # Predictor makes the values text; max_inflight is its own keyword.
        options.update({str(k): v for k, v in self.options.items() if k != "max_inflight"})
        inflight = int(self.options.get("max_inflight", DEFAULT_MAX_INFLIGHT))
        keywords = {"epoch": self.epoch, "device": self.device, "max_inflight": inflight, **self.kwargs}
        return keywords, options


def load_settings(path: str) -> List[ModelSettings]:
    """The models of a settings file; relative prefixes are taken from the file's folder."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except json.JSONDecodeError as error:
        raise InvalidArgumentError.from_message(f"settings file {path}: not JSON ({error})") from None
    entries = document.get("models") if isinstance(document, dict) and "models" in document else [document]
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InvalidArgumentError.from_message(f"settings file {path}: expected a model object or {{\"models\": [...]}}")
    models = []
    for entry in entries:
        entry = dict(entry)
        prefix = str(entry.get("prefix", ""))
        if prefix and "://" not in prefix and not os.path.isabs(prefix):
            entry["prefix"] = os.path.join(os.path.dirname(os.path.abspath(path)), prefix)
        models.append(ModelSettings.from_dict(entry))
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise InvalidArgumentError.from_message(f"settings file {path}: model names repeat: {names}")
    return models

