#!/bin/sh
# The layers of docs/architecture.md, checked on the sources: no file under
# src/ includes a header of a layer above its own, and the reduction layer
# (src/backends, but for its public dot products on vectors) and the
# utilities see neither vectors nor the matrix layer's private headers.
# bench/ (its programs, their parts and helpers, the peers) includes the
# public headers, examples/common/experiment.h and bench/ files only -- but
# the kernel benchmark's items (bench/kernel), which may include the kernel
# headers src/matrix/matrix.h and src/solvers/methods/cg/fused.h and nothing
# else of src/ -- and no bench/ file includes itself through others (no include
# circle).  Inside src/solvers, the roles of its folders (below).
# Usage: layers.sh [SOURCE_DIR]
cd "${1:-$(dirname "$0")/..}" || exit 2
# layer rank of a path under src/ (internal.h and util: 0)
rank() {
  case "$1" in
    src/matrix/*) echo 1 ;; src/backends/*) echo 2 ;; src/precond/*) echo 3 ;;
    src/solvers/*) echo 4 ;; src/bind/*) echo 5 ;; *) echo 0 ;;
  esac
}
bad=0
# the first circle of a graph given as lines "FROM TO" (a depth-first search
# for a back edge), printed as A -> B -> ... -> A; nothing when there is none
find_circle='
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
  END { for (n in node) if (state[n] == 0 && visit(n)) exit }'
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

# ---- inside src/solvers ------------------------------------------------------
# The roles of docs/architecture.md ("Inside src/solvers"), lowest first:
# solver.h (the variants' contract) 0, engine/ 1, methods/ 2 (a family
# folder sees only itself, methods/registry.c and lower: one family reaches
# another through the registry), interface/ 3.  No file includes or calls
# (a function or table another file defines) a file of a higher role or of
# another family; the includes and calls make no circle; no struct has more
# than 25 fields.
srank() {
  case "$1" in
    src/solvers/engine/*) echo 1 ;; src/solvers/methods/*) echo 2 ;;
    src/solvers/interface/*) echo 3 ;; *) echo 0 ;;
  esac
}
# the family of a methods/ path (methods/cg/x.c: cg; any folder under methods/ is one: cg,
# gmres, bicgstab, auto, minres), else empty
family() { case "$1" in src/solvers/methods/*/*) echo "$1" | cut -d/ -f4 ;; esac; }
# 1 when file $1 may use file $2
may_use() {
  [ "$(srank "$2")" -le "$(srank "$1")" ] || return 1
  f1=$(family "$1") f2=$(family "$2")
  [ -z "$f2" ] || [ -z "$f1" ] || [ "$f1" = "$f2" ]
}
# code without comments and string literals (the lines kept)
code() {
  awk '{
    out = ""
    for (i = 1; i <= length($0); i++) {
      ch = substr($0, i, 1); two = substr($0, i, 2)
      if (incomment) { if (two == "*/") { incomment = 0; i++ } continue }
      if (instring) { if (ch == "\\") i++; else if (ch == "\"") instring = 0; continue }
      if (two == "/*") { incomment = 1; i++; continue }
      if (two == "//") break
      if (ch == "\"") { instring = 1; out = out "\"\""; continue }
      out = out ch
    }
    print out
  }' "$1"
}
sfiles=$(find src/solvers -name '*.[ch]' | sort)
# who defines each external name (function or table): lines "NAME FILE"
defs=$(mktemp) || exit 2
trap 'rm -f "$defs"' EXIT
for f in $(find src/solvers -name '*.c' | sort); do
  code "$f" | grep -v '^\(static\|extern\|typedef\)' |
    sed -n 's/^[A-Za-z][^;(=]*[^A-Za-z0-9_]\(ovk_\{1,2\}[A-Za-z0-9_]*\) *[[(=].*/\1/p' | sed "s|\$| $f|"
done | sort -u > "$defs"
sedges=""
for f in $sfiles; do
  for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
    target=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
    case "$target" in src/solvers/*) ;; *) continue ;; esac
    sedges="$sedges$f $target
"
    if ! may_use "$f" "$target"; then
      echo "$f includes $inc, a file of a higher role or another family (src/solvers)" >&2
      bad=1
    fi
  done
  case "$f" in *.c) ;; *) continue ;; esac
  calls=$(code "$f" | grep -o 'ovk_\{1,2\}[A-Za-z0-9_]*' | sort -u |
    awk -v f="$f" 'NR == FNR { def[$1] = $2; next } ($1 in def) && def[$1] != f { print def[$1], $1 }' "$defs" -)
  [ -n "$calls" ] || continue
  sedges="$sedges$(printf '%s\n' "$calls" | sed "s|^|$f |; s| [^ ]*\$||")
"
  while read -r target name; do
    if ! may_use "$f" "$target"; then
      echo "$f calls $name of $target, a file of a higher role or another family (src/solvers)" >&2
      bad=1
    fi
  done <<CALLS
$calls
CALLS
done
# (the registry names every variant's table and calls none: its list is
# not an arrow back from the variants that find each other through it)
circle=$(printf '%s' "$sedges" | grep -v '^src/solvers/methods/registry\.c ' | awk "$find_circle")
if [ -n "$circle" ]; then
  echo "src/solvers has a circle of includes or calls: $circle" >&2
  bad=1
fi
# the fields of each struct (each declarator of a member declaration, a
# nested struct one field)
fat=$(for f in $sfiles; do code "$f" | awk -v file="$f" '
  /^(typedef )?struct [A-Za-z0-9_]* *\{/ {
    inside = 1; depth = 0; n = 0; paren = 0; line = FNR; name = $0
    sub(/^(typedef )?struct /, "", name); sub(/ *\{.*/, "", name)
  }
  inside {
    s = $0
    for (i = 1; i <= length(s); i++) {
      ch = substr(s, i, 1)
      if (ch == "{") { depth++; if (depth == 1) continue }
      if (ch == "}") { depth--; if (depth == 0) { inside = 0; break } }
      if (depth == 1) {
        if (ch == "(") paren++
        if (ch == ")") paren--
        if (ch == "," && paren == 0) n++
        if (ch == ";") n++
      }
    }
    if (!inside && n > 25) print file ":" line ": struct " name " has " n " fields (at most 25)"
  }'; done)
if [ -n "$fat" ]; then
  printf '%s\n' "$fat" >&2
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
circle=$(printf '%s' "$edges" | awk "$find_circle")
if [ -n "$circle" ]; then
  echo "bench/ has an include circle: $circle" >&2
  bad=1
fi
[ "$bad" = 0 ] && echo "layers: every include goes down or sideways; src/backends (but dot.c) and src/util" \
  "know no matrices or vectors; bench/ includes public headers, experiment.h and bench/ (bench/kernel also" \
  "the kernel headers), without circles; inside src/solvers no include or call goes up a role or across" \
  "method families, none makes a circle, no struct has more than 25 fields"
exit "$bad"
