"""`quiver calibrate`: quiver.calibrate from a shell, on .npy/.npz batches or on image files."""
from __future__ import annotations

import argparse
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..calibration import calibrate
from ..errors import InvalidArgumentError, QuiverError, UnsupportedError
from ..image import ImageTransform
from ..predictor import Predictor
from . import args as cli_args
from . import progress

HELP = "calibrate a float32 model for int8 and write it in MXNet's quantized format"
ARRAY_SUFFIXES = (".npy", ".npz")
Batch = Union[np.ndarray, Dict[str, np.ndarray]]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "calibrate", help=HELP, description=HELP + " (quiver.calibrate). SAMPLES are either array files, "
        "each one batch (.npy: the input of a one-input model, batch first; .npz: one array per input name), "
        "or image files (any format Pillow reads), taken --batch-size at a time and preprocessed as "
        "`quiver classify` does (resized and center-cropped to the --shape size, else 224x224, normalised "
        "with ImageNet's statistics). Afterwards the first batch runs in float32 and in int8, and the "
        "difference is printed.")
    parser.add_argument("prefix", help="the float32 model: PREFIX-symbol.json and PREFIX-EPOCH.params")
    parser.add_argument("out_prefix", help="where to write OUT_PREFIX-symbol.json and OUT_PREFIX-0000.params")
    parser.add_argument("samples", nargs="+", metavar="SAMPLE", help=".npy/.npz batches, or image files")
    parser.add_argument("--epoch", type=int, default=0, help="the epoch in the .params file name (default 0)")
    parser.add_argument("--shape", type=cli_args.shape, action="append", default=[], metavar="NAME:D1,D2,...",
                        help="the input's shape, batch first (sets the image size for image samples)")
    parser.add_argument("--batch-size", type=_positive, default=16, help="images per batch (default 16)")
    parser.add_argument("--calib-mode", default="naive", choices=("naive", "entropy"),
                        help="how ranges are chosen (as MXNet's quantize_net): naive = the smallest and largest "
                        "value seen (default); entropy = the threshold that loses the least information "
                        "(KL divergence) on a histogram of the values")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    arrays = [s for s in ns.samples if s.lower().endswith(ARRAY_SUFFIXES)]
    if arrays and len(arrays) != len(ns.samples):
        raise InvalidArgumentError.from_message("SAMPLES mix array files and images: give one kind")
    if arrays:
        batches, total = _array_batches(arrays), len(arrays)
    else:
        batches, total = _image_batches(ns.samples, ns.shape, ns.batch_size), -(-len(ns.samples) // ns.batch_size)
    read = _Tally(progress.each(batches, "calibrating", total))  # one batch in memory at a time
    try:
        out = calibrate(ns.prefix, read, ns.out_prefix, ns.epoch, calib_mode=ns.calib_mode)
    except QuiverError as error:
        if read.current is None:
            raise
        raise type(error).from_message(f"{read.current}: {error.message}") from None  # which file was bad
    print(f"calibrated {ns.prefix} ({ns.calib_mode}) on {read.samples} samples in {total} batches")
    print(f"wrote {out}-symbol.json and {out}-0000.params")
    assert read.first is not None  # calibrate refuses no batches
    _compare_first_batch(ns.prefix, ns.epoch, out, read.first)
    return 0


class _Tally:
    """Passes (label, batch) pairs on as batches, counting samples, keeping the first batch and the label
    of the one being calibrated (None between batches)."""

    def __init__(self, batches: Iterable[Tuple[str, Batch]]) -> None:
        self.batches = batches
        self.first: Optional[Batch] = None
        self.current: Optional[str] = None
        self.samples = 0

    def __iter__(self) -> Iterator[Batch]:
        for label, batch in self.batches:
            self.current = label
            self.first = batch if self.first is None else self.first
            self.samples += _batch_size(batch)
            yield batch
            self.current = None  # calibrated; reading the next file is not that batch's fault


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {value}")
    return value


def _array_batches(paths: Sequence[str]) -> Iterator[Tuple[str, Batch]]:
    for path in paths:
        try:
            if path.lower().endswith(".npz"):
                with np.load(path) as archive:
                    batch: Batch = {name: np.asarray(archive[name], np.float32) for name in archive.files}
            else:
                batch = np.asarray(np.load(path), np.float32)
        except ValueError as error:  # not numpy's format, pickled objects, or not numbers
            raise InvalidArgumentError.from_message(f"{path}: not a numeric array file ({error})") from None
        yield path, batch


def _image_batches(paths: Sequence[str], shapes: Sequence[cli_args.Shape],
                   batch_size: int) -> Iterator[Tuple[str, Batch]]:
    if len(shapes) > 1:
        raise InvalidArgumentError.from_message("image samples feed a one-input model: give one --shape")
    dims = shapes[0][1] if shapes else (1, 3, 224, 224)
    if len(dims) != 4:
        raise InvalidArgumentError.from_message(f"image samples need a 4-D NCHW --shape, not {dims}")
    size = (dims[2], dims[3])
    transform = ImageTransform(size, round(min(size) * 256 / 224))  # ImageClassifier's defaults
    for start in range(0, len(paths), batch_size):
        names = paths[start:start + batch_size]
        yield f"images {names[0]} to {names[-1]}", transform.batch(list(names))


def _batch_size(batch: Batch) -> int:
    first = next(iter(batch.values())) if isinstance(batch, dict) else batch
    return int(first.shape[0]) if first.ndim else 1


def _compare_first_batch(prefix: str, epoch: int, calibrated: str, batch: Batch) -> None:
    """What int8 costs on data the user knows: each output's largest difference from float32, as a
    fraction of float32's largest magnitude, and for (N, classes) outputs how often the top class stays."""
    with Predictor(prefix, epoch) as model:
        reference = _outputs(model.predict(batch))
    try:
        int8_model = Predictor(calibrated, precision="int8")
    except UnsupportedError as error:  # the files are still good for a CPU with AVX2
        print(f"int8 not run on this CPU: {error.message}")
        return
    with int8_model:
        quantized = _outputs(int8_model.predict(batch))
    for index, (want, got) in enumerate(zip(reference, quantized)):
        scale = float(np.abs(want).max()) or 1.0
        line = f"output {index}: int8 vs float32 on the first batch, max |difference| " \
               f"{float(np.abs(got - want).max()) / scale:.4f} of the output's scale"
        if want.ndim == 2 and want.shape[1] > 1:
            same = int((want.argmax(axis=1) == got.argmax(axis=1)).sum())
            line += f", top-1 the same for {same} of {want.shape[0]}"
        print(line)


def _outputs(result: Any) -> List[np.ndarray]:
    return [np.asarray(a) for a in (result if isinstance(result, (list, tuple)) else [result])]

