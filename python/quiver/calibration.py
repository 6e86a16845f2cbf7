"""Int8 calibration without MXNet: ``quiver.calibrate`` turns a float32 model into an int8 one."""
from __future__ import annotations

import os
from typing import Iterable, Union

from . import capi
from .predictor import Inputs, input_arrays, named_params


def calibrate(model_prefix: Union[str, "os.PathLike[str]"], batches: Iterable[Inputs],
              out_prefix: Union[str, "os.PathLike[str]"], epoch: int = 0, *, calib_mode: str = "naive") -> str:
    """Calibrates a float32 model for int8 and writes the result in MXNet 1.9's quantized format.

    Runs the model over ``batches`` in float32, records the range of every tensor an int8 model
    quantizes (see ``calib_mode``) and writes
    ``<out_prefix>-symbol.json`` and ``<out_prefix>-0000.params``: what MXNet's ``quantize_net``
    exports, so that ``Predictor(out_prefix, precision="int8")`` runs it in int8 and MXNet 1.9 loads it
    too. Convolutions (with the BatchNorm, relu and residual addition after them), fully connected
    layers and the pooling between them are quantized.

    Args:
        model_prefix: the float32 model's ``<prefix>-symbol.json`` and ``<prefix>-<epoch:04d>.params``.
        batches: sample inputs like those the model will see, each as ``Predictor.predict`` takes
            them (an array for a one-input model, else a list or a ``{name: array}`` mapping), any
            batch size. A few hundred images are typical; naive ranges only widen, so outliers count.
        out_prefix: where to write the calibrated model (epoch 0).
        epoch: the epoch number in the float32 model's params file name.
        calib_mode: as MXNet 1.9's ``quantize_net``. ``"naive"``: each tensor's range is the smallest
            and largest value seen. ``"entropy"``: each tensor's values are counted in a histogram
            (8001 bins over [-max|x|, max|x|]) and its range is [-t, t], or [0, t] for a tensor never
            negative, with t the threshold whose int8 quantization of that histogram has the smallest
            KL divergence from it: outliers are clipped, which often suits a few hundred images better
            than naive (MXNet's choice, reproduced exactly from the same float32 values; values that
            differ in the last bits can tip a near-tie). Saving searches each histogram's
            thresholds, a tenth of a second or so per tensor.

    Returns:
        ``out_prefix``, as a string. Raises InvalidArgumentError for a model that is already
        quantized or has nothing to quantize, for no batches, and for a batch whose values become NaN
        or infinite (naming the tensor).
    """
    prefix, out = os.fspath(model_prefix), os.fspath(out_prefix)
    symbol = capi.QvSymbolCreateFromFile(f"{prefix}-symbol.json")
    try:
        handles, names = capi.QvNDArrayLoad(f"{prefix}-{epoch:04d}.params")
        try:
            calibrator = capi.QvCalibratorCreate(symbol, named_params(handles, names), {"calib_mode": calib_mode})
        finally:
            for handle in handles:
                capi.QvNDArrayFree(handle)
    finally:
        capi.QvSymbolFree(symbol)
    try:
        input_names = capi.QvCalibratorListInputs(calibrator)
        dtypes = ["float32"] * len(input_names)
        for batch in batches:
            arrays = input_arrays(batch, input_names, dtypes)  # the handles below read them in place
            inputs = []
            try:
                for array in arrays:
                    inputs.append(capi.array_from_buffer(array))
                capi.QvCalibratorAddBatch(calibrator, inputs)
            finally:
                for handle in inputs:
                    capi.QvNDArrayFree(handle)
        capi.QvCalibratorSave(calibrator, f"{out}-symbol.json", f"{out}-0000.params")
    finally:
        capi.QvCalibratorFree(calibrator)
    return out


