#!/usr/bin/env bash
# Singular systems through the drivers: ovk_laplace27 -bc neumann with and
# without -nullspace constant, ovk_mtx_solve -nullspace FILE (and a file of
# the wrong length), ovk_elasticity -floating (the rigid-body modes), bad
# flag values.
# usage: nullspace.sh BINDIR MPIEXEC "MPIEXEC_PREFLAGS"
set -u
. "$(dirname "$0")/common.sh"
amg=0
run 1 "$bin/ovk_laplace27" -precond list 2>&1 | grep -q '^  amg .*BoomerAMG' && amg=1

pcs="jacobi"
[ $amg -eq 1 ] && pcs="jacobi amg"
for pc in $pcs; do
  o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -bc neumann -nullspace constant -rhs random -precond $pc -print_level 1 2>&1)
  rc=$?
  [ $rc -eq 0 ] && grep -q '^Iterations = [0-9]*$' <<<"$o" && grep -q '^Final Relative Residual Norm = ' <<<"$o" &&
    grep -q '^Solve Time = ' <<<"$o" && grep -q '^Setup Time = ' <<<"$o" &&
    grep -q '^Null Space Inconsistency = [0-9.e+-]* ' <<<"$o" && grep -q 'pure Neumann' <<<"$o"
  check "laplace27 -bc neumann -nullspace constant -precond $pc: converged, the lines and the inconsistency" $?
done
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -bc neumann -rhs random -maxit 200 2>&1); rc=$?
[ $rc -eq 1 ] && ! grep -q 'Null Space' <<<"$o"; check "laplace27 -bc neumann without a null space: not converged, exit 1" $?
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -bc neumann -rhs random -nullspace constant -solver plcg:l=2 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q '^Null Space Inconsistency = ' <<<"$o"; check "plcg:l=2 with -nullspace constant: converged" $?
for s in gmres bicgstab; do
  o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -bc neumann -rhs random -nullspace constant -solver $s 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q '^Null Space Inconsistency = ' <<<"$o"; check "$s with -nullspace constant: converged" $?
done
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -bc neumann -rhs random -ovk_nullspace constant -solver alg2 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q 'alg2 does not take a null space; these do: alg1, cg1, pipecg, groppcg, pipeprcg, plcg, gmres' <<<"$o"
check "alg2 refuses the null space, naming those that take it" $?
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -nullspace constant 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "the constant vector is not in A's null space" <<<"$o"
check "the Dirichlet Laplacian with -nullspace constant: refused (A 1 != 0), exit 1" $?
o=$(run 1 "$bin/ovk_laplace27" -n 4 4 4 -bc robin 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q -- '-bc' <<<"$o"; check "-bc robin: bad flag, exit 2" $?
o=$(run 1 "$bin/ovk_laplace27" -n 4 4 4 -nullspace linear 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q -- '-nullspace' <<<"$o"; check "laplace27 -nullspace linear: bad flag, exit 2" $?

# a 1-D pure Neumann Laplacian and its null space as a file
n=40
awk -v n=$n 'BEGIN { print "%%MatrixMarket matrix coordinate real symmetric"; print n, n, 2 * n - 1
  for (i = 1; i <= n; i++) { print i, i, (i == 1 || i == n) ? 1 : 2; if (i < n) print i + 1, i, -1 } }' >"$tmp/path.mtx"
awk -v n=$n 'BEGIN { print "%%MatrixMarket matrix array real general"; print "% any basis"; print n, 1
  for (i = 1; i <= n; i++) print 3 }' >"$tmp/ns.mtx"
awk -v n=$((n - 1)) 'BEGIN { print "%%MatrixMarket matrix array real general"; print n, 1
  for (i = 1; i <= n; i++) print 1 }' >"$tmp/short.mtx"
for np in 1 3; do
  o=$(run $np "$bin/ovk_mtx_solve" -f "$tmp/path.mtx" -rhs random -nullspace "$tmp/ns.mtx" 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q '^Null Space Inconsistency = ' <<<"$o"; check "mtx_solve -nullspace FILE at $np ranks" $?
  o=$(run $np "$bin/ovk_mtx_solve" -f "$tmp/path.mtx" -rhs random -nullspace "$tmp/short.mtx" 2>&1); rc=$?
  [ $rc -eq 1 ] && [ "$(grep -c 'vectors of 39 rows for a matrix of 40' <<<"$o")" -eq 1 ]
  check "mtx_solve -nullspace of the wrong length at $np ranks: one message, exit 1" $?
done
o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/path.mtx" -rhs random -nullspace constant 2>&1); rc=$?
[ $rc -eq 0 ]; check "mtx_solve -nullspace constant" $?

# the floating elastic body: six rigid-body modes
if [ $amg -eq 1 ]; then
  for np in 2 3; do
    o=$(run $np "$bin/ovk_elasticity" -n 8 4 4 -floating 2>&1); rc=$?
    [ $rc -eq 0 ] && grep -q '^Null Space Inconsistency = ' <<<"$o"; check "elasticity -floating at $np ranks" $?
  done
fi
o=$(run 2 "$bin/ovk_elasticity" -n 8 4 4 -floating -precond jacobi -solver pipecg 2>&1); rc=$?
[ $rc -eq 0 ]; check "elasticity -floating, pipecg + jacobi" $?
exit $fail
