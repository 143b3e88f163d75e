#!/usr/bin/env bash
# The lists of solvers and preconditioners that users read are the registries':
#   1. every driver's -help names every registered solver and preconditioner;
#   2. examples/README.md's -solver and -precond rows name them all too;
#   3. docs/options.md's -ovk_help sample has the program's list of solvers;
#   4. README.md's and docs/guide.md's rows for `auto` name every solver that auto's
#      own description (the registry's) says it chooses from;
#   5. README.md's replace_every row names the solvers the option's help names;
#   6. README.md's solver table with its paragraphs and its preconditioner paragraph,
#      docs/solvers.md's and docs/preconditioners.md's summary tables name every
#      registered solver (preconditioner of the build); README.md's options rows are
#      tests/options_keys.sh's.
# The registries speak through -ovk_help (solvers, auto's description, the keys' help)
# and -precond list.
# usage: doc_lists.sh SOURCE_DIR BIN_DIR MPIEXEC [MPIEXEC_PREFLAGS]
set -u
src=$1 bin=$2 mpiexec=$3 pre=${4:-}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "doc_lists: $*" >&2; bad=1; }
run1() { "$mpiexec" -n 1 $pre "$@" 2>&1; }

run1 "$bin/ovk_laplace27" -n 2 2 2 -ovk_solver auto -ovk_help > "$tmp/help" ||
  { cat "$tmp/help"; echo "doc_lists: ovk_laplace27 -ovk_help failed" >&2; exit 1; }
sed -n 's/^      available: \(.*\)/\1/p' "$tmp/help" | head -n 1 | tr -d ' ' | tr ',' '\n' > "$tmp/solvers"
run1 "$bin/ovk_mtx_solve" -precond list | grep -v '\[not in this build' |
  sed -n 's/^  \([a-z][a-z_0-9]*\) .*/\1/p' > "$tmp/preconds" # those of this build
[ "$(wc -l < "$tmp/solvers")" -ge 10 ] || { cat "$tmp/help"; echo "doc_lists: no solver list" >&2; exit 1; }
[ "$(wc -l < "$tmp/preconds")" -ge 5 ] || { echo "doc_lists: no preconditioner list" >&2; exit 1; }

# names_in TEXT_FILE LIST_FILE WHAT: every name of LIST_FILE is a word of TEXT_FILE
names_in() {
  local name
  while read -r name; do
    grep -qE "(^|[^a-z0-9_])$name([^a-z0-9_]|\$)" "$1" || fail "$3 does not name '$name'"
  done < "$2"
}

# 1. the drivers' -help
drivers="ovk_laplace27 ovk_mtx_solve"
[ -x "$bin/ovk_laplace27_f" ] && drivers="$drivers ovk_laplace27_f"
for d in $drivers; do
  run1 "$bin/$d" -help > "$tmp/$d.help"
  names_in "$tmp/$d.help" "$tmp/solvers" "$d -help"
  names_in "$tmp/$d.help" "$tmp/preconds" "$d -help"
done

# 2. examples/README.md's flag rows
grep -E '^\| `-solver ' "$src/examples/README.md" > "$tmp/ex_solver"
grep -E '^\| `-precond ' "$src/examples/README.md" > "$tmp/ex_precond"
names_in "$tmp/ex_solver" "$tmp/solvers" "examples/README.md's -solver row"
names_in "$tmp/ex_precond" "$tmp/preconds" "examples/README.md's -precond row"

# 3. docs/options.md's -ovk_help sample
sed -n 's/^      available: \(.*\)/\1/p' "$src/docs/options.md" | head -n 1 > "$tmp/sample"
[ "$(tr -d ' ' < "$tmp/sample")" = "$(paste -sd, "$tmp/solvers")" ] ||
  fail "docs/options.md's -ovk_help sample lists '$(cat "$tmp/sample")', the program '$(paste -sd, "$tmp/solvers" | sed 's/,/, /g')'"

# 4. auto's candidates: the solvers its description names
sed -n 's/^      auto: \(.*\)/\1/p' "$tmp/help" | head -n 1 > "$tmp/auto_desc"
grep -oE '[a-z][a-z0-9]*=?' "$tmp/auto_desc" | grep -v '=$' | sort -u | grep -Fxf "$tmp/solvers" | grep -vx auto > "$tmp/auto_cands"
[ "$(wc -l < "$tmp/auto_cands")" -ge 3 ] || fail "auto's description names no candidates: $(cat "$tmp/auto_desc")"
grep -E '^\| `auto`' "$src/README.md" > "$tmp/readme_auto"
names_in "$tmp/readme_auto" "$tmp/auto_cands" "README.md's auto row"
grep -E '^\| you do not know the machine|^\| nonsymmetric matrix, latency unknown' "$src/docs/guide.md" > "$tmp/guide_auto"
names_in "$tmp/guide_auto" "$tmp/auto_cands" "docs/guide.md's auto rows"

# 5. replace_every: the solvers of the option's help, in README's options row
sed -n 's/^  -ovk_replace_every <[^>]*>: \(.*\)/\1/p' "$tmp/help" | sed 's/residual replacement.*//' |
  grep -oE '[a-z][a-z0-9]*' | grep -Fxf "$tmp/solvers" > "$tmp/replace"
[ -s "$tmp/replace" ] || fail "-ovk_replace_every's help names no solver"
grep -E '^\| .*`replace_every`' "$src/README.md" > "$tmp/readme_replace"
names_in "$tmp/readme_replace" "$tmp/replace" "README.md's replace_every row"

# 6. README.md's solvers and preconditioners; docs/solvers.md's and preconditioners.md's tables
sed -n '/^\*\*Solvers\*\*/,/^\*\*Preconditioners\*\*/p' "$src/README.md" > "$tmp/readme_solvers"
names_in "$tmp/readme_solvers" "$tmp/solvers" "README.md's solvers (table and paragraphs)"
sed -n '/^\*\*Preconditioners\*\*/,/^$/p' "$src/README.md" > "$tmp/readme_preconds"
names_in "$tmp/readme_preconds" "$tmp/preconds" "README.md's preconditioner paragraph"
sed -n '/^| spec | C | setup |/,/^$/p' "$src/docs/preconditioners.md" > "$tmp/precond_table"
names_in "$tmp/precond_table" "$tmp/preconds" "docs/preconditioners.md's table of preconditioners"
sed -n '/^| solver | matrix |/,/^$/p' "$src/docs/solvers.md" > "$tmp/solvers_table"
names_in "$tmp/solvers_table" "$tmp/solvers" "docs/solvers.md's summary table"

[ "$bad" -eq 0 ] && echo "doc_lists: the drivers' help and the docs' lists name every registered solver ($(wc -l < "$tmp/solvers")) and preconditioner ($(wc -l < "$tmp/preconds"))"
exit $bad
