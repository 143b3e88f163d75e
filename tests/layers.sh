#!/bin/sh
# The layers of docs/architecture.md, checked on the sources: no file under
# src/ includes a header of a layer above its own, and the reduction layer
# (src/backends, but for its public dot products on vectors) and the
# utilities see neither vectors nor the matrix layer's private headers.
# bench/ (its programs, their parts and helpers, the peers) includes the
# public headers, examples/common/experiment.h and bench/ files only -- but
# the kernel benchmark's items (bench/kernel), which may include the kernel
# headers src/matrix/matrix.h and src/solvers/methods/cg/fused.h and nothing else of
# src/ -- and no bench/ file includes itself through others (no include
# circle).  Usage: layers.sh [SOURCE_DIR]
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

# ---- bench/ ----------------------------------------------------------------
# Where a quoted include of bench file $1 resolves, as the compiler finds it:
# next to the file, else on the include path (include/; src/ for the kernel
# benchmark's items); "?NAME" when nowhere in the tree.
resolve() {
  for cand in "$(dirname "$1")/$2" "include/$2" "src/$2"; do
    if [ -e "$cand" ]; then realpath -m --relative-to=. "$cand"; return; fi
  done
  echo "?$2"
}
edges=""
for f in $(find bench -name '*.[ch]' | sort); do
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    target=$(resolve "$f" "$inc")
    case "$target" in
      include/ovkrylov/*.h | examples/common/experiment.h) continue ;;
      bench/*) edges="$edges$f $target
" ; continue ;;
      src/matrix/matrix.h | src/solvers/methods/cg/fused.h) case "$f" in bench/kernel/*) continue ;; esac ;;
    esac
    echo "$f includes \"$inc\" ($target): bench/ sees the public headers," \
      "examples/common/experiment.h and bench/; bench/kernel also src/matrix/matrix.h and src/solvers/methods/cg/fused.h" >&2
    bad=1
  done
done
# an include circle among bench/ files: a depth-first search for a back edge
circle=$(printf '%s' "$edges" | awk '
  { adj[$1] = adj[$1] " " $2; node[$1] = 1; node[$2] = 1 }
  function visit(n,    i, j, k, m, first, out, next_) {
    state[n] = 1; stack[++depth] = n
    k = split(adj[n], next_, " ")
    for (i = 1; i <= k; i++) {
      m = next_[i]
      if (state[m] == 1) {
        for (j = 1; j <= depth; j++) if (stack[j] == m) first = j
        for (j = first; j <= depth; j++) out = out stack[j] " -> "
        print out m
        return 1
      }
      if (state[m] == 0 && visit(m)) return 1
    }
    state[n] = 2; depth--
    return 0
  }
  END { for (n in node) if (state[n] == 0 && visit(n)) exit }')
if [ -n "$circle" ]; then
  echo "bench/ has an include circle: $circle" >&2
  bad=1
fi
[ "$bad" = 0 ] && echo "layers: every include goes down or sideways; src/backends (but dot.c) and src/util" \
  "know no matrices or vectors; bench/ includes public headers, experiment.h and bench/ (bench/kernel also" \
  "the kernel headers), without circles"
exit "$bad"
