"""int8_support's reading of the CPU: which int8 error bound the other tests in tests/int8 apply."""
from __future__ import annotations

import pytest

from int8_support import error_bound_factor, has_int8_dot_products


def _flags() -> list:
    with open("/proc/cpuinfo") as f:
        return next(line.split(":", 1)[1].split() for line in f if line.startswith("flags"))


@pytest.mark.parametrize("variable", ["ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"])
def test_an_avx2_limit_hides_int8_dot_products(monkeypatch, variable):
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    monkeypatch.setenv(variable, "AVX2")
    assert not has_int8_dot_products()
    assert error_bound_factor() == 3.0


def test_without_a_limit_the_cpu_flags_decide(monkeypatch):
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    vnni = "avx512_vnni" in _flags() or "avx_vnni" in _flags()
    assert has_int8_dot_products() == vnni
    assert error_bound_factor() == (1.5 if vnni else 3.0)
    # A limit at or above the CPU's own level hides nothing.
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX10_1_512_AMX_FP16")
    assert has_int8_dot_products() == vnni
