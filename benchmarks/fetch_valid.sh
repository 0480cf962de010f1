#!/usr/bin/env bash
# Fetch the JavaScript corpus' validation-split packages (models/manifests/javascript.txt, split by
# models.corpus.split_of) into bench-out/valid/javascript, each with its runtime dependencies in
# node_modules, laid out as benchmarks/fetch_heldout.sh lays out the held-out ones: where a rule's
# or a threshold's precision is counted through the server (never on the held-out packages).
set -euo pipefail
out=${1:-bench-out/valid/javascript}
python=${PYTHON:-python3}
mapfile -t specs < <("$python" - <<'PY'
from treecomplete.models.corpus import split_of
for line in open("models/manifests/javascript.txt"):
    spec = line.split("#")[0].strip()
    if spec and split_of(spec[0] + spec[1:].split("@")[0]) == "valid":
        print(spec)
PY
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
(cd "$tmp" && npm pack --silent "${specs[@]}" >/dev/null)
for archive in "$tmp"/*.tgz; do
  name=$(basename "$archive" .tgz); rm -rf "${out:?}/$name"; mkdir -p "$out/$name"
  tar -xzf "$archive" -C "$out/$name"
  find "$out/$name" -type f ! -name '*.js' ! -name package.json -delete
  # bundles (dist/, files over 200 KB as for the held-out ones) are generated: not what a user writes
  find "$out/$name" \( -name '*.min.js' -o -path '*/test/*' -o -path '*/dist/*' -o -size +200k \) -type f -delete
  (cd "$out/$name/package" && ! node -e 'process.exit(Object.keys(require("./package.json").dependencies || {}).length ? 0 : 1)' \
    || npm install --silent --omit=dev --ignore-scripts --no-audit --no-fund --no-package-lock --legacy-peer-deps >/dev/null) \
    || echo "$name: dependencies not installed" >&2
done
echo "javascript (valid): ${#specs[@]} packages, $(find "$out" -path '*/node_modules' -prune -o -name '*.js' -print | wc -l) files in $out"
