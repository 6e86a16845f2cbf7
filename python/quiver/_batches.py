"""What quiver.ray and quiver.spark share: the model kinds, column stacking, image columns and the
label/probability columns of classifiers. Imports neither Ray nor PySpark."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Tuple, Type, Union

import numpy as np

from .classifier import Classifier
from .errors import InvalidArgumentError, ShapeError
from .image_classifier import ImageClassifier
from .predictor import Predictor

KINDS: Dict[str, Type[Predictor]] = {"predictor": Predictor, "classifier": Classifier,
                                     "image_classifier": ImageClassifier}


def make_model(model_prefix: Union[str, "os.PathLike[str]"], kind: str, kwargs: Dict[str, Any]) -> Predictor:
    """The model a worker runs: ``kind`` is "predictor", "classifier" or "image_classifier"."""
    if kind not in KINDS:
        raise InvalidArgumentError.from_message(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return KINDS[kind](model_prefix, **kwargs)


def stack_column(name: str, column: Any) -> np.ndarray:
    """A column as one (rows, ...) array: numeric arrays as they are; object arrays (or lists) whose
    rows are arrays or nested lists, at any depth (Ray gives a column of nested lists as object arrays
    of object arrays), stacked when every row has one shape. Rows of different shapes are refused."""
    array = column if isinstance(column, np.ndarray) else np.asarray(column)
    if array.dtype != object or array.size == 0:
        return array
    parts = [stack_column(name, part) for part in array.reshape(-1)]
    shapes = sorted({part.shape for part in parts})
    if len(shapes) > 1:
        raise ShapeError.from_message(f"column {name!r} holds rows of different shapes {shapes[:4]}: "
                                      "the model takes one shape per batch")
    if parts[0].dtype == object:
        raise InvalidArgumentError.from_message(f"column {name!r} holds {type(parts[0]).__name__}, not numbers")
    return np.stack(parts).reshape(array.shape + parts[0].shape)


def image_rows(name: str, column: Any) -> List[Any]:
    """The rows of an image column for ImageClassifier.preprocess: encoded image bytes (JPEG, PNG, ...),
    decoded one at a time there, within the model's ImageLimits, or HxWxC uint8 arrays."""
    rows: List[Any] = []
    for row in column:
        if isinstance(row, (bytes, bytearray, memoryview, np.ndarray)):
            rows.append(row)
        else:
            raise InvalidArgumentError.from_message(
                f"column {name!r}: expected image bytes or HxWxC uint8 arrays, got {type(row).__name__}")
    return rows


def model_inputs(model: Predictor, batch: Any, images: str) -> Any:
    """What model.predict takes from a batch (columns by name): for an ImageClassifier the decoded,
    preprocessed `images` column, else the model's input columns, stacked."""
    if isinstance(model, ImageClassifier):
        return model.preprocess(image_rows(images, batch[images]))
    names = model.input_names
    missing = [n for n in names if n not in batch]
    if missing:
        raise InvalidArgumentError.from_message(
            f"the batch lacks {missing}: the model takes {names}, the batch has {sorted(map(str, batch))}")
    return {n: stack_column(n, batch[n]) for n in names}


def top_1(model: Classifier, outputs: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Each row's best label (an object array of str) and its probability (float64), as
    Classifier.classify(inputs, top_k=1) gives them."""
    best = [row[0] for row in model.top_k(outputs, 1)]
    return (np.array([label for label, _ in best], dtype=object),
            np.array([probability for _, probability in best], dtype=np.float64))

