#!/usr/bin/env bash
# Fetch held-out source for the languages served by the grammars alone (server/grammars.py) into
# bench-out/heldout/<language>: real code from the package registries (Debian, PyPI, npm), for
# `python -m benchmarks.editing --lang L`. Needs apt (Debian packages are unpacked, not installed).
# Usage: benchmarks/fetch_heldout_grammars.sh [out] [language...]
set -euo pipefail
out=${1:-bench-out/heldout}
shift || true
declare -A debian=(
  [go]="golang-github-spf13-cobra-dev golang-github-gorilla-mux-dev golang-github-pkg-errors-dev"
  [rust]="librust-serde-json-dev librust-regex-syntax-dev"
  [ruby]="ruby-rack ruby-thor ruby-mustermann"
  [lua]="lua-penlight lua-argparse"
  [php]="php-symfony-console php-guzzlehttp-psr7 php-monolog"
  [bash]="bash-completion"
)
declare -A pypi=([c]="ujson==5.10.0 psutil==6.1.0" [cpp]="greenlet==3.1.1" [java]="JPype1==1.5.1" [csharp]="pythonnet==3.0.5")
declare -A npm=([kotlin]="expo-modules-core@2.2.3")
declare -A pattern=([go]='*.go' [rust]='*.rs' [ruby]='*.rb' [lua]='*.lua' [php]='*.php' [c]='*.c' [cpp]='*.cpp'
                    [java]='*.java' [csharp]='*.cs' [kotlin]='*.kt')
languages=("$@")
[ ${#languages[@]} -gt 0 ] || languages=(go rust java c cpp csharp ruby php kotlin lua bash)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for lang in "${languages[@]}"; do
  work="$tmp/$lang" && mkdir -p "$work/x" && rm -rf "${out:?}/$lang" && mkdir -p "$out/$lang"
  if [ -n "${debian[$lang]:-}" ]; then
    (cd "$work" && apt-get download -qq ${debian[$lang]} >/dev/null)
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/x/$(basename "$deb" .deb)"; done
  elif [ -n "${pypi[$lang]:-}" ]; then
    pip download --quiet --no-deps --no-binary :all: -d "$work" ${pypi[$lang]}
    for archive in "$work"/*.tar.gz; do tar -xzf "$archive" -C "$work/x"; done
  else
    (cd "$work" && npm pack --silent ${npm[$lang]} >/dev/null)
    for archive in "$work"/*.tgz; do tar -xzf "$archive" -C "$work/x"; done
  fi
  if [ "$lang" = bash ]; then  # completion scripts have no extension: those that start like one
    files=$(cd "$work/x" && grep -rlE '^#!.*(ba)?sh|^# *(bash|-\*-).*shell-script|^_[a-z_]+\(\)' . || true)
  else
    files=$(cd "$work/x" && find . -name "${pattern[$lang]}" ! -path '*/test*' -size -200k)
  fi
  for f in $files; do
    dest="$out/$lang/${f#./}"; [ "$lang" = bash ] && dest="$dest.sh"
    mkdir -p "$(dirname "$dest")" && cp "$work/x/$f" "$dest"
  done
  echo "$lang: $(find "$out/$lang" -type f | wc -l) files"
done
