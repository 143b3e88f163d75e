#!/usr/bin/env bash
# The drivers' preconditioner, tolerance and monitor flags, and ovk_heat (the
# solver object over time steps).
# usage: precond.sh BINDIR MPIEXEC "MPIEXEC_PREFLAGS"
set -u
bin=$1 mpiexec=$2 pre=$3
fail=0
run() { "$mpiexec" -n "$1" $pre "${@:2}"; }
check() { # description, condition result
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}

# preconditioners, atol and the monitor line
for pc in jacobi diag none ic0 ssor ssor:omega=1.5 cheby cheby:degree=4; do
  o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -precond $pc 2>&1); check "-precond $pc exits 0" $?
done
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -precond nosuch 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "unknown preconditioner 'nosuch'; available: jacobi"; check "unknown preconditioner: list, exit 1" $?
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -solver alg2 -precond cheby 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "split"; check "alg2 with cheby: refused with the reason" $?
o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -print_level 2 2>&1)
n=$(echo "$o" | grep -c '^Iter ') its=$(echo "$o" | sed -n 's/^Iterations = //p')
[ "$n" -eq $((its + 1)) ]; check "-print_level 2: one monitor line per iteration and the initial one ($n, $its)" $?
o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -tol 1e-14 -atol 1e-2 2>&1); rc=$?
its=$(echo "$o" | sed -n 's/^Iterations = //p')
[ $rc -eq 0 ] && [ "$its" -lt 30 ]; check "-atol stops early ($its iterations)" $?

# ovk_heat: the solver object over time steps; the matrix-free operator gives
# the assembled matrix's iteration counts (alg1: the same products to rounding)
o=$(run 2 "$bin/ovk_heat" -n 8 -steps 6 -update 2 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(echo "$o" | grep -c '^step [0-9]* iterations [0-9]* residual ')" -eq 6 ] &&
  echo "$o" | grep -Eq '^Setup Time = [0-9.e+-]+ s$' && echo "$o" | grep -Eq '^Solve Time = [0-9.e+-]+ s$'
check "ovk_heat: one line per step, setup and solve times" $?
for np in 1 3; do
  a=$(run $np "$bin/ovk_heat" -n 8 -steps 6 -update 2 2>&1 | awk '/^step/ { print $4 }' | tr '\n' ' ')
  m=$(run $np "$bin/ovk_heat" -n 8 -steps 6 -update 2 -matfree 2>&1 | awk '/^step/ { print $4 }' | tr '\n' ' ')
  [ -n "$a" ] && [ "$a" = "$m" ]; check "ovk_heat -matfree at $np ranks: same iterations ($a| $m)" $?
done
o=$(run 2 "$bin/ovk_heat" -n 6 -steps 3 -precond ic0 -solver pipecg -backend nbc 2>&1); check "ovk_heat with ic0/pipecg/nbc" $?
o=$(run 2 "$bin/ovk_heat" -n 6 -steps 3 -oneshot 2>&1); check "ovk_heat -oneshot" $?
o=$(run 2 "$bin/ovk_heat" -n 6 -steps 3 -matfree -precond ic0 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "reads the matrix"; check "ovk_heat -matfree -precond ic0: refused" $?
run 1 "$bin/ovk_heat" -steps 0 >/dev/null 2>&1; [ $? -eq 2 ]; check "ovk_heat bad flag exits 2" $?

exit $fail
