#!/bin/sh
# docs/install.md's table of dependencies lists exactly the packages .ci/deps.sh installs
# (its pkgs list, and the clang runtime it names libclang-rt-N-dev).
# Usage: doc_deps.sh SOURCE_DIR
src=${1:?source dir}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
sed -n '/^pkgs="/,/"$/p' "$src/.ci/deps.sh" | sed 's/^pkgs="//; s/"$//' | tr ' ' '\n' | grep . |
  sort -u > "$tmp/script"
echo "libclang-rt-N-dev" >> "$tmp/script"
sort -u -o "$tmp/script" "$tmp/script"
awk '/^## Dependencies/{on=1; next} on && /^## /{on=0} on && /^\|/' "$src/docs/install.md" |
  cut -d'|' -f3 | grep -oE '`[a-z0-9][a-zA-Z0-9.+-]*`' | tr -d '`' | sort -u > "$tmp/doc"
if [ "$(wc -l < "$tmp/script")" -lt 10 ] || ! diff "$tmp/script" "$tmp/doc" > "$tmp/d"; then
  echo "docs/install.md's dependencies ('<' .ci/deps.sh installs, '>' the doc lists):" >&2
  cat "$tmp/d" >&2
  exit 1
fi
echo "doc_deps: docs/install.md lists the $(wc -l < "$tmp/doc") packages .ci/deps.sh installs"
