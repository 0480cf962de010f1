"""The VS Code extension without VS Code: its server-finding unit tests (node --test), its type
check, and the .vsix build (offline, @vscode/vsce), from a clean `npm ci` of the lock file."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(NPM is None or shutil.which("node") is None, reason="node and npm are needed")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("vscode") / "vscode"
    shutil.copytree(EXTENSION, work, ignore=shutil.ignore_patterns("node_modules", "dist", "*.vsix"))
    subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=work, check=True, capture_output=True, timeout=600)
    return work


def test_server_finding_unit_tests_pass(built: Path):
    run = subprocess.run([NPM, "test"], cwd=built, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# pass 6" in run.stdout and "# fail 0" in run.stdout


def test_the_extension_type_checks(built: Path):
    run = subprocess.run(["npx", "tsc", "-p", "."], cwd=built, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_vsix_builds_with_the_bundle_and_manifest(built: Path):
    run = subprocess.run([NPM, "run", "package"], cwd=built, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    with zipfile.ZipFile(built / "treecomplete.vsix") as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
    assert {"extension/dist/extension.js", "extension/package.json", "extension.vsixmanifest"} <= names
    assert not any(name.startswith("extension/node_modules") or name.startswith("extension/src") for name in names)
    commands = {c["command"] for c in manifest["contributes"]["commands"]}
    assert commands == {"treecomplete.restartServer", "treecomplete.showLog"}
    assert {"treecomplete.server.path", "treecomplete.model", "treecomplete.device", "treecomplete.maxItems",
            "treecomplete.multiToken", "treecomplete.projectIndex", "treecomplete.trace.server"} <= set(manifest["contributes"]["configuration"]["properties"])
