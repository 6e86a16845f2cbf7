"""PySpark batch inference: ``predict_batch_udf`` over ``pyspark.ml.functions.predict_batch_udf``
(Spark 3.4+; PySpark is imported only when the helper is called).

Example::

    from quiver.spark import predict_batch_udf

    classify = predict_batch_udf("/models/resnet18_v1", kind="image_classifier", batch_size=32)
    images = spark.read.format("binaryFile").load("/data/images")
    images.withColumn("top1", classify("content")).select("path", "top1.label", "top1.probability")

Spark builds the model once per Python worker process (``make_predict_fn``, cached by Spark between
tasks) and sets the worker's ``OMP_NUM_THREADS`` to ``spark.task.cpus``, which bounds Quiver's compute
threads in it.
"""
from __future__ import annotations

import importlib
import inspect
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _batches
from .classifier import Classifier
from .image_classifier import ImageClassifier


def predict_batch_udf(model_prefix: Union[str, "os.PathLike[str]"], *, kind: str = "predictor",
                      batch_size: int = 64, return_type: Any = None,
                      input_tensor_shapes: Optional[Sequence[Optional[Sequence[int]]]] = None,
                      **kwargs: Any) -> Any:
    """A Pandas UDF that runs a Quiver model on DataFrame columns, in batches of `batch_size` rows.

    Args:
        model_prefix: the model's prefix, as for Predictor: a path every executor sees, or a URI
            (``s3://``, ``hdfs://``, ``https://``, ...; see Predictor) each worker reads the model from.
        kind: ``"predictor"`` (the default), ``"classifier"`` or ``"image_classifier"``.
        batch_size: rows per prediction.
        return_type: the UDF's Spark type. Default: for a one-output Predictor ``array<float>`` (each
            row's output, flattened); for several outputs a struct of ``array<float>`` fields named as
            ``output_names`` (read from the model, loaded once on the driver for that: pass
            return_type to skip it); for classifiers ``struct<label: string, probability: double>``,
            the best label as ``classify(..., top_k=1)`` gives it.
        input_tensor_shapes: per model input, the shape of one row (no batch dimension) when its
            column holds flattened arrays (``array<float>``), None for scalar columns. Default: taken
            from ``input_descs`` shapes where given.
        **kwargs: Predictor's keywords (epoch, input_descs, precision, synset, ...).

    The UDF takes one column per model input, in ``input_names`` order; an ImageClassifier's takes one
    column of encoded image bytes (``binaryFile``'s ``content``), decoded in the worker.
    """
    # Imported by name so that type checks need no PySpark.
    spark_predict_batch_udf = importlib.import_module("pyspark.ml.functions").predict_batch_udf
    T: Any = importlib.import_module("pyspark.sql.types")

    prefix = os.fspath(model_prefix)
    model_kwargs = dict(kwargs)
    if kind not in _batches.KINDS:
        raise ValueError(f"kind must be one of {', '.join(_batches.KINDS)}, not {kind!r}")
    if input_tensor_shapes is None and kind != "image_classifier":
        shaped = [list(d.shape[1:]) if d.shape else None for d in model_kwargs.get("input_descs") or ()]
        input_tensor_shapes = shaped if any(s is not None for s in shaped) else None
    if return_type is None:
        if kind != "predictor":
            return_type = T.StructType([T.StructField("label", T.StringType()),
                                        T.StructField("probability", T.DoubleType())])
        else:
            with _batches.make_model(prefix, kind, dict(model_kwargs)) as model:
                names = model.output_names
            values = T.ArrayType(T.FloatType())
            return_type = values if len(names) == 1 else T.StructType([T.StructField(n, values) for n in names])

    def make_predict_fn() -> Callable[..., Any]:
        return predict_fn(_batches.make_model(prefix, kind, dict(model_kwargs)))

    shapes = None if input_tensor_shapes is None else [None if s is None else list(s) for s in input_tensor_shapes]
    return spark_predict_batch_udf(make_predict_fn, return_type=return_type, batch_size=batch_size,
                                   input_tensor_shapes=shapes)


def predict_fn(model: Any) -> Callable[..., Any]:
    """The function Spark calls per batch: numpy columns in (one per model input, or the image bytes),
    numpy out (an array, or a dict of arrays by output name). Outputs are flattened to (rows, -1),
    since Spark takes one- or two-dimensional results."""
    if isinstance(model, ImageClassifier):
        names: List[str] = ["content"]
    else:
        names = model.input_names

    def predict(*columns: np.ndarray) -> Any:
        if isinstance(model, ImageClassifier):
            inputs: Any = model.preprocess(_batches.image_rows("content", columns[0]))
        else:
            inputs = {n: _batches.stack_column(n, c) for n, c in zip(names, columns)}
        outputs = model.predict_named(inputs)
        if isinstance(model, Classifier):
            labels, probabilities = _batches.top_1(model, list(outputs.values()))
            return {"label": labels, "probability": probabilities}
        flat: Dict[str, np.ndarray] = {n: np.array(v).reshape(len(v), -1) for n, v in outputs.items()}
        return next(iter(flat.values())) if len(flat) == 1 else flat

    # Spark passes as many columns as the function has parameters.
    setattr(predict, "__signature__", inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]))
    return predict


__all__ = ["predict_batch_udf"]
