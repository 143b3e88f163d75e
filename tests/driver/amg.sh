#!/usr/bin/env bash
# The amg preconditioner through the drivers: -precond list, the Laplacian
# driver, and the elasticity example (bs=3 with and without the rigid-body
# modes, a failure inside hypre's setup reported on every rank). In a build
# without hypre: setup=boomeramg refused with the reason, amg our own
# aggregation hierarchy (setup=agg).
# usage: amg.sh BINDIR MPIEXEC "MPIEXEC_PREFLAGS"
set -u
. "$(dirname "$0")/common.sh"
its_of() { sed -n 's/^Iterations = //p' <<<"$1"; }

list=$(run 1 "$bin/ovk_laplace27" -precond list 2>&1); check "-precond list exits 0" $?
grep -q '^  jacobi ' <<<"$list"; check "-precond list names jacobi" $?
# our aggregation hierarchy (setup=agg), in every build: the rigid-body modes from the coordinates in its
# tentative prolongator (27 iterations at 2 and 3 ranks, the same hierarchy at both; 54 with the translations
# only); a singular A (Neumann, the constants declared): it stops above a level that holds only the null space
agg_checks() {
  local np o1 o0 rc1 rc0 a1 a0 o rc a
  for np in 2 3; do
    o1=$(run $np "$bin/ovk_elasticity" -n 12 6 6 -rbm 1 -precond amg:bs=3,setup=agg 2>&1); rc1=$?
    o0=$(run $np "$bin/ovk_elasticity" -n 12 6 6 -rbm 0 -precond amg:bs=3,setup=agg 2>&1); rc0=$?
    a1=$(its_of "$o1") a0=$(its_of "$o0")
    [ $rc1 -eq 0 ] && [ $rc0 -eq 0 ] && [ "$a1" -le 32 ] && [ "$a1" -lt "$a0" ]
    check "elasticity, setup=agg at $np ranks: $a1 iterations with the modes (<= 32), $a0 without" $?
  done
  o=$(run 3 "$bin/ovk_laplace27" -n 20 20 20 -bc neumann -nullspace constant -rhs random -precond amg:setup=agg 2>&1); rc=$?
  a=$(its_of "$o"); [ $rc -eq 0 ] && [ "$a" -le 16 ]; check "Neumann Laplacian, setup=agg at 3 ranks: $a iterations (<= 16)" $?
}

o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -precond amg:setup=boomeramg 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "not in this build" <<<"$o"; then
  # no hypre: setup=boomeramg refused by name, amg's default our hierarchy
  [ $rc -eq 1 ]; check "setup=boomeramg absent: refused with the reason, exit 1" $?
  o=$(run 2 "$bin/ovk_laplace27" -n 16 16 16 -precond amg 2>&1); rc=$?
  a=$(its_of "$o"); [ $rc -eq 0 ] && [ "$a" -le 16 ]; check "laplace27 + amg (setup=agg): $a iterations (<= 16)" $?
  agg_checks
  exit $fail
fi
grep -q '^  amg .*BoomerAMG' <<<"$list" && grep -q 'strong_threshold' <<<"$list"
check "-precond list names amg and its options" $?

# the Laplacian: a handful of iterations where Jacobi needs tens
o=$(run 2 "$bin/ovk_laplace27" -n 16 16 16 -precond amg 2>&1); rc=$?
a=$(its_of "$o"); j=$(its_of "$(run 2 "$bin/ovk_laplace27" -n 16 16 16 2>&1)")
[ $rc -eq 0 ] && [ "$a" -le 20 ] && [ "$j" -ge 30 ]; check "laplace27 + amg: $a iterations (jacobi $j)" $?
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -precond amg:strong_threshold=2 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "strong_threshold" <<<"$o"; check "amg:strong_threshold=2 refused, exit 1" $?

# elasticity: the rigid-body modes save iterations, at 2 and 3 ranks (one
# with an odd split of the nodes)
for np in 2 3; do
  o1=$(run $np "$bin/ovk_elasticity" -n 12 6 6 -rbm 1 -solves 2 2>&1); rc1=$?
  o0=$(run $np "$bin/ovk_elasticity" -n 12 6 6 -rbm 0 2>&1); rc0=$?
  i1=$(its_of "$o1") i0=$(its_of "$o0")
  n=$(grep -c '^solve [0-9]*: ' <<<"$o1")
  [ $rc1 -eq 0 ] && [ $rc0 -eq 0 ] && [ "$n" -eq 2 ] && [ "$i1" -lt "$i0" ]
  check "elasticity at $np ranks: rigid-body modes $i1 iterations < $i0 without, one line per solve" $?
done
# the modes' setup costs about the setup without them: what made it 2.5-3x
# (GM interpolation from the finest level: a first coarse level of twice the
# rows and 4.4x the entries) shows in the hierarchy's operator complexity,
# bounded here at 1.2x; wall-clock setup times are in docs/performance.md
oc_of() { sed -n 's/.*operator complexity \([0-9.]*\),.*/\1/p' <<<"$1"; }
c1=$(oc_of "$(run 2 "$bin/ovk_elasticity" -n 20 10 10 -rbm 1 -ovk_view 1 2>&1)")
c0=$(oc_of "$(run 2 "$bin/ovk_elasticity" -n 20 10 10 -rbm 0 -ovk_view 1 2>&1)")
awk -v a="$c1" -v b="$c0" 'BEGIN{exit !(a > 0 && b > 0 && a <= 1.2 * b)}'
check "elasticity: operator complexity with the modes $c1 <= 1.2x without ($c0)" $?
agg_checks
o=$(run 2 "$bin/ovk_elasticity" -n 12 6 6 -precond jacobi 2>&1); rc=$?
j=$(its_of "$o"); [ $rc -eq 0 ] && [ "$j" -gt "$i0" ]; check "elasticity with jacobi: $j iterations (more than amg)" $?
# hypre's GM interpolation from the finest level (rbm_level=0) with qmax=1 fails in its setup: the error comes
# back on every rank (exit 1, hypre's description with its own cycle), no hang;
# ours runs on that hierarchy (its empty coarse rows, zero columns of P,
# left alone by the smoother as hypre's smoothers do) and converges
o=$(run 3 "$bin/ovk_elasticity" -n 8 4 4 -precond amg:bs=3,rbm_level=0,qmax=1,cycle=hypre 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "HYPRE_BoomerAMGSetup failed in hypre" <<<"$o"
check "a failure in hypre's setup is reported (exit $rc)" $?
o=$(run 3 "$bin/ovk_elasticity" -n 8 4 4 -precond amg:bs=3,rbm_level=0,qmax=1 2>&1); rc=$?
[ $rc -eq 0 ] && [ -n "$(its_of "$o")" ]
check "our cycle on the same hierarchy converges (exit $rc, $(its_of "$o") iterations)" $?
exit $fail
