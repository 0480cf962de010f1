#!/usr/bin/env bash
# Fetch the held-out source used by the benchmarks into bench-out/heldout/{python,javascript}.
# These packages must never enter a training corpus (the corpus manifests exclude them).
set -euo pipefail
out=${1:-bench-out/heldout}
python_packages=(click==8.1.7 httpx==0.27.2 jinja2==3.1.4)
js_packages=(express@4.21.2 koa@2.15.3 commander@12.1.0)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/python" "$out/javascript" "$tmp/py" "$tmp/js"
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
rm -rf "$out/python"/* "$out/javascript"/*
copy_tree "$tmp/py" "$out/python" -name '*.py' ! -path '*/tests/*' ! -path '*/docs/*' -size -200k
(cd "$tmp/js" && npm pack --silent "${js_packages[@]}" >/dev/null)
for archive in "$tmp"/js/*.tgz; do
  name=$(basename "$archive" .tgz); mkdir -p "$tmp/js/x/$name" && tar -xzf "$archive" -C "$tmp/js/x/$name"
done
copy_tree "$tmp/js/x" "$out/javascript" -name '*.js' ! -name '*.min.js' ! -path '*/test/*' -size -200k
echo "python: $(find "$out/python" -type f | wc -l) files, javascript: $(find "$out/javascript" -type f | wc -l) files in $out"
