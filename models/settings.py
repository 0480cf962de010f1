"""Settings dataclasses from JSON: an unknown key is an error that names it, not a TypeError."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def from_dict(cls: type[T], data: dict[str, Any], what: str) -> T:
    unknown = set(data) - {f.name for f in fields(cls)}  # type: ignore[arg-type]
    if unknown:
        raise ValueError(f"unknown {what}: {', '.join(sorted(unknown))}")
    return cls(**data)
