#!/bin/sh
# One spelling per option key.  The keys are the library's own, as
# -ovk_help prints them from the option table (src/solvers/interface/
# object_options.c); the check fails when
#   1. a string literal of src/ (comments stripped by the C preprocessor)
#      is a key, but for the key's entry in the table (OPT_STR/OPT_NUM) and
#      the kind of spec that ovk__spec_parse names in its messages ("solver",
#      "backend": the spec grammar's word, shared with ovk_reducer_create,
#      which has no option table);
#   2. a string literal of src/ holds the database's name -ovk_KEY of a key
#      (messages take the key from the table: "-ovk_%s");
#   3. docs/options.md's list of keys (from "The database's name of key" to
#      the end of its item) or
#      the option list of include/ovkrylov/solver.h differs from the table's;
#   4. README.md's options table lists other keys than the table, or its
#      solver and precond rows (and solver.h's entries for them) other names
#      than -ovk_help's lists of variants and preconditioners.
# Prose words equal to a key ("the solver", "a view") are not keys: only a
# whole literal or the -ovk_ spelling is.  The per-method keys of spec
# strings (plcg:l=3, gmres:restart=30) belong to each method's parser and
# its registry description, not to the option table: not checked here.
# Usage: options_keys.sh SOURCE_DIR 'COMMAND printing -ovk_help' (e.g.
# "mpiexec -n 1 build/examples/ovk_laplace27 -n 2 2 2 -ovk_help")
src=${1:?source dir}
shift
cc=${CC:-cc}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$@" > "$tmp/help" 2>&1 || { cat "$tmp/help"; echo "options_keys: '$*' failed" >&2; exit 1; }
sed -n 's/^  -ovk_\([a-z_0-9]*\) <.*/\1/p' "$tmp/help" | grep -v '^options_left$' > "$tmp/keys"
n=$(wc -l < "$tmp/keys")
if [ "$n" -lt 10 ]; then
  cat "$tmp/help"
  echo "options_keys: only $n keys in the -ovk_help output above" >&2
  exit 1
fi
# every string literal of src/, comments stripped: FILE:LINE:"text"
for f in $(find "$src/src" -name '*.[ch]' | sort); do
  "$cc" -fpreprocessed -dD -E -P "$f" 2>/dev/null | grep -noE '"([^"\\]|\\.)*"' | sed "s|^|${f#"$src"/}:|"
done > "$tmp/literals"
# and the lines they are on, to know the table's and spec_parse's
for f in $(find "$src/src" -name '*.[ch]' | sort); do
  "$cc" -fpreprocessed -dD -E -P "$f" 2>/dev/null | grep -nE '"' | sed "s|^|${f#"$src"/}:|"
done > "$tmp/lines"
bad=0
while read -r k; do
  whole=$(grep -E ":\"$k\"\$" "$tmp/literals" | cut -d: -f1,2)
  table=0
  for at in $whole; do
    line=$(grep -F "$at:" "$tmp/lines" | head -1)
    case "$at" in
      src/solvers/interface/object_options.c:*)
        if echo "$line" | grep -qE "OPT_(STR|NUM)\(\"$k\","; then table=$((table + 1)); continue; fi ;;
    esac
    if echo "$line" | grep -qE "ovk__spec_parse\(\"$k\","; then continue; fi
    echo "key '$k' spelled outside the option table: $line" >&2
    bad=1
  done
  if [ "$table" -ne 1 ]; then
    echo "key '$k': $table entries in the option table of src/solvers/interface/object_options.c (1 expected)" >&2
    bad=1
  fi
  if grep -E "\"[^\"]*-ovk_$k([^a-z0-9_].*)?\"\$" "$tmp/literals" >&2; then
    echo "key '$k': the database name -ovk_$k above is spelled out (take the key from the table)" >&2
    bad=1
  fi
done < "$tmp/keys"
# the documented lists
sort -u "$tmp/keys" > "$tmp/lib"
awk '/The database.s name of key/{on=1} on && /^- \*\*/{on=0} on' "$src/docs/options.md" |
  grep -oE '`-ovk_[a-z_0-9]+`' | tr -d '`' | sed 's/^-ovk_//' | sort -u > "$tmp/doc"
if ! diff "$tmp/lib" "$tmp/doc" > "$tmp/d1"; then
  echo "docs/options.md's key list ('<' the library has, '>' the doc has):" >&2
  cat "$tmp/d1" >&2
  bad=1
fi
awk '/^ \* Options \(ovk_solver_set_option/{on=1} on && /\*\//{on=0} on' "$src/include/ovkrylov/solver.h" |
  sed -n 's/^ \*   \([a-z_0-9][a-z_0-9]*\) .*/\1/p' | sort -u > "$tmp/hdr"
if ! diff "$tmp/lib" "$tmp/hdr" > "$tmp/d2"; then
  echo "include/ovkrylov/solver.h's option list ('<' the library has, '>' the header has):" >&2
  cat "$tmp/d2" >&2
  bad=1
fi
# README.md's options table: its keys (first column), and the solvers and preconditioners its
# rows for solver and precond name, against -ovk_help's
awk '/^\| key \| values \(default\) \|/{on=1; next} on && !/^\|/{on=0} on' "$src/README.md" > "$tmp/readme"
cut -d'|' -f2 "$tmp/readme" | grep -oE '`[a-z_0-9]+`' | tr -d '`' | sort -u > "$tmp/rkeys"
if ! diff "$tmp/lib" "$tmp/rkeys" > "$tmp/d3"; then
  echo "README.md's options table keys ('<' the library has, '>' README has):" >&2
  cat "$tmp/d3" >&2
  bad=1
fi
readme_names() { # KEY: the names in backticks of README's row for KEY, spec keys dropped
  grep -E "^\| \`$1\` \|" "$tmp/readme" | cut -d'|' -f3 | grep -oE '`[a-z_0-9]+(\[|`)' |
    tr -d '`[' | sort -u
}
sed -n 's/^      available: //p' "$tmp/help" | tr ',' '\n' | tr -d ' ' | grep . | sort -u > "$tmp/solvers"
awk '/^  -ovk_precond /{on=1; next} on && /^  -ovk_/{on=0} on' "$tmp/help" |
  sed -n 's/^      \([a-z_0-9][a-z_0-9]*\)  .*/\1/p' | sort -u > "$tmp/preconds"
for kind in solver:solvers precond:preconds; do
  key=${kind%%:*}
  readme_names "$key" > "$tmp/r_$key"
  if [ ! -s "$tmp/${kind#*:}" ] || ! diff "$tmp/${kind#*:}" "$tmp/r_$key" > "$tmp/d4"; then
    echo "README.md's $key row ('<' -ovk_help lists, '>' README has):" >&2
    cat "$tmp/d4" >&2
    bad=1
  fi
done
# solver.h's option list: the names of its solver and precond entries
hdr_names() { # KEY NEXT: the words of solver.h's entry KEY (up to entry NEXT), spec keys dropped
  awk -v k="$1" -v n="$2" '$0 ~ "^ \\*   " k " " {on=1} $0 ~ "^ \\*   " n " " {on=0} on' \
    "$src/include/ovkrylov/solver.h" | sed -E 's/\[[^]]*\]//g; s/\([^)]*\)//g; s/^ \*   [a-z]+ //' |
    tr ' |;:' '\n\n\n\n' | grep -xE '[a-z_0-9]+' | grep -vxE 'any|matrix|either|variants|diag|symmetric|indefinite' | sort -u
}
hdr_names solver backend > "$tmp/h_solver"
hdr_names precond rtol > "$tmp/h_precond"
for kind in solver:solvers precond:preconds; do
  key=${kind%%:*}
  if ! diff "$tmp/${kind#*:}" "$tmp/h_$key" > "$tmp/d5"; then
    echo "include/ovkrylov/solver.h's $key entry ('<' -ovk_help lists, '>' the header has):" >&2
    cat "$tmp/d5" >&2
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "options_keys: $n keys, each spelled once in src/ (the option table); docs/options.md, solver.h and README.md list the same keys; README and solver.h the same solvers and preconditioners"
exit "$bad"
