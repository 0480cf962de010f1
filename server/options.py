"""User settings (section ``treecomplete``), with their defaults in one place.

Settings arrive as JSON from ``initializationOptions`` and ``workspace/configuration``. Each
one is checked on its own: a bad value is reported in a sentence and replaced by its default,
so one typo never costs the user the other settings, or the server.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

SECTION = "treecomplete"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


@dataclass(frozen=True)
class Options:
    max_items: int = field(
        default=50, metadata={"min": 1, "max": 1000, "help": "items per completion list"}
    )
    max_file_size: int = field(
        default=5_000_000,
        metadata={"min": 0, "max": 1 << 31, "help": "bytes; larger documents get no completions"},
    )
    model: str = field(
        default="",
        metadata={"help": "a model name (python-pointer-lstm, a fine-tuned model...) or a .pt path; "
                          "'fallback' turns neural completion off; empty: the shipped default per language"},
    )
    multi_token: bool = field(
        default=True, metadata={"help": "offer multi-token completions (os.path.join(), found by beam search"}
    )
    project_index: bool = field(
        default=True,
        metadata={"help": "offer identifiers of the workspace's other files (read in the background, at most 5,000 files)"},
    )
    libraries: bool = field(
        default=True,
        metadata={"help": "after a dot, offer the members of the modules and classes the code imports and the class around the "
                          "cursor, read from their source in the background (never run)"},
    )
    auto_import: bool = field(
        default=True,
        metadata={"help": "offer names the file has not imported yet (from the project's modules, the standard library and "
                          "Node's), each with the import that accepting it adds"},
    )
    python_path: str = field(
        default="",
        metadata={"help": "the Python interpreter whose site-packages the imports come from; empty: a .venv or venv "
                          "folder of the workspace, else VIRTUAL_ENV / CONDA_PREFIX, else the server's own"},
    )
    memory_limit: int = field(
        default=1024,
        metadata={"min": 64, "max": 1 << 20, "help": "MB of resident memory the server holds itself to: above it, it "
                                                     "drops what it can rebuild (syntax trees, caches, model states)"},
    )
    device: str = field(
        default="auto",
        metadata={"choices": ("auto", "cpu", "cuda"), "help": "where the model runs; auto: CUDA when present"},
    )


def _check(value: Any, default: Any, meta: dict[str, Any]) -> str | None:
    """Why ``value`` is not valid for a setting, or None."""
    if isinstance(default, int) and not isinstance(default, bool) and type(value) is not int:  # JSON true is not a number
        return "must be an integer"
    if type(value) is not type(default):
        return f"must be a {type(default).__name__}"
    if "choices" in meta and value not in meta["choices"]:
        return f"must be one of {', '.join(meta['choices'])}"
    if "min" in meta and not meta["min"] <= value <= meta["max"]:
        return f"must be between {meta['min']} and {meta['max']}"
    return None


def parse_options(raw: Any, base: Options | None = None) -> tuple[Options, list[str]]:
    """Options from a settings object, and one message per setting that was rejected."""
    base = base or Options()
    if raw is None:
        return base, []
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        raw = raw[SECTION]  # {"treecomplete": {...}} as well as {...}
    if not isinstance(raw, dict):
        return base, [f"{SECTION} settings must be an object, not {type(raw).__name__}; using defaults."]
    changes: dict[str, Any] = {}
    problems: list[str] = []
    for f in fields(Options):
        key = _camel(f.name)
        if key not in raw:
            continue
        why = _check(raw[key], f.default, f.metadata)
        if why is None:
            changes[f.name] = raw[key]
        else:
            problems.append(
                f"Setting {SECTION}.{key} {why} (got {raw[key]!r}); using {f.default!r}."
            )
            changes[f.name] = f.default
    return replace(base, **changes), problems
