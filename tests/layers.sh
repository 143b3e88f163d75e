#!/bin/sh
# The layers of docs/architecture.md, checked on the sources: no file under
# src/ includes a header of a layer above its own, and the reduction layer
# (src/backends) does not use vectors.  Usage: layers.sh [SOURCE_DIR]
cd "${1:-$(dirname "$0")/..}" || exit 2
# layer rank of a path under src/ (internal.h and util: 0)
rank() {
  case "$1" in
    src/matrix/*) echo 1 ;; src/backends/*) echo 2 ;; src/precond/*) echo 3 ;;
    src/solvers/*) echo 4 ;; src/bind/*) echo 5 ;; *) echo 0 ;;
  esac
}
bad=0
for f in $(find src -name '*.[ch]' | sort); do
  mine=$(rank "$f")
  for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
    case "$inc" in ovkrylov/*) continue ;; esac # the public headers
    target=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
    if [ "$(rank "$target")" -gt "$mine" ]; then
      echo "$f includes $inc, a layer above its own" >&2
      bad=1
    fi
  done
done
if grep -n 'ovk_vector' src/backends/*; then
  echo "src/backends uses ovk_vector (the reduction layer knows buffers, not vectors)" >&2
  bad=1
fi
[ "$bad" = 0 ] && echo "layers: every include goes down or sideways; src/backends knows no vectors"
exit "$bad"
