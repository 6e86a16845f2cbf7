"""Exports the models of bench/compare_runtimes.sh with real MXNet 1.9.1, the way the conformance suite
does (tests/conformance/make_fixtures.py: fixed-seed random weights calibrated to unit-scale layer
outputs, MXNet's output recorded for one batch-1 input at 224x224), into OUT_DIR, each manifest
entry with the iterations that make one run of the comparison last about a second.

    <mxnet venv python> bench/make_models.py OUT_DIR NAME...
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "conformance"))
from make_fixtures import export  # noqa: E402


ITERS = {"resnet50_v1": 30, "resnet18_v1": 60, "mobilenetv2_1.0": 150, "mobilenet0.25": 600}  # a run of about a second


def main() -> None:
    out_dir, names = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    models = []
    for name in names:
        tmp_dir = tempfile.mkdtemp()
        try:
            models.append({**export(name, [(1, 224)], out_dir, tmp_dir), "iters": ITERS.get(name, 50)})
        finally:
            shutil.rmtree(tmp_dir)
        print(f"make_models: {name}", file=sys.stderr)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"models": models}, f, indent=1)


if __name__ == "__main__":
    main()
