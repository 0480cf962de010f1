#!/usr/bin/env bash
# Fetch the held-out source used by the benchmarks into bench-out/heldout/{python,javascript,typescript}.
# These packages must never enter a training corpus (the corpus manifests exclude them).
set -euo pipefail
out=${1:-bench-out/heldout}
python_packages=(click==8.1.7 httpx==0.27.2 jinja2==3.1.4)
js_packages=(express@4.21.2 koa@2.15.3 commander@12.1.0)
ts_packages=(rxjs@7.8.2 mobx@7.1.3 @tanstack/query-core@5.108.0)  # npm packages that ship their .ts sources
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/python" "$out/javascript" "$out/typescript" "$tmp/py" "$tmp/js" "$tmp/ts"
pip download --quiet --no-deps --no-binary :all: -d "$tmp/py" "${python_packages[@]}"
for archive in "$tmp"/py/*.tar.gz; do tar -xzf "$archive" -C "$tmp/py"; done
# Each package keeps its folders (bench-out/heldout/python/click-8.1.7/src/click/core.py): a
# project as an editor opens it, whose imports name its files.
copy_tree() { # root, dest, find-args...: the matching files under root, at the same paths under dest
  local root=$1 dest; dest=$(cd "$2" && pwd); shift 2
  (cd "$root" && find . "$@" -print0 | while IFS= read -r -d '' f; do
    mkdir -p "$dest/$(dirname "$f")" && cp "$f" "$dest/$f"
  done)
}
rm -rf "$out/python"/* "$out/javascript"/* "$out/typescript"/*  # (.venv and node_modules with them)
copy_tree "$tmp/py" "$out/python" -name '*.py' ! -path '*/tests/*' ! -path '*/docs/*' -size -200k
(cd "$tmp/js" && npm pack --silent "${js_packages[@]}" >/dev/null)
for archive in "$tmp"/js/*.tgz; do
  name=$(basename "$archive" .tgz); mkdir -p "$tmp/js/x/$name" && tar -xzf "$archive" -C "$tmp/js/x/$name"
done
copy_tree "$tmp/js/x" "$out/javascript" -name '*.js' ! -name '*.min.js' ! -path '*/test/*' -size -200k
(cd "$tmp/ts" && npm pack --silent "${ts_packages[@]}" >/dev/null)
for archive in "$tmp"/ts/*.tgz; do
  name=$(basename "$archive" .tgz); mkdir -p "$tmp/ts/x/$name" && tar -xzf "$archive" -C "$tmp/ts/x/$name"
done
copy_tree "$tmp/ts/x" "$out/typescript" -name '*.ts' ! -name '*.d.ts' ! -path '*/test/*' ! -path '*/__tests__/*' -size -200k
# Each package's own dependencies, installed where an editor's user has them: a .venv beside the
# Python package (without the package itself, whose files are the workspace's), node_modules in
# the JavaScript package's folder. The server reads them as libraries; the benchmarks never
# sample their files.
for spec in "${python_packages[@]}"; do
  name=${spec%%==*}; dir=$(ls -d "$out/python/$name-"* | head -1)
  python3 -m venv "$dir/.venv" && "$dir/.venv/bin/pip" install --quiet "$spec" && "$dir/.venv/bin/pip" uninstall --quiet -y "$name"
done
for lang in js ts; do
  dest=$([ $lang = js ] && echo javascript || echo typescript)
  for archive in "$tmp"/$lang/*.tgz; do
    name=$(basename "$archive" .tgz)
    cp "$tmp/$lang/x/$name/package/package.json" "$out/$dest/$name/package/"
    # A package with no runtime dependencies installs nothing (@tanstack/query-core's dev ones
    # name its monorepo's unpublished packages); dev dependencies' peer conflicts do not matter.
    (cd "$out/$dest/$name/package" && ! node -e 'process.exit(Object.keys(require("./package.json").dependencies || {}).length ? 0 : 1)' \
      || npm install --silent --omit=dev --ignore-scripts --no-audit --no-fund --no-package-lock --legacy-peer-deps >/dev/null)
  done
done
echo "python: $(find "$out/python" -path '*/.venv' -prune -o -type f -print | wc -l) files, javascript: $(find "$out/javascript" -path '*/node_modules' -prune -o -name '*.js' -print | wc -l) files in $out"
