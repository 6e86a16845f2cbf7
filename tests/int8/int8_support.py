"""What the tests in tests/int8 share: finding their fixture directories, telling a CPU without AVX2 (a
test that cannot run here: skipped, saying so) from a model Quiver refuses (a failure), and the bound on
Quiver's int8 error against MXNet's on this CPU."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NoReturn

import pytest

import quiver


def skip_or_fail(message: str) -> None:
    """Skips, or fails where the fixtures are required (QUIVER_REQUIRE_FIXTURES=1, as scripts/test.sh sets)."""
    if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
        pytest.fail(message)
    pytest.skip(message)


def load_manifest(env: str, maker: str) -> dict:
    """The manifest.json of the fixture directory that environment variable `env` names; `maker` is
    the command that prints that directory."""
    directory = os.environ.get(env)
    path = Path(directory or "") / "manifest.json"
    if not directory or not path.exists():
        skip_or_fail(f"no fixtures at {env}={directory!r}: set {env} ({maker} prints it)")
    return json.loads(path.read_text())


def not_run_without_int8_cpu(error: quiver.UnsupportedError) -> NoReturn:
    """Skips when `error` is the refusal of a CPU without AVX2; re-raises anything else."""
    if "precision 'int8' needs AVX2" not in str(error):
        raise error
    pytest.skip(f"not run: {error}")


# ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA, which oneDNN 3 reads after it) values that hide each int8
# dot-product instruction set from Quiver's oneDNN.
_HIDE_AVX512_VNNI = ("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2", "AVX512_CORE")
_HIDE_AVX_VNNI = ("SSE41", "AVX", "AVX2")


def has_int8_dot_products() -> bool:
    """Whether Quiver's oneDNN multiplies int8 with avx512_vnni or avx_vnni here (the CPU has one and
    ONEDNN_MAX_CPU_ISA does not hide it): backends/cpu/cpu_precision.h, HasInt8DotProducts."""
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    limit = (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "").upper()
    return (("avx512_vnni" in flags and limit not in _HIDE_AVX512_VNNI)
            or ("avx_vnni" in flags and limit not in _HIDE_AVX_VNNI))


def error_bound_factor() -> float:
    """How many times MXNet's int8 error Quiver's may reach on this CPU: 1.5 (the tests' argument: a
    float accumulation rounds single values onto the neighbouring step), times 2 without int8 dot
    products, where Quiver quantizes weights to 7 bits instead of 8 so that oneDNN's 16-bit pair sums
    cannot saturate (docs/precision.rst): each weight's rounding error doubles, its share of the output
    error with it, and the data's share stays. MXNet keeps 8 bits there and saturates instead."""
    return 1.5 if has_int8_dot_products() else 3.0
