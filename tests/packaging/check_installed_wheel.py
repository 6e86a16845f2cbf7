"""Run inside a fresh venv holding only the installed wheel (and its PyPI dependencies), with an empty
LD_LIBRARY_PATH: a prediction matches MXNet's recorded output, the native files Quiver mapped into the
process all came from the wheel, and everything they need is in the wheel or on the manylinux allowlist.

    python check_installed_wheel.py FIXTURES_DIR
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

# The libraries a manylinux wheel may take from the system (PEP 600's allowlist, x86-64).
ALLOWLIST = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0", "libdl.so.2",
             "librt.so.1", "ld-linux-x86-64.so.2", "libcrypt.so.1", "libutil.so.1", "libnsl.so.1"}


def mapped_libraries() -> set[str]:
    paths = set()
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith("/") and ".so" in fields[5]:
            paths.add(fields[5].removesuffix(" (deleted)"))
    return paths


def needed(path: str) -> list[str]:
    """The DT_NEEDED entries of a shared library (binutils' readelf)."""
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def main() -> None:
    fixtures = Path(sys.argv[1])
    assert os.environ.get("LD_LIBRARY_PATH", "") == "", "run with an empty LD_LIBRARY_PATH"

    import quiver

    package = Path(quiver.__file__).resolve().parent
    model = json.loads((fixtures / "manifest.json").read_text())["models"]["resnet18_v1"]
    case = model["cases"][0]
    x = np.fromfile(fixtures / case["input_file"], np.float32).reshape(case["input_shape"])
    want = np.fromfile(fixtures / case["output_file"], np.float32).reshape(case["output_shape"])
    with quiver.Predictor(str(fixtures / model["prefix"]), input_descs=[quiver.DataDesc("data", x.shape)]) as p:
        got = p.predict(x)[0]
    error = float(np.abs(got - want).max())
    assert error <= 1e-4 * case["output_scale"], f"resnet18_v1 differs from MXNet by {error}"

    # Every library the wheel's own native files need is in the wheel or on the allowlist; what Python's
    # standard library maps for the modules Quiver imports is the interpreter's business.
    ours = package.parent / "quiver.libs"
    mapped = mapped_libraries()
    native = sorted(p for p in mapped if Path(p).is_relative_to(package) or Path(p).is_relative_to(ours))
    carried = {Path(p).name for p in native}
    outside = {f"{Path(p).name} needs {name}" for p in native for name in needed(p)
               if name not in carried and name not in ALLOWLIST}
    assert not outside, f"the wheel's libraries need libraries from outside it: {sorted(outside)}"
    assert not [p for p in mapped if "libdnnl" in p], "oneDNN must be inside libquiver.so"
    assert not [p for p in mapped if "libgomp" in p], "oneDNN runs on Quiver's own threads: no OpenMP runtime"
    print(f"installed wheel ok: resnet18_v1 max|quiver - mxnet| = {error:.2e}; native files, all from the "
          f"wheel: {', '.join(sorted(carried))}; nothing from the system beyond the manylinux allowlist")


if __name__ == "__main__":
    main()
