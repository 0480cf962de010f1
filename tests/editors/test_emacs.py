"""Emacs with eglot (Debian's emacs-nox and elpa-eglot) and editors/emacs/treecomplete-eglot.el:
the server attaches to a Python buffer, code is inserted, and completion-at-point offers a
made-up identifier defined earlier in the buffer, whose resolved detail says the model's
pointer copied it. Skipped where Emacs or eglot is not installed."""

from __future__ import annotations

import glob
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EMACS = shutil.which("emacs")
ELPA = sorted(glob.glob("/usr/share/emacs/site-lisp/elpa/*"))
CONFIG = Path(__file__).resolve().parents[2] / "editors" / "emacs" / "treecomplete-eglot.el"

pytestmark = pytest.mark.skipif(EMACS is None or not any("eglot" in d for d in ELPA),
                                reason="emacs and eglot (apt-get install emacs-nox elpa-eglot)")

SCRIPT = r"""
(dolist (dir '(%(elpa)s)) (add-to-list 'load-path dir))
(load %(config)s)
(setq treecomplete-command '(%(python)s "-m" "treecomplete" "--stdio"))
(setq-default eglot-workspace-configuration '(:treecomplete (:model %(model)s)))
(find-file %(file)s)
(eglot-ensure)
(run-hooks 'post-command-hook)
(let ((deadline (+ (float-time) 60)))
  (while (and (not (eglot-current-server)) (< (float-time) deadline))
    (accept-process-output nil 0.2)))
(princ (format "attached: %%S\n" (and (eglot-current-server) t)))
(goto-char (point-max))
(insert "    return zib")
(let ((detail nil) (deadline (+ (float-time) 120)))
  (while (and (not (and detail (string-match-p "copied from line" detail))) (< (float-time) deadline))
    (accept-process-output nil 0.3)
    (let* ((capf (eglot-completion-at-point))
           (candidates (and capf (all-completions "zib" (nth 2 capf)))))
      (dolist (c candidates)
        (when (string= c "zibble_total")
          (setq detail (plist-get (jsonrpc-request (eglot-current-server) :completionItem/resolve
                                                   (get-text-property 0 'eglot--lsp-item c))
                                  :detail))))))
  (princ (format "detail: %%s\n" detail)))
"""


def _lisp(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_eglot_completes_a_copied_identifier(tmp_path: Path, toy_checkpoint: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)  # a project for eglot
    source = workspace / "blend.py"
    source.write_text("def blend_quorx(left_vhal, right_vhal):\n    zibble_total = left_vhal + right_vhal\n")
    script = tmp_path / "test.el"
    script.write_text(SCRIPT % {"elpa": " ".join(_lisp(d) for d in ELPA), "config": _lisp(str(CONFIG)),
                                "python": _lisp(sys.executable), "model": _lisp(str(toy_checkpoint)),
                                "file": _lisp(str(source))})
    run = subprocess.run([EMACS, "--batch", "-Q", "-l", str(script)], capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert "attached: t" in output, output
    detail = [line for line in output.splitlines() if line.startswith("detail: ")]
    assert detail and "copied from line" in detail[0], output
