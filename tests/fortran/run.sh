#!/usr/bin/env bash
# The Fortran driver against the C driver: the same output lines (iteration
# counts and residuals) and exit codes at 1-4 ranks, for several solvers,
# backends and preconditioners; then a module call without ierr that fails
# (the message, then MPI_Abort); test_fortran with $OVK_OPTIONS set (its
# "env" case).  MODE quick (the sanitizer build, where
# every process start is slow) compares fewer runs: one per rank count.
# usage: run.sh BINDIR TEST_FORTRAN_EXE MPIEXEC "MPIEXEC_PREFLAGS" [full|quick]
set -u
bin=$1 ftest=$2 mpiexec=$3 pre=$4 mode=${5:-full}
fail=0
run() { "$mpiexec" -n "$1" $pre "${@:2}"; }
check() { # description, condition result
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
# the lines scripts parse (and the monitor's residual lines); not the times
lines() { grep -E '^(Iterations = |Final Relative Residual Norm = |Iter +[0-9]+ )' || true; }

same() { # ranks, flags...
  local np=$1 c f crc frc
  shift
  c=$(run "$np" "$bin/ovk_laplace27" "$@" 2>/dev/null); crc=$?
  f=$(run "$np" "$bin/ovk_laplace27_f" "$@" 2>/dev/null); frc=$?
  [ "$crc" -eq "$frc" ] && [ -n "$(echo "$c" | lines)" ] && [ "$(echo "$c" | lines)" = "$(echo "$f" | lines)" ]
  check "np $np $*: $(echo "$f" | lines | head -n 2 | tr '\n' ' ')(exit $frc)" $?
}

if [ "$mode" = quick ]; then
  same 1 -n 10 10 10
  same 2 -n 5 5 5 -print_level 2
  same 3 -n 8 8 8 -solver pipecg -precond ic0 -backend nbc
  same 4 -n 8 7 6 -solver overlap -backend native
else
  for np in 1 2 3 4; do
    same $np -n 10 10 10
    same $np -n 8 8 8 -solver pipecg -precond ic0 -backend nbc
  done
  same 2 -n 8 7 6 -solver overlap -backend native
  same 3 -n 6 6 6 -solver cg1 -precond ssor:omega=1.4 -tol 1e-10
  same 4 -n 5 6 7 -P 1 2 2 -precond cheby:degree=4 -atol 1e-6
  same 2 -n 6 6 6 -maxit 3
  same 2 -n 5 5 5 -print_level 2
fi

o=$(run 2 "$bin/ovk_laplace27_f" -n 6 6 6 -solver nosuch 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "unknown solver 'nosuch'"; check "unknown solver: the message, exit 1" $?
run 1 "$bin/ovk_laplace27_f" -bogus >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown flag exits 2" $?
run 2 "$bin/ovk_laplace27_f" -n 6 6 6 -P 3 1 1 >/dev/null 2>&1; [ $? -eq 2 ]; check "-P not matching the ranks exits 2" $?
run 1 "$bin/ovk_laplace27_f" -help | grep -q '^usage'; check "-help" $?

# the driver's -ovk_* options go through the library's options database, as in C
same 2 -n 6 6 6 -ovk_solver pipeprcg -ovk_precond ic0 -solver alg1
o=$(run 2 "$bin/ovk_laplace27_f" -n 5 5 5 -ovk_solver cg1 -ovk_view 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$o" | grep -q "solver: cg1"; check "-ovk_solver and -ovk_view in the Fortran driver (exit $rc)" $?
o=$(run 2 "$bin/ovk_laplace27_f" -n 5 5 5 -ovk_rtol -3 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "rtol=-3"; check "a bad -ovk_rtol: the message, exit 1" $?

# the options database from $OVK_OPTIONS as well (test_fortran's "env" case
# checks that the variable holds exactly these words)
o=$(OVK_OPTIONS="-env_ovk_solver cg1 -env_ovk_max_it 77 -ovk_rtol 1e-7" run 2 "$ftest" env 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$o" | grep -q "test_fortran: PASS (2 ranks)"; check "test_fortran env: \$OVK_OPTIONS entries (exit $rc)" $?
[ $rc -eq 0 ] || echo "$o" | grep -E 'FAIL' | head -n 20

# MPICH's launcher can drop the output of the processes it tears down after
# an MPI_Abort (the message is written and flushed before it): three tries.
aborted() {
  o=$(run 2 "$ftest" abort 2>&1); rc=$?
  [ $rc -ne 0 ] && echo "$o" | grep -q "ovkrylov: rank 0: ovk_solver_setup: unknown option or bad option value: unknown solver 'nosuch'" &&
    ! echo "$o" | grep -q "still running"
}
aborted || aborted || aborted
check "no ierr: the message on error_unit, then MPI_Abort (exit $rc)" $?

[ $fail -eq 0 ] && echo "fortran drivers: PASS" || echo "fortran drivers: FAIL"
exit $fail
