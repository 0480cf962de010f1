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
# One flat folder; a file's name keeps its path (pkg_module_file.py) so nothing collides.
copy_flat() { # root, dest, find-args...
  local root=$1 dest=$2; shift 2
  find "$root" "$@" -print0 | while IFS= read -r -d '' f; do cp "$f" "$dest/$(echo "${f#"$root"/}" | tr / _)"; done
}
copy_flat "$tmp/py" "$out/python" -name '*.py' ! -path '*/tests/*' ! -path '*/docs/*' -size -200k
(cd "$tmp/js" && npm pack --silent "${js_packages[@]}" >/dev/null)
for archive in "$tmp"/js/*.tgz; do
  name=$(basename "$archive" .tgz); mkdir -p "$tmp/js/x/$name" && tar -xzf "$archive" -C "$tmp/js/x/$name"
done
copy_flat "$tmp/js/x" "$out/javascript" -name '*.js' ! -name '*.min.js' ! -path '*/test/*' -size -200k
echo "python: $(ls "$out/python" | wc -l) files, javascript: $(ls "$out/javascript" | wc -l) files in $out"
