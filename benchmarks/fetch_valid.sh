#!/usr/bin/env bash
# Fetch a corpus' validation-split packages (models/manifests/LANG.txt, split by
# models.corpus.split_of) into bench-out/valid/LANG, laid out as benchmarks/fetch_heldout.sh and
# fetch_heldout_grammars.sh lay out the held-out ones: where a rule's, a threshold's or a bound's
# effect is counted (never on the held-out packages).
#   bash benchmarks/fetch_valid.sh [javascript|typescript|go] [OUT]
# JavaScript and TypeScript: each package with its runtime dependencies in node_modules (as
# fetch_heldout.sh installs the held-out ones'); TypeScript's own .ts sources only (no
# declarations, dist/ or tests). Go: the Debian packages' .go files (no tests), the generated
# aws-sdk-go-v2 left out (16,000 files).
# (Python: python -m benchmarks.valid_python.)
set -euo pipefail
lang=${1:-javascript}
out=${2:-bench-out/valid/$lang}
python=${PYTHON:-python3}
case "$lang" in javascript|typescript|go) ;; *) echo "fetch_valid.sh: no such corpus: $lang" >&2; exit 2 ;; esac
mapfile -t specs < <(LANG_NAME=$lang "$python" - <<'PY'
import os
from treecomplete.models.corpus import split_of
lang = os.environ["LANG_NAME"]
for line in open(f"models/manifests/{lang}.txt"):
    spec = line.split("#")[0].strip()
    name = spec if lang == "go" else spec[:1] + spec[1:].split("@")[0]
    if spec and split_of(name) == "valid" and "aws-sdk-go-v2" not in spec:
        print(spec)
PY
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
if [ "$lang" = go ]; then
  (cd "$tmp" && apt-get download -qq "${specs[@]}" >/dev/null 2>&1) || echo "some Debian packages were not downloaded" >&2
  for deb in "$tmp"/*.deb; do
    name=$(basename "$deb"); name=${name%%_*}; rm -rf "${out:?}/$name"; mkdir -p "$tmp/x/$name" "$out/$name"
    dpkg -x "$deb" "$tmp/x/$name"
    dest=$(cd "$out/$name" && pwd)
    (cd "$tmp/x/$name" && find . -name '*.go' ! -name '*_test.go' -size -200k -print0 | xargs -0 -r cp --parents -t "$dest")
  done
  echo "go (valid): ${#specs[@]} packages, $(find "$out" -name '*.go' | wc -l) files in $out"
  exit 0
fi
# DIR: its package.json's dependencies installed into DIR/node_modules, from a package.json
# naming them alone (npm resolves the dev ones too, and a monorepo's may be unpublished)
runtime_dependencies() {
  local deps="$tmp/deps"
  rm -rf "$deps" && mkdir -p "$deps"
  node -e 'const p = require(require("path").resolve(process.argv[1])); if (!Object.keys(p.dependencies || {}).length) process.exit(3);
    require("fs").writeFileSync(process.argv[2], JSON.stringify({name: "deps", version: "0.0.0",
      dependencies: p.dependencies, optionalDependencies: p.optionalDependencies}))' \
    "$1/package.json" "$deps/package.json" || return $(( $? == 3 ? 0 : 1 ))
  (cd "$deps" && npm install --silent --ignore-scripts --no-audit --no-fund --no-package-lock --legacy-peer-deps >/dev/null) \
    && mv "$deps/node_modules" "$1/"
}
(cd "$tmp" && npm pack --silent "${specs[@]}" >/dev/null)
for archive in "$tmp"/*.tgz; do
  name=$(basename "$archive" .tgz); rm -rf "${out:?}/$name"; mkdir -p "$out/$name"
  tar -xzf "$archive" -C "$out/$name"
  if [ "$lang" = typescript ]; then
    find "$out/$name" -type f ! -name '*.ts' ! -name package.json -delete
    find "$out/$name" \( -name '*.d.ts' -o -path '*/dist/*' -o -path '*/test/*' -o -path '*/__tests__/*' -o -size +200k \) -type f -delete
  else
    find "$out/$name" -type f ! -name '*.js' ! -name package.json -delete
    # bundles (dist/, files over 200 KB as for the held-out ones) are generated: not what a user writes
    find "$out/$name" \( -name '*.min.js' -o -path '*/test/*' -o -path '*/dist/*' -o -size +200k \) -type f -delete
  fi
  runtime_dependencies "$out/$name/package" || echo "$name: dependencies not installed" >&2
done
ext=js; [ "$lang" = typescript ] && ext=ts
echo "$lang (valid): ${#specs[@]} packages, $(find "$out" -path '*/node_modules' -prune -o -name "*.$ext" -print | wc -l) files in $out"
