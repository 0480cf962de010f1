"""Shared test helpers. Tests that need the real server process live in tests/e2e/."""

from __future__ import annotations

import sys

SERVER = [sys.executable, "-m", "treecomplete", "--stdio", "--log-level", "INFO"]
