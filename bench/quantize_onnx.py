"""Quantizes the ONNX exports of bench/make_models.sh for the int8 peers of bench/compare_runtimes.sh, the
way ONNX Runtime's documentation tells its users to: quant_pre_process, then quantize_static in QDQ form
with MinMax calibration on the 8 seeded standard-normal images that calibrate Quiver's int8 version of the
same model (bench/quantize_models.py), one at a time. Activations are uint8 and weights int8 per output
channel (U8S8), the form both runtimes run in int8 on every x86 CPU. ONNX Runtime's default, int8
activations with a zero point, makes OpenVINO 2026.4 fall back to float32 convolutions (and refuse the
model under its bfloat16 default on AMX).

    <baselines venv python> bench/quantize_onnx.py MODELS_DIR NAME...
"""
import os
import sys
import tempfile

import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process


class SeededImages(CalibrationDataReader):
    def __init__(self, input_name: str):
        images = np.random.RandomState(7).standard_normal((8, 3, 224, 224)).astype(np.float32)
        self.feeds = iter([{input_name: image[None]} for image in images])

    def get_next(self):
        return next(self.feeds, None)


def main() -> None:
    models_dir, names = sys.argv[1], sys.argv[2:]
    for name in names:
        source = os.path.join(models_dir, name + ".onnx")
        input_name = onnx.load(source, load_external_data=False).graph.input[0].name
        with tempfile.TemporaryDirectory() as tmp:
            prepared = os.path.join(tmp, "prepared.onnx")
            quant_pre_process(source, prepared, skip_symbolic_shape=True)  # ONNX's own inference suffices
            quantize_static(prepared, os.path.join(models_dir, name + "-int8.onnx"), SeededImages(input_name),
                            quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8, per_channel=True)
        print(f"quantize_onnx: {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
