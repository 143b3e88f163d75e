#!/usr/bin/env bash
# Under an address-space limit a solve finishes or fails with "out of
# memory", never hangs: plcg's spectrum estimate and the condition estimate
# call no LAPACK (OpenBLAS allocated its buffer on the first call there and,
# under the limit, retried mmap for ever).  One process (singleton MPI), as
# the report ran it; each limit near where the matrix still fits.
# usage: memlimit.sh BINDIR
set -u
bin=$1
fail=0
for spec in plcg:l=2 "pipecg -condest"; do
  for kib in 560000 600000 640000; do
    o=$( (ulimit -v $kib && exec timeout -s KILL 120 "$bin/ovk_laplace27" -n 60 60 60 -solver $spec) 2>&1); rc=$?
    if [ $rc -eq 0 ] && echo "$o" | grep -q '^Iterations = '; then
      echo "ok   $spec, ulimit -v $kib: solved"
    elif [ $rc -ne 137 ] && echo "$o" | grep -q 'out of memory'; then
      echo "ok   $spec, ulimit -v $kib: out of memory, reported"
    else
      echo "FAIL $spec, ulimit -v $kib: exit $rc: $(echo "$o" | tail -2)"
      fail=1
    fi
  done
done
exit $fail
