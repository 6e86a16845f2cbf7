"""Classifier: a Predictor whose first output is class scores, returned as labelled top-k lists."""
from __future__ import annotations

import os
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _files
from .errors import NotFoundError, ShapeError
from .predictor import Inputs, Predictor

Labels = Union[str, "os.PathLike[str]", Sequence[str]]
Classification = List[Tuple[str, float]]


def load_synset(synset: Labels, storage_options: Optional[Mapping[str, Any]] = None) -> List[str]:
    """Class labels from a list, or from a ``synset.txt`` file (one label per line, in class order) at a
    path or a URI (as for Predictor's model prefix, read with `storage_options`)."""
    if isinstance(synset, (str, os.PathLike)):
        location = os.fspath(synset)
        text = _files.read_text(location, "synset file", storage_options)
        if text is None:
            raise NotFoundError.from_message(f"synset file not found: {_files.redact(location)}")
        return _files.lines(text)
    return [str(label) for label in synset]


def synset_beside(model: Predictor, model_dir: Optional[str]) -> Optional[List[str]]:
    """The labels of ``synset.txt`` in the model's directory (a path or a URI), None without one."""
    if model_dir is None:
        return None
    text = _files.read_text(_files.join(model_dir, "synset.txt"), "synset file", model._storage_options)
    return None if text is None else _files.lines(text)


class Classifier(Predictor):
    """A Predictor for classification models, with labels.

    Takes Predictor's arguments, and the keywords:
        synset: the labels (a list, or the path or URI of a synset.txt file). When omitted,
            ``synset.txt`` next to the model files is used (beside a URI prefix too).
        softmax: "auto" applies a softmax to outputs that are not probabilities already (rows that are
            not non-negative and summing to 1, such as Gluon's logits); True or False forces it.
    """

    def _configure(self, model_dir: Optional[str], *, synset: Optional[Labels] = None,
                   softmax: Union[str, bool] = "auto", **extras: Any) -> None:
        super()._configure(model_dir, **extras)
        if synset is None:
            if model_dir is None:
                raise NotFoundError.from_message(f"{type(self).__name__} needs synset= (a list of labels or a path)")
            synset = _files.join(model_dir, "synset.txt")
        if softmax not in ("auto", True, False):
            raise ValueError(f"softmax must be 'auto', True or False, not {softmax!r}")
        self._labels = load_synset(synset, self._storage_options)
        self._softmax = softmax

    @property
    def labels(self) -> List[str]:
        return list(self._labels)

    def classify(self, inputs: Inputs, top_k: Optional[int] = None) -> List[Classification]:
        """Classifies a batch: for each batch element, ``[(label, probability), ...]`` best first.

        Args:
            inputs: as for predict (any batch size).
            top_k: how many classes per element; None gives all of them.
        """
        return self.top_k(self.predict(inputs), top_k)

    def top_k(self, outputs: Any, top_k: Optional[int] = None) -> List[Classification]:
        """Turns the model's outputs (as predict returns them) into labelled top-k lists."""
        scores = outputs[0] if isinstance(outputs, list) else outputs
        scores = np.asarray(scores, dtype=np.float64).reshape(len(scores), -1)
        if scores.shape[1] != len(self._labels):
            raise ShapeError.from_message(
                f"the model gives {scores.shape[1]} class scores but the synset has {len(self._labels)} labels")
        if self._softmax is True or (self._softmax == "auto" and not _are_probabilities(scores)):
            scores = np.exp(scores - scores.max(axis=1, keepdims=True))
            scores /= scores.sum(axis=1, keepdims=True)
        k = scores.shape[1] if top_k is None else max(0, min(int(top_k), scores.shape[1]))
        order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [[(self._labels[c], float(row[c])) for c in best] for row, best in zip(scores, order)]


def _are_probabilities(scores: np.ndarray) -> bool:
    return bool((scores >= 0).all() and np.allclose(scores.sum(axis=1), 1.0, atol=1e-3))
