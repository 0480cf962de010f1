"""The server's own resident memory, for the memoryLimit setting: read from /proc where there
is one (Linux); elsewhere unknown, and the limit is not held."""

from __future__ import annotations

import gc
import os


def resident_mb() -> float | None:
    """Resident memory of this process in MB; None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def release() -> float | None:
    """Collect what was dropped and hand free heap back to the system where the C library can
    (glibc's malloc_trim); the resident memory after."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return resident_mb()
