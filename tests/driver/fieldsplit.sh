#!/usr/bin/env bash
# ovk_mtx_solve -fields FILE and -schur FILE (the fieldsplit preconditioner)
# on a small saddle point [[A, B^T], [B, 0]]: A the 1-D Laplacian of 2m
# velocity rows, B the differences of m disjoint pairs (full row rank), the
# rows interleaved (u u p); converged runs, and the bad files refused with one
# message and exit 1: too few ids, a Schur matrix of the wrong size, -schur
# without -fields.  (The ids themselves, an empty field and the rest are the
# library's checks: tests/mpi/test_fieldsplit.c.)
# usage: fieldsplit.sh BINDIR MPIEXEC "MPIEXEC_PREFLAGS"
set -u
. "$(dirname "$0")/common.sh"
m=20
# velocity k -> row 3 (k / 2) + k % 2, pressure j -> row 3 j + 2 (1-based below)
awk -v m=$m 'function u(k) { return 3 * int(k / 2) + k % 2 + 1 }
  BEGIN { n = 2 * m; print "%%MatrixMarket matrix coordinate real general"; print 3 * m, 3 * m, 3 * n - 2 + 4 * m
    for (k = 0; k < n; k++) { print u(k), u(k), 2; if (k > 0) print u(k), u(k - 1), -1; if (k < n - 1) print u(k), u(k + 1), -1 }
    for (j = 0; j < m; j++) { p = 3 * j + 3; print p, u(2 * j), 1; print u(2 * j), p, 1; print p, u(2 * j + 1), -1; print u(2 * j + 1), p, -1 } }' >"$tmp/A.mtx"
awk -v m=$m 'BEGIN { for (r = 0; r < 3 * m; r++) printf "%d%s", r % 3 == 2, r % 3 == 2 ? "\n" : " " }' >"$tmp/fields"
head -c -3 "$tmp/fields" >"$tmp/short"
for k in $m $((m - 1)); do
  awk -v m=$k 'BEGIN { print "%%MatrixMarket matrix coordinate real symmetric"; print m, m, m; for (j = 1; j <= m; j++) print j, j, 1 }' >"$tmp/M$k.mtx"
done
np=3 # the library's own checks run at 1-4 ranks in tests/mpi/test_fieldsplit.c
{
  o=$(run $np "$bin/ovk_mtx_solve" -f "$tmp/A.mtx" -solver minres -precond fieldsplit:0=jacobi -fields "$tmp/fields" -tol 1e-10 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q '^Iterations = ' <<<"$o"; check "minres + fieldsplit -fields at $np ranks: converged" $?
  o=$(run $np "$bin/ovk_mtx_solve" -f "$tmp/A.mtx" -solver gmres -precond fieldsplit:type=lower,0=jacobi -fields "$tmp/fields" -schur "$tmp/M$m.mtx" 2>&1); rc=$?
  [ $rc -eq 0 ]; check "gmres + fieldsplit:type=lower -schur at $np ranks: converged" $?
  o=$(run $np "$bin/ovk_mtx_solve" -f "$tmp/A.mtx" -solver minres -precond fieldsplit:0=jacobi -fields "$tmp/short" 2>&1); rc=$?
  [ $rc -eq 1 ] && [ "$(grep -c '59 field ids for a matrix of 60 rows' <<<"$o")" -eq 1 ]
  check "-fields one id short at $np ranks: one message, exit 1" $?
  o=$(run $np "$bin/ovk_mtx_solve" -f "$tmp/A.mtx" -solver minres -precond fieldsplit:0=jacobi -fields "$tmp/fields" -schur "$tmp/M$((m - 1)).mtx" 2>&1); rc=$?
  [ $rc -eq 1 ] && [ "$(grep -c "19 rows, field 1 (-fields) has 20" <<<"$o")" -eq 1 ]
  check "-schur of the wrong size at $np ranks: one message, exit 1" $?
}
o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/A.mtx" -solver minres -precond fieldsplit:0=jacobi -schur "$tmp/M$m.mtx" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q -- "-schur needs -fields" <<<"$o"; check "-schur without -fields: exit 1" $?
exit $fail
