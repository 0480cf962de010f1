"""The code that attrs, dataclasses and cattrs generate at start-up, kept between starts.

lsprotocol's types module declares ~570 attrs classes, and attrs writes each one's
``__init__``, ``__repr__`` and ``__eq__`` as source text and compiles it as the class is made:
about half of the module's import time, which is most of the time to answer ``initialize``.
The server's own dataclasses do the same on a smaller scale, and cattrs for each message type
the first time one is read or written (the ``initialize`` request and its answer). The text is
the same at every start, so its compiled code is kept in the user's cache folder (one marshal
file per bytecode version), keyed by a digest of the text and its file name, and the next start
takes it from there instead of compiling.

Only compiling is replaced, and only until the server has answered ``initialize``: attrs and
cattrs look ``compile`` up, and dataclasses ``exec``, in their own module's globals, where a
name of ours shadows the builtin until then. A cache that is missing, unreadable or of another
Python gives way to compiling; the file is rewritten whole (atomically) when an entry was
missing. It is trusted as the interpreter's own ``__pycache__`` is: both lie in folders only the
user writes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import marshal
import os
import types
from pathlib import Path

import platformdirs

log = logging.getLogger(__name__)


def cache_file() -> Path:
    """The cache of this interpreter's bytecode version."""
    name = f"generated-code-{importlib.util.MAGIC_NUMBER.hex()}.marshal"
    return Path(platformdirs.user_cache_dir("treecomplete")) / name


def _key(source: str, filename: str) -> bytes:
    return hashlib.blake2b(f"{filename}\0{source}".encode(), digest_size=16).digest()


def read(path: Path) -> dict[bytes, types.CodeType]:
    """The cache's entries; none where the file is missing or not one of ours."""
    try:
        loaded = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError) as error:
        if not isinstance(error, FileNotFoundError):
            log.debug("generated code cache %s not read: %s", path, error)
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {key: code for key, code in loaded.items() if isinstance(key, bytes) and isinstance(code, types.CodeType)}


def write(path: Path, entries: dict[bytes, types.CodeType]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_bytes(marshal.dumps(entries))
        os.replace(partial, path)
    except (OSError, ValueError) as error:
        log.debug("generated code cache %s not written: %s", path, error)


class GeneratedCode:
    """From ``start()`` to ``stop()``, the methods that attrs, dataclasses and cattrs generate
    come from the cache at ``path`` (default: ``cache_file()``). Where one had to be compiled,
    ``stop()`` rewrites the file with what was used in between (entries of an older lsprotocol
    go). Also a context manager; ``used`` holds the entries."""

    def __init__(self, path: Path | None = None):
        self.path = cache_file() if path is None else path
        self.entries: dict[bytes, types.CodeType] = {}
        self.used: dict[bytes, types.CodeType] = {}  # what this start needed: the file keeps these alone
        self.missed = False
        self._modules: list[tuple[object, str]] = []  # (module, name shadowed there)

    def compile(self, source, filename, mode, *args, **kwargs):  # builtins.compile's signature
        if not isinstance(source, str) or args or kwargs:
            return compile(source, filename, mode, *args, **kwargs)
        key = _key(source, filename)
        code = self.entries.get(key)
        if code is None:
            code = compile(source, filename, mode)
            self.missed = True
        self.used[key] = code
        return code

    def exec(self, source, globals=None, locals=None, /):  # builtins.exec's, as dataclasses calls it
        code = self.compile(source, "<string>", "exec") if isinstance(source, str) else source
        return exec(code, globals, locals)

    def start(self) -> GeneratedCode:
        import dataclasses

        import attr._make
        import cattrs.gen

        self.entries = read(self.path)
        self._modules = [(attr._make, "compile"), (cattrs.gen, "compile"), (dataclasses, "exec")]
        for module, name in self._modules:
            setattr(module, name, getattr(self, name))
        return self

    def stop(self) -> None:
        """The builtins back; the file rewritten if an entry was missing. Idempotent."""
        modules, self._modules = self._modules, []
        for module, name in modules:
            vars(module).pop(name, None)
        if modules and self.missed:
            write(self.path, self.used)
        self.entries = {}

    def __enter__(self) -> GeneratedCode:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
