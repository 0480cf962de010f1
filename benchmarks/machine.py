"""What machine a speed benchmark ran on, printed before its figures: the model's reads take about
twice as long on a CPU without native bfloat16 (docs/benchmarks.md §4), so latency figures from
different machines are compared only with this line beside them."""

from __future__ import annotations

import os
import platform
from pathlib import Path

BFLOAT16_FLAGS = ("avx512_bf16", "amx_bf16")  # what models/pointer_lstm.native_bfloat16 asks torch for


def describe(cpuinfo: str | None = None) -> str:
    """One line: the CPU's model name, the CPUs this process may use, and whether the CPU
    multiplies bfloat16 natively (Linux's /proc/cpuinfo; "unknown" where it cannot be read)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            cpuinfo = ""
    name, flags = "", None
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and not name:
            name = value.strip()
        elif key.strip() == "flags" and flags is None:
            flags = set(value.split())
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    native = "unknown" if flags is None else "yes" if flags & set(BFLOAT16_FLAGS) else "no"
    return f"machine: {name or platform.processor() or platform.machine()}, {cpus} CPUs, native bfloat16: {native}"
