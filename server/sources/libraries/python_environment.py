"""Where a Python document's imports come from, found as editors find it: the ``pythonPath``
setting; else a ``.venv`` or ``venv`` folder in a folder above the document, within its
workspace folder; else ``VIRTUAL_ENV`` / ``CONDA_PREFIX``; else this server's own interpreter;
and the project's own modules (its package, a script's siblings, the workspace's root and
``src/``). Looks at the disk: on the loader's thread, and for auto-import at most once every
few seconds per folder (sources/installed.py ``environment_of``).
"""

from __future__ import annotations

import functools
import logging
import os
import sysconfig
from pathlib import Path

log = logging.getLogger(__name__)


def project_module(folder: Path, module: str) -> tuple[Path, str] | None:
    """Where a document in ``folder`` finds the project's own ``module``: the folder above its
    package (to search as site-packages are) and the module's full dotted name. ``module`` is
    relative (``.core``, ``..base``: from the document's package) or absolute
    (``mypkg.core``: from the package that holds the document, by its first name)."""
    level = len(module) - len(module.lstrip("."))
    rest = module[level:]
    if level:
        base = folder
        for _ in range(level - 1):
            base = base.parent
    else:
        base = folder
        while (base / "__init__.py").is_file() and base.name != rest.split(".")[0] and base.parent != base:
            base = base.parent
        if base.name != rest.split(".")[0] or not (base / "__init__.py").is_file():
            return None  # not in the document's own package: site-packages have it, if anything
        return base.parent, rest
    parts: list[str] = []
    while (base / "__init__.py").is_file() and base.parent != base:
        parts.insert(0, base.name)
        base = base.parent
    if not parts and level > 1:
        return None
    dotted = ".".join(parts + ([rest] if rest else []))
    return (base, dotted) if dotted else None


UP = 8  # folders climbed looking for a project's top-level module outside every workspace


def import_root(folder: Path, name: str, workspace: Path | None) -> Path | None:
    """Where the project's own top-level module or package ``name`` is imported from by a
    document in ``folder``, as Python and pytest find it: the document's folder (a script's
    sibling ``helpers.py``), then each folder above it up to the workspace's (``mypkg/`` at
    the root, imported from ``tests/``), each with its ``src/`` (the src layout). A package is
    found before a namespace package (a folder without ``__init__.py``, PEP 420) anywhere, as
    Python's import does."""
    folders = import_folders(folder, workspace)
    for base in folders:
        if (base / name / "__init__.py").is_file() or (base / f"{name}.py").is_file() or (base / f"{name}.pyi").is_file():
            return base
    return next((base for base in folders if (base / name).is_dir()), None)


def import_folders(folder: Path, workspace: Path | None) -> list[Path]:
    """The folders that import_root looks in, in its order: where a module the project has not
    made yet would be made (its creation changes the folder)."""
    found, here = [], folder
    for _ in range(64 if workspace is not None else UP):
        found += [here, here / "src"]
        if here == workspace or here.parent == here or (workspace is not None and workspace not in here.parents):
            break
        here = here.parent
    return found


def site_packages(env: Path) -> list[Path]:
    """The site-packages folders of an environment's prefix (a venv, a conda env, an install)."""
    found = sorted(env.glob("lib/python3*/site-packages")) + sorted(env.glob("lib/python3*/dist-packages"))
    found += [p for p in (env / "Lib" / "site-packages",) if p.is_dir()]
    return [p for p in found if p.is_dir()]


def project_venv(folder: Path, workspace: Path | None) -> Path | None:
    """A ``.venv`` or ``venv`` folder (with its ``pyvenv.cfg``) in ``folder`` or a folder above
    it, within ``workspace`` where one is given."""
    stop = workspace or Path(folder.anchor)
    while True:
        for name in (".venv", "venv"):
            if (folder / name / "pyvenv.cfg").is_file():
                return folder / name
        if folder == stop or folder.parent == folder or stop not in folder.parents:
            return None
        folder = folder.parent


def environment(folder: Path | None, workspace: Path | None, python_path: str = "") -> tuple[Path, ...]:
    """The site-packages folders that the imports of a document in ``folder`` come from."""
    found = user_environment(folder, workspace, python_path)
    if found is not None:
        return found
    paths = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    return tuple(sorted(Path(p) for p in paths if Path(p).is_dir()))


PTH_FILES = 64  # .pth files read per site-packages folder at most
PTH_BYTES = 64 << 10  # and bytes of each


def linked_folders(sites: tuple[Path, ...]) -> tuple[Path, ...]:
    """The folders that the ``.pth`` files of ``sites`` add to the import path, as Python's site
    module does: an editable install (``pip install -e``, uv and hatch workspaces) of a project
    outside the environment (``/repo/packages/core/src``). Read again when a site-packages
    folder changes (an install writes its .pth there)."""
    stamps = []
    for site in sites:
        try:
            stamps.append(os.stat(site).st_mtime_ns)
        except OSError:
            stamps.append(0)
    return _linked_folders(sites, tuple(stamps))


@functools.lru_cache(maxsize=16)
def _linked_folders(sites: tuple[Path, ...], _stamps: tuple[int, ...]) -> tuple[Path, ...]:
    found: list[Path] = []
    for site in sites:
        try:
            files = sorted(site.glob("*.pth"))[:PTH_FILES]
        except OSError:
            continue
        for pth in files:
            try:
                if pth.stat().st_size > PTH_BYTES:
                    continue
                lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.strip()
                if not line or line.startswith(("#", "import ", "import\t")):
                    continue
                folder = Path(line) if os.path.isabs(line) else site / line
                if folder not in found and folder not in sites and folder.is_dir():
                    found.append(folder)
    return tuple(found)


@functools.lru_cache(maxsize=8)
def _interpreter_site(python_path: str) -> tuple[Path, ...]:
    """The site-packages of the pythonPath interpreter's environment, the folder above its bin/
    (Scripts\\ on Windows): looked for once per setting (each folder asks), a wrong one logged once."""
    found = tuple(site_packages(Path(python_path).expanduser().parent.parent))
    if not found:
        log.warning("pythonPath %s: no site-packages found beside it", python_path)
    return found


def user_environment(folder: Path | None, workspace: Path | None, python_path: str = "",
                     skip: Path | None = None) -> tuple[Path, ...] | None:
    """environment()'s site-packages folders where the setting, a folder or the variables name
    one; None where only the server's own interpreter is left. A variable that names ``skip``
    (a prefix) counts as unset."""
    if python_path and (found := _interpreter_site(python_path)):
        return found
    venv = project_venv(folder, workspace) if folder is not None else None
    if venv is not None:
        return tuple(site_packages(venv))
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if (value := os.environ.get(variable)) and not (skip is not None and Path(value).resolve() == skip.resolve()):
            return tuple(site_packages(Path(value)))
    return None
