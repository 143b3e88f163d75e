#!/bin/sh
# The layers of docs/architecture.md, checked on the sources: no file under
# src/ includes a header of a layer above its own, and the reduction layer
# (src/backends, but for its public dot products on vectors) and the
# utilities see neither vectors nor the matrix layer's private headers.  Usage: layers.sh [SOURCE_DIR]
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
# the matrix layer's private headers stay out of the layers that know no
# matrices; one file of the reduction layer reads vectors: the public dot
# products on them (src/backends/dot.c, an application of the reducer)
others=$(ls src/backends/* | grep -v '^src/backends/dot\.c$')
if grep -n '#include ".*matrix\(_impl\)*\.h"' $others src/util/* src/internal.h; then
  echo "src/backends, src/util or src/internal.h include the matrix layer's private header" >&2
  bad=1
fi
if grep -n 'ovk_vector' $others; then
  echo "src/backends uses ovk_vector (the reduction layer knows buffers, not vectors)" >&2
  bad=1
fi
[ "$bad" = 0 ] && echo "layers: every include goes down or sideways; src/backends (but dot.c) and src/util know no matrices or vectors"
exit "$bad"
