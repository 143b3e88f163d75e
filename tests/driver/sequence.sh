#!/usr/bin/env bash
# Sequences through ovk_mtx_solve: -f A1,A2,... with -b b1,b2,... solved with
# one solver (the lines per system and the totals, new values on one pattern,
# a new pattern, the recycled space of rpipecg), and bad lists.
# usage: sequence.sh BINDIR MPIEXEC "MPIEXEC_PREFLAGS"
set -u
. "$(dirname "$0")/common.sh"
n=60
# a 1-D Dirichlet diffusion whose coefficient has a bump at c (1000 inside)
mk() { # file centre
  awk -v n=$n -v c=$2 'function k(i) { return (i > c - 4 && i < c + 4) ? 1000 : 1 }
    BEGIN { print "%%MatrixMarket matrix coordinate real symmetric"; print n, n, 2 * n - 1
      for (i = 1; i <= n; i++) { print i, i, k(i) + k(i + 1); if (i < n) print i + 1, i, -k(i + 1) } }' >"$1"
}
mkb() { # file seed
  awk -v n=$n -v s=$2 'BEGIN { srand(s); print "%%MatrixMarket matrix array real general"; print n, 1
    for (i = 1; i <= n; i++) print rand() - 0.5 }' >"$1"
}
for t in 0 1 2; do mk "$tmp/a$t.mtx" $((20 + t)); mkb "$tmp/b$t.mtx" $((t + 1)); done
# another pattern: tridiagonal plus the (1, n) corner
awk -v n=$n 'BEGIN { print "%%MatrixMarket matrix coordinate real symmetric"; print n, n, 2 * n
  for (i = 1; i <= n; i++) { print i, i, 4; if (i < n) print i + 1, i, -1 }; print n, 1, -1 }' >"$tmp/other.mtx"
A="$tmp/a0.mtx,$tmp/a1.mtx,$tmp/a2.mtx" B="$tmp/b0.mtx,$tmp/b1.mtx,$tmp/b2.mtx"

o=$(run 2 "$bin/ovk_mtx_solve" -f "$A" -b "$B" -solver rpipecg -ovk_recycle 3 -ovk_view 2>&1); rc=$?
sum=$(sed -n 's/^Iterations = //p' <<<"$o" | awk '{ s += $1 } END { print s }')
[ $rc -eq 0 ] && [ "$(grep -c '^System [123] of 3: ' <<<"$o")" -eq 3 ] && [ "$(grep -c '^Iterations = ' <<<"$o")" -eq 3 ] &&
  [ "$(grep -c '^Final Relative Residual Norm = ' <<<"$o")" -eq 3 ] && [ "$(grep -c '^Solve Time = ' <<<"$o")" -eq 3 ] &&
  grep -q "^System 2 of 3: $tmp/a1.mtx\$" <<<"$o" && grep -q "^Total Iterations = $sum\$" <<<"$o" &&
  grep -q '^Total Solve Time = [0-9.]* s$' <<<"$o" && grep -q 'recycle: 3 of 3 vectors after 1 update.*the next solve keeps it' <<<"$o"
check "rpipecg -ovk_recycle 3 on a sequence of 3: the lines per system, the totals, the space in the view" $?

o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/a0.mtx,$tmp/other.mtx,$tmp/a1.mtx" -solver pipecg -rhs random 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^New pattern' <<<"$o")" -eq 2 ] && [ "$(grep -c '^Iterations = ' <<<"$o")" -eq 3 ]
check "a new pattern in the sequence: a new matrix and solver, every system solved, -rhs for each" $?

o=$(run 1 "$bin/ovk_mtx_solve" -f "$A" -b "$tmp/b0.mtx,$tmp/b1.mtx" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q -- '-b names as many files as -f' <<<"$o"; check "-b with fewer files than -f: exit 2" $?
o=$(run 1 "$bin/ovk_mtx_solve" -f "$tmp/a0.mtx,,$tmp/a1.mtx" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'empty entry' <<<"$o"; check "an empty entry in -f: exit 2" $?
o=$(run 1 "$bin/ovk_mtx_solve" -f "$A" -nrhs 2 2>&1); rc=$?
[ $rc -eq 2 ]; check "a sequence with -nrhs: exit 2" $?
o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/a0.mtx,$tmp/other.mtx" -b "$tmp/b0.mtx,$tmp/a1.mtx" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q -- "-b $tmp/a1.mtx: not a dense Matrix Market array" <<<"$o"
check "-b naming a coordinate file: exit 1, the file named" $?
o=$(run 2 "$bin/ovk_mtx_solve" -f "$A" -solver pipecg -ovk_recycle 2 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q 'solver pipecg keeps no space across solves; the solvers that do: rpipecg' <<<"$o"
check "-ovk_recycle with pipecg: refused, naming rpipecg" $?
exit $fail
