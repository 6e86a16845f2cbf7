"""ImageClassifier: a Classifier that takes images (paths, encoded bytes, PIL images, HxWxC uint8 arrays)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .classifier import Classification, Classifier
from .image import (IMAGENET_MEAN, IMAGENET_STD, ImageLike, ImageTransform, as_image_list, in_layout,
                    model_image_size)
from .image_limits import ImageLimits


class ImageClassifier(Classifier):
    """Classifies images with an image model (NCHW or NHWC float input).

    Preprocessing (documented defaults, the Gluon model zoo's): resize the shorter side to
    ``resize_short`` (default: 256/224 of the input size, so 256 for 224x224), center-crop to the input
    size, then per channel (pixel - mean) / std on 0-255 RGB values with ImageNet's statistics.

    Takes Classifier's arguments, and the keywords:
        image_size: (height, width) of the model input; default from input_descs, else (224, 224).
        resize_short, mean, std: the preprocessing above.
        image_limits: what encoded images (paths, bytes) may be before they are decoded (ImageLimits).
    """

    def _configure(self, model_dir: Optional[str], *, image_size: Optional[Tuple[int, int]] = None,
                   resize_short: Optional[int] = None, mean: Sequence[float] = IMAGENET_MEAN,
                   std: Sequence[float] = IMAGENET_STD, image_limits: ImageLimits = ImageLimits(),
                   **extras: Any) -> None:
        super()._configure(model_dir, **extras)
        size = image_size or model_image_size(self.input_desc(), (224, 224))
        self.transform = ImageTransform(size, resize_short or round(min(size) * 256 / 224), tuple(mean), tuple(std),
                                        image_limits)

    def preprocess(self, images: Any) -> np.ndarray:
        """The model input for one image or a sequence of them (a batch, in the input's layout)."""
        return in_layout(self.transform.batch(as_image_list(images)), self.input_desc())

    # Takes images where Classifier.classify takes arrays: the documented API since the first release.
    def classify(self, images: Union[ImageLike, Sequence[ImageLike]],  # type: ignore[override]
                 top_k: Optional[int] = 5) -> List[Classification]:
        """For each image (one, or a sequence), ``[(label, probability), ...]`` best first."""
        return self.top_k(self.predict(self.preprocess(images)), top_k)
