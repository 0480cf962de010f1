"""The machine line the speed benchmarks print before their figures (benchmarks/machine.py)."""

from __future__ import annotations

import pytest

from benchmarks.machine import describe

XEON = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8488C\nflags\t\t: fpu avx2 avx512f avx512_bf16 amx_bf16 amx_tile\n"
EPYC = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2 avx2 fma\n"


def test_the_cpu_and_whether_it_has_bfloat16():
    assert describe(XEON).startswith("machine: Intel(R) Xeon(R) Platinum 8488C, ")
    assert describe(XEON).endswith("native bfloat16: yes")
    assert "AMD EPYC 7B13" in describe(EPYC) and describe(EPYC).endswith("native bfloat16: no")
    assert describe("").endswith("native bfloat16: unknown")  # no /proc/cpuinfo to read


def test_it_agrees_with_what_the_model_asks_torch():
    from treecomplete.models.pointer_lstm import native_bfloat16

    line = describe()
    if line.endswith("unknown"):
        pytest.skip("no /proc/cpuinfo here")
    assert line.endswith("yes") == native_bfloat16()
