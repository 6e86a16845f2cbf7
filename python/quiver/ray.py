"""Ray Data batch inference: a callable class for ``Dataset.map_batches`` (imports no Ray module).

Example::

    import ray
    from quiver.ray import BatchPredictor

    ds = ray.data.read_parquet("s3://bucket/rows")           # columns "id", "data", ...
    out = ds.map_batches(BatchPredictor, fn_constructor_kwargs={"model_prefix": "/models/resnet18_v1"},
                         batch_format="numpy", batch_size=64, concurrency=2, num_cpus=4)

``concurrency=N`` (Ray 2.9 and later; before: ``compute=ray.data.ActorPoolStrategy(size=N)``) makes a
pool of N actors. Each actor loads the model once (in its constructor) and runs every batch given to
it; Ray sets the actor's ``OMP_NUM_THREADS`` to its ``num_cpus``, which bounds Quiver's compute threads.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Union

import numpy as np

from . import _batches
from .classifier import Classifier


class BatchPredictor:
    """Runs a model on Ray Data batches (``batch_format="numpy"``: a dict of numpy columns).

    Args:
        model_prefix: the model's prefix, as for Predictor: a path every worker sees, or a URI
            (``s3://``, ``gs://``, ``https://``, ...; see Predictor) each worker reads the model from.
        kind: ``"predictor"`` (the default), ``"classifier"`` or ``"image_classifier"``.
        image_column: for ``"image_classifier"``, the column holding the images: encoded bytes (JPEG,
            PNG, ...: ``read_binary_files``' ``"bytes"``), decoded in the worker, or HxWxC uint8 arrays
            (``read_images``' ``"image"``).
        label_column, probability_column: the classifiers' output columns (the best label, and its
            probability as float64, as ``classify(..., top_k=1)`` gives them).
        **kwargs: Predictor's keywords (epoch, input_descs, precision, synset, ...).

    A call returns the batch's columns plus one column per model output, named as ``output_names``
    (an output named like a batch column replaces it); classifiers add the label and probability
    columns instead. The model's inputs are the batch columns of the same names (other columns are
    passed through): each a (rows, ...) numeric array, or an object array of per-row arrays (or nested
    lists) of one shape within the batch, as Ray stores ragged or nested tensor columns; those are
    stacked to (rows, ...). Rows of different shapes in one batch raise ShapeError.
    """

    def __init__(self, model_prefix: Union[str, "os.PathLike[str]"], *, kind: str = "predictor",
                 image_column: str = "image", label_column: str = "label",
                 probability_column: str = "probability", **kwargs: Any) -> None:
        self.model = _batches.make_model(model_prefix, kind, dict(kwargs))
        self.image_column = image_column
        self.label_column = label_column
        self.probability_column = probability_column

    def __call__(self, batch: Mapping[str, Any]) -> Dict[str, Any]:
        out: Dict[str, Any] = dict(batch)
        outputs = self.model.predict_named(_batches.model_inputs(self.model, batch, self.image_column))
        if isinstance(self.model, Classifier):
            labels, probabilities = _batches.top_1(self.model, list(outputs.values()))
            out[self.label_column] = labels
            out[self.probability_column] = probabilities
        else:
            # The outputs are views of runtime memory: Ray keeps its own copy of what a call returns.
            out.update({name: np.array(value) for name, value in outputs.items()})
        return out

    def close(self) -> None:
        self.model.close()


__all__ = ["BatchPredictor"]
