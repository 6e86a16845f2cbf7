"""How a bfloat16 fixture set absent by design is decided, reported and cached (tests/amp/bf16_cpu.py,
scripts/cached_dir.sh), on any CPU: the CPU's flags are replaced where the answer depends on them."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import bf16_cpu

CACHED_DIR = Path(__file__).resolve().parents[2] / "scripts" / "cached_dir.sh"
AVX512_CORE = {"avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq"}
ABSENT = {"models": [], "absent": "this CPU lacks avx512bw"}


def test_mxnet_runs_bfloat16_with_avx512_core_unless_the_limit_hides_it(monkeypatch):
    monkeypatch.setattr(bf16_cpu, "cpu_flags", lambda: AVX512_CORE)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    assert bf16_cpu.mxnet_bf16_blocker() is None
    monkeypatch.setenv("DNNL_MAX_CPU_ISA", "AVX512_CORE")
    assert bf16_cpu.mxnet_bf16_blocker() is None
    monkeypatch.setenv("DNNL_MAX_CPU_ISA", "AVX2")
    assert "DNNL_MAX_CPU_ISA=AVX2" in bf16_cpu.mxnet_bf16_blocker()


def test_an_avx2_only_cpu_names_what_it_lacks(monkeypatch):
    monkeypatch.setattr(bf16_cpu, "cpu_flags", lambda: {"avx", "avx2", "fma"})
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    assert "lacks avx512f, avx512bw, avx512vl, avx512dq" in bf16_cpu.mxnet_bf16_blocker()


def test_an_absent_set_is_not_run_only_where_the_cpu_cannot_make_it(monkeypatch):
    monkeypatch.setattr(bf16_cpu, "cpu_flags", lambda: {"avx2"})
    assert bf16_cpu.absent_reason(ABSENT) == "not run: MXNet cannot make these bfloat16 fixtures here: " + \
        ABSENT["absent"]
    assert bf16_cpu.absent_reason({"models": [{}]}) is None  # a set that is there
    monkeypatch.setattr(bf16_cpu, "cpu_flags", lambda: AVX512_CORE)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    assert bf16_cpu.absent_reason(ABSENT) is None  # a stale marker: the tests find no fixtures and fail


def _cached_dir(directory: Path, limit: str) -> str:
    """Runs cached_dir on `directory` with a generator that marks its set absent; returns the log."""
    script = f"""
        source {CACHED_DIR}
        generate() {{ echo 'no avx512bw here' >"$1/ABSENT"; echo '{{"models": [], "absent": "x"}}' >"$1/manifest.json"; }}
        cached_dir {directory} .stamp KEY 0 generate >/dev/null
    """
    env = {"PATH": "/usr/bin:/bin", "DNNL_MAX_CPU_ISA": limit}
    return subprocess.run(["bash", "-c", script], env=env, check=True, capture_output=True, text=True).stderr


def test_cached_dir_keeps_an_absent_set_only_for_the_cpu_it_was_decided_on(tmp_path):
    directory = tmp_path / "set"
    assert "generating" in _cached_dir(directory, "AVX2")
    assert (directory / ".stamp").read_text().startswith("KEY absent on cpu ")
    assert "up to date" in _cached_dir(directory, "AVX2")  # the same CPU: not remade every run
    assert "generating" in _cached_dir(directory, "")  # the ISA limit lifted: made again
