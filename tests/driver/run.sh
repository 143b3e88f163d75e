#!/usr/bin/env bash
# The drivers' interface: output lines, exit codes, bad flags and bad input.
# usage: run.sh BINDIR MPIEXEC "MPIEXEC_PREFLAGS"
set -u
bin=$1 mpiexec=$2 pre=$3
fail=0
run() { "$mpiexec" -n "$1" $pre "${@:2}"; }
check() { # description, condition result
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}

out=$(run 2 "$bin/ovk_laplace27" -n 12 12 12 2>&1); rc=$?
check "default solve exits 0" $rc
echo "$out" | grep -Eq '^Iterations = [0-9]+$'; check "Iterations line" $?
echo "$out" | grep -Eq '^Final Relative Residual Norm = [0-9.e+-]+$'; check "residual line" $?
echo "$out" | grep -Eq '^Solve Time = [0-9.e+-]+ s$'; check "solve time line" $?
res=$(echo "$out" | sed -n 's/^Final Relative Residual Norm = //p')
awk -v r="$res" 'BEGIN { exit !(r < 1e-8) }'; check "residual below 1e-8 ($res)" $?

its=""
for s in alg1 alg2 overlap; do
  for b in blocking native; do
    o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -solver $s -backend $b 2>&1); rc=$?
    check "$s/$b exits 0" $rc
    its="$its $(echo "$o" | sed -n 's/^Iterations = //p')"
  done
done
[ "$(echo $its | tr ' ' '\n' | sort -u | wc -l)" -eq 1 ]; check "same iteration count for every solver/backend:$its" $?

o=$(run 1 "$bin/ovk_laplace27" -n 10 10 10 -timing 2>&1); echo "$o" | grep -q '^matvec'; check "-timing prints the breakdown" $?
o=$(run 1 "$bin/ovk_laplace27" -backend list 2>&1); echo "$o" | grep -q native && echo "$o" | grep -q blocking
check "-backend list shows blocking and native" $?
run 1 "$bin/ovk_laplace27" -help >/dev/null 2>&1; check "-help exits 0" $?

run 2 "$bin/ovk_laplace27" -n 10 10 10 -P 3 1 1 >/dev/null 2>&1; [ $? -eq 2 ]; check "-P not matching the ranks exits 2" $?
run 1 "$bin/ovk_laplace27" -bogus >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown flag exits 2" $?
run 1 "$bin/ovk_laplace27" -n 10 10 >/dev/null 2>&1; [ $? -eq 2 ]; check "-n with two values exits 2" $?
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -backend nosuch 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "unknown backend"; check "unknown backend: clear error, exit 1" $?
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -backend native:bogus=1 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "has no option"; check "unknown backend option: clear error" $?
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -solver nosuch 2>&1); [ $? -eq 1 ]; check "unknown solver exits 1" $?
o=$(run 1 "$bin/ovk_laplace27" -n 10 10 10 -maxit 3 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q '^Iterations = 3$'; check "iteration limit: exit 1 after 3 iterations" $?
o=$(OVK_REDUCE_BACKEND=native run 1 "$bin/ovk_laplace27" -n 6 6 6 -print_level 1 2>&1); check "environment backend" $?

# error exits are as quick as a solve: nothing waits on the way out (under
# Open MPI this needs OMPI_MCA_odls_base_sigkill_timeout=0, see
# docs/robustness.md; its wait is >= 1 s).  Margin: 500 ms or half a solve,
# for loaded and sanitizer runs; a slow error exit is retried once.
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
ok_ms=$(ms run 2 "$bin/ovk_laplace27" -n 6 6 6); t=$(ms run 2 "$bin/ovk_laplace27" -n 6 6 6)
[ "$t" -lt "$ok_ms" ] && ok_ms=$t
limit=$(( ok_ms + (ok_ms / 2 > 500 ? ok_ms / 2 : 500) ))
for bad in "ovk_laplace27 -n 6 6 6 -backend nosuch" "ovk_laplace27 -bogus" "ovk_mtx_solve -f /nonexistent.mtx"; do
  set -- $bad
  bad_ms=$(ms run 2 "$bin/$1" "${@:2}")
  [ "$bad_ms" -le "$limit" ] || bad_ms=$(ms run 2 "$bin/$1" "${@:2}")
  [ "$bad_ms" -le "$limit" ]; check "error exit of '$bad' in $bad_ms ms (a solve: $ok_ms ms, limit $limit ms)" $?
done

# experiments: latency model, noise, CSV rows
tmpd=$(mktemp -d)
o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -solver overlap -backend native -latency_us 50 -noise 200 50 \
    -csv "$tmpd/r.csv" 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$o" | grep -q "^Iterations = $(echo $its | cut -d' ' -f1)\$"
check "latency model + noise: same iterations" $?
run 2 "$bin/ovk_laplace27" -n 10 10 10 -latency_model pcg-overlap-256,P=4 -csv "$tmpd/r.csv" >/dev/null 2>&1
check "latency preset with override" $?
[ "$(head -n 1 "$tmpd/r.csv" | cut -d, -f1-3)" = "solver,backend,latency_model" ] && [ "$(wc -l < "$tmpd/r.csv")" -eq 3 ] &&
  awk -F, 'NR > 1 && $10 > 0 { n++ } END { exit n != 2 }' "$tmpd/r.csv"
check "-csv writes a header and one row per solve" $?
run 1 "$bin/ovk_laplace27" -n 6 6 6 -latency_us -5 >/dev/null 2>&1; [ $? -eq 2 ]; check "negative latency exits 2" $?
run 1 "$bin/ovk_laplace27" -n 6 6 6 -latency_model alpha=1,zeta=2 >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown model key exits 2" $?
run 1 "$bin/ovk_laplace27" -n 6 6 6 -noise 1000 2000 >/dev/null 2>&1; [ $? -ne 0 ]; check "noise longer than its period is refused" $?
# bounded experiments: at most 1 s per reduction, a noise duty cycle under 50%
for lat in "-latency_us 1e300" "-latency_us 1e9" "-latency_us 1000001" "-latency_model alpha=1e300" \
           "-latency_model pcg-overlap-256,beta=1e6"; do
  o=$(run 1 "$bin/ovk_laplace27" -n 6 6 6 $lat 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -q "limit is 1e+06 us (1 s)" <<<"$o"; check "$lat refused (exit 2, the limit named)" $?
done
o=$(run 1 "$bin/ovk_laplace27" -n 6 6 6 -noise 1e4 99.9 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "duty cycle under 50%" <<<"$o"; check "-noise 1e4 99.9 (99.9% noise) refused" $?
o=$(OVK_LATENCY_MODEL=bogus run 2 "$bin/ovk_laplace27" -n 6 6 6 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q "OVK_LATENCY_MODEL"; check "bad \$OVK_LATENCY_MODEL: clear error, exit 1" $?
o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -solver pipecg -backend nbc -condest 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$o" | grep -Eq '^Condition Estimate = [0-9.e+-]+ \(lambda_min'; check "-condest prints the estimate" $?
run 1 "$bin/ovk_laplace27" -n 6 6 6 -replace_every x >/dev/null 2>&1; [ $? -eq 2 ]; check "bad -replace_every exits 2" $?
# the issue-14 solvers, a solver spec with options, and a refused option
its=""
for s in alg1 groppcg pipeprcg plcg:l=3; do
  o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -solver $s -backend nbc 2>&1); check "-solver $s exits 0" $?
  its="$its $(echo "$o" | sed -n 's/^Iterations = //p')"
done
[ "$(echo $its | tr ' ' '\n' | sort -u | wc -l)" -eq 1 ]; check "same iteration count for alg1 and the new solvers:$its" $?
run 1 "$bin/ovk_laplace27" -n 6 6 6 -solver plcg:l=99 >/dev/null 2>&1; [ $? -eq 1 ]; check "plcg:l=99 refused, exit 1" $?
rm -rf "$tmpd"

# the options database: README's quick start, -ovk_* as the old flags, $OVK_OPTIONS,
# unused options listed, a bad value an error on every rank
o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -ovk_solver pipeprcg -ovk_precond ic0 -ovk_view 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$o" | grep -q '^  solver: pipeprcg' && echo "$o" | grep -q '^  preconditioner: ic0' &&
  echo "$o" | grep -q '^  backend: ' && echo "$o" | grep -Eq '^Iterations = [0-9]+$' &&
  echo "$o" | grep -q '^Final Relative Residual Norm = ' && echo "$o" | grep -q '^Solve Time = '
check "quick start: -ovk_solver pipeprcg -ovk_precond ic0 -ovk_view" $?
its_new=$(echo "$o" | sed -n 's/^Iterations = //p')
o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -solver pipeprcg -precond ic0 2>&1)
[ "$(echo "$o" | sed -n 's/^Iterations = //p')" = "$its_new" ]; check "the old flags -solver, -precond: the same run ($its_new)" $?
o=$(OVK_OPTIONS="-ovk_solver pipeprcg -ovk_precond ic0" run 2 "$bin/ovk_laplace27" -n 10 10 10 2>&1)
[ "$(echo "$o" | sed -n 's/^Iterations = //p')" = "$its_new" ]; check "\$OVK_OPTIONS: the same run" $?
o=$(run 2 "$bin/ovk_laplace27" -n 10 10 10 -solver alg1 -ovk_solver pipeprcg -precond jacobi -ovk_precond ic0 2>&1)
[ "$(echo "$o" | sed -n 's/^Iterations = //p')" = "$its_new" ]; check "-ovk_* override the old flags" $?
o=$(run 1 "$bin/ovk_laplace27" -n 6 6 6 -ovk_max_it 2 -ovk_monitor -ovk_converged_reason 2>&1); rc=$?
[ $rc -eq 1 ] && [ "$(echo "$o" | grep -c 'ovk residual norm')" -eq 3 ] && echo "$o" | grep -q '^ovk: solve did not converge'
check "-ovk_max_it 2 -ovk_monitor -ovk_converged_reason" $?
o=$(run 2 "$bin/ovk_laplace27" -n 6 6 6 -ovk_bogus 1 -ovk_options_left 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$o" | grep -q 'option -ovk_bogus 1 was not used'; check "-ovk_options_left lists -ovk_bogus" $?
o=$(run 2 "$bin/ovk_laplace27" -n 6 6 6 -ovk_rtol x 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q 'OVK_EOPTION\|unknown option or bad option value' && echo "$o" | grep -q -- '-ovk_rtol'
check "-ovk_rtol x: bad option value, exit 1" $?

# -ovk_help, the warning of unused options, -ovk_log_view, at 1, 2 and 3 ranks
keys=$(run 1 "$bin/ovk_laplace27" -n 4 4 4 -ovk_view 2>&1 | sed -n 's/^  options: //p' | tr ' ' '\n' | sed 's/=.*//')
[ "$(echo "$keys" | grep -c .)" -ge 16 ]; check "the view lists the option keys ($(echo $keys | wc -w))" $?
sum_parts() { # the avg column of the solve's parts but "the rest", and of the solve
  awk '/^    (matrix-vector|preconditioner app|vector updates|diagonal scaling|reductions: )/ { s += $(NF-1) }
       /^  solve \(all parts\)/ { t = $(NF-1) } END { printf "%.9g %.9g\n", s, t }'
}
for np in 1 2 3; do
  o=$(run $np "$bin/ovk_laplace27" -n 8 8 8 -ovk_rtol 1e-7 -ovk_help 2>&1); rc=$?
  miss=""; for k in $keys; do [ "$(echo "$o" | grep -c -- "^  -ovk_$k <")" -eq 1 ] || miss="$miss $k"; done
  [ $rc -eq 0 ] && [ -z "$miss" ] && echo "$o" | grep -q -- '^  -ovk_rtol <1e-07>: converged when' &&
    echo "$o" | grep -q '^      available: alg1' && echo "$o" | grep -Eq '^Iterations = [0-9]+$' &&
    ! echo "$o" | grep -q 'no description'
  check "-ovk_help at $np ranks: every key once with its value and meaning (missing:${miss:- none})" $?
  o=$(run $np "$bin/ovk_laplace27" -n 6 6 6 -ovk_moniter 2>&1); rc=$?
  [ $rc -eq 0 ] && [ "$(echo "$o" | grep -c '^ovk: WARNING! 1 option you set was not used')" -eq 1 ] &&
    [ "$(echo "$o" | grep -c '^ovk: option -ovk_moniter was not used')" -eq 1 ] && echo "$o" | grep -Eq '^Iterations = '
  check "-ovk_moniter at $np ranks: one warning naming it, exit 0" $?
  o=$(run $np "$bin/ovk_laplace27" -n 6 6 6 -ovk_moniter -ovk_options_left 0 2>&1); rc=$?
  [ $rc -eq 0 ] && ! echo "$o" | grep -q 'moniter\|WARNING'; check "-ovk_options_left 0 at $np ranks: no warning" $?
  o=$(run $np "$bin/ovk_laplace27" -n 10 10 10 -ovk_solver pipecg -ovk_backend native -ovk_log_view 2>&1); rc=$?
  read -r parts solve <<<"$(echo "$o" | sum_parts)"
  [ $rc -eq 0 ] && [ "$(echo "$o" | grep -c '^ovk log_view: solver pipecg, preconditioner jacobi, backend native')" -eq 1 ] &&
    echo "$o" | grep -q '^  setup (all parts) ' && echo "$o" | grep -q '^    of that, hidden behind other work ' &&
    echo "$o" | grep -q "^  1 setup, 0 numeric setups for new values; 1 solve, $(echo "$o" | sed -n 's/^Iterations = //p') iterations" &&
    awk -v p="$parts" -v s="$solve" 'BEGIN { exit !(s > 0 && p <= s + 5e-4 * (p + s)) }' && # 4 digits printed
    echo "$o" | grep -q '^Solve Time = '
  check "-ovk_log_view at $np ranks: the sections, parts ($parts s) within the solve ($solve s)" $?
done
o=$(run 2 "$bin/ovk_laplace27" -n 6 6 6 -ovk_options_left 2>&1); echo "$o" | grep -q '^ovk: every option was used'
check "-ovk_options_left alone: every option was used" $?

if [ -x "$bin/ovk_heat_port" ]; then # the PETSc port: 8 steps, options from the database
  o=$(OVK_OPTIONS="-ovk_solver pipeprcg" run 2 "$bin/ovk_heat_port" -n 16 -ovk_rtol 1e-6 -ovk_view 2>&1); rc=$?
  [ $rc -eq 0 ] && [ "$(echo "$o" | grep -c '^step [1-8] iterations')" -eq 8 ] &&
    echo "$o" | grep -q '^  solver: pipeprcg' && echo "$o" | grep -q 'rtol = 1e-06' &&
    echo "$o" | grep -q '^  backend: native (from option backend)'
  check "ovk_heat_port: 8 steps, -ovk_* and \$OVK_OPTIONS, the view after the backend switch" $?
fi

if [ -x "$bin/ovk_mtx_solve" ]; then
  tmp=$(mktemp -d)
  printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 2 2\n3 3 2\n2 1 -1\n' > "$tmp/ok.mtx"
  o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/ok.mtx" 2>&1); rc=$?
  [ $rc -eq 0 ] && echo "$o" | grep -q '^Iterations = '; check "ovk_mtx_solve on a small file" $?
  o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/ok.mtx" -ovk_solver cg1 -ovk_view 2>&1); rc=$?
  [ $rc -eq 0 ] && echo "$o" | grep -q '^  solver: cg1'; check "ovk_mtx_solve -ovk_solver cg1 -ovk_view" $?
  printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 2 2\n' > "$tmp/short.mtx"
  o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/short.mtx" 2>&1); [ $? -ne 0 ]; check "truncated file: error, no hang" $?
  printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 0\n2 2 1\n' > "$tmp/zd.mtx"
  o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/zd.mtx" 2>&1); rc=$?
  [ $rc -ne 0 ] && echo "$o" | grep -qi "diagonal"; check "zero diagonal: clear error" $?
  # a nonsymmetric `general` file: read as it is, solved by the nonsymmetric
  # solvers, refused by a CG variant with a message naming them
  printf '%%%%MatrixMarket matrix coordinate real general\n3 3 7\n1 1 4\n2 2 4\n3 3 4\n1 2 -2\n2 1 -1\n2 3 -2\n3 2 -1\n' > "$tmp/ns.mtx"
  o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/ns.mtx" -ovk_solver pipebicgstab -ovk_precond ilu0 -ovk_view 2>&1); rc=$?
  [ $rc -eq 0 ] && echo "$o" | grep -q '^  solver: pipebicgstab' && echo "$o" | grep -q '^Iterations = '
  check "ovk_mtx_solve: a general nonsymmetric file with -ovk_solver pipebicgstab -ovk_precond ilu0" $?
  o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/ns.mtx" -solver alg1 2>&1); rc=$?
  [ $rc -eq 1 ] && echo "$o" | grep -q 'not symmetric' && echo "$o" | grep -q 'bicgstab'
  check "ovk_mtx_solve: alg1 refuses the nonsymmetric file, naming the nonsymmetric solvers" $?
  # Dirichlet rows whose columns were not eliminated (the 5-point Laplacian on
  # 12 x 12 points, the column x = 0 identity rows): solved by the CG variants
  # on the eliminated system, the view counting the rows
  awk 'BEGIN { g = 12; m = 0
    for (r = 0; r < g * g; r++) { x = r % g; y = int(r / g)
      if (x == 0) { e[m++] = (r + 1) " " (r + 1) " 1"; continue }
      e[m++] = (r + 1) " " (r + 1) " 4"
      if (x > 0) e[m++] = (r + 1) " " r " -1"; if (x < g - 1) e[m++] = (r + 1) " " (r + 2) " -1"
      if (y > 0) e[m++] = (r + 1) " " (r + 1 - g) " -1"; if (y < g - 1) e[m++] = (r + 1) " " (r + 1 + g) " -1" }
    print "%%MatrixMarket matrix coordinate real general"; print g * g, g * g, m; for (k = 0; k < m; k++) print e[k] }' \
    > "$tmp/dirichlet.mtx"
  for s in alg1 pipecg plcg; do
    o=$(run 2 "$bin/ovk_mtx_solve" -f "$tmp/dirichlet.mtx" -rhs random -ovk_solver $s -ovk_precond jacobi -ovk_view 2>&1); rc=$?
    res=$(echo "$o" | sed -n 's/^Final Relative Residual Norm = //p')
    [ $rc -eq 0 ] && echo "$o" | grep -q '^  Dirichlet rows: 12 eliminated symmetrically' &&
      awk -v r="$res" 'BEGIN { exit !(r < 1e-8) }'
    check "ovk_mtx_solve: Dirichlet identity rows, columns not eliminated: $s + jacobi solves, 12 rows eliminated" $?
  done
  rm -rf "$tmp"
fi

# convection-diffusion: -problem convdiff with the nonsymmetric solvers; a CG variant refuses it
o=$(run 2 "$bin/ovk_laplace27" -problem convdiff -n 10 10 10 -peclet 50 -scheme central -velocity 1 0.5 0 \
    -ovk_solver pipebicgstab -ovk_precond ilu0 -ovk_converged_reason 2>&1); rc=$?
res=$(echo "$o" | sed -n 's/^Final Relative Residual Norm = //p')
[ $rc -eq 0 ] && awk -v r="$res" 'BEGIN { exit !(r < 1e-8) }'
check "ovk_laplace27 -problem convdiff -ovk_solver pipebicgstab ($res)" $?
o=$(run 2 "$bin/ovk_laplace27" -problem convdiff -n 8 8 8 -solver pipecg 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$o" | grep -q 'bicgstab'; check "pipecg refuses convection-diffusion, naming the nonsymmetric solvers" $?
run 1 "$bin/ovk_laplace27" -problem convdiff -scheme sideways >/dev/null 2>&1; [ $? -eq 2 ]; check "-scheme sideways: exit 2" $?
"$bin/ovk_laplace27" -help | grep -q -- '-peclet'; check "-help documents -problem convdiff's flags" $?
# -nrhs K: K systems together, a line each; the batch's lines; system 0 as the single solve
o=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -solver pipecg -nrhs 3 2>&1); rc=$?
one=$(run 2 "$bin/ovk_laplace27" -n 8 8 8 -solver pipecg 2>&1 | sed -n 's/^Iterations = //p')
its=$(echo "$o" | sed -n 's/^Iterations = //p')
top=$(echo "$o" | sed -n 's/^System [0-9]*: \([0-9]*\) iterations.*/\1/p' | sort -n | tail -1)
first=$(echo "$o" | sed -n 's/^System 0: \([0-9]*\) iterations.*/\1/p')
[ $rc -eq 0 ] && [ "$(echo "$o" | grep -c '^System [0-2]: .* converged$')" -eq 3 ] && [ "$its" = "$top" ] &&
    [ "$first" = "$one" ] && echo "$o" | grep -q '^Solve Time = '
check "-nrhs 3: a line per system, Iterations = the largest ($its), system 0 as the single solve ($one)" $?
run 1 "$bin/ovk_laplace27" -n 6 6 6 -nrhs 0 >/dev/null 2>&1; [ $? -eq 2 ]; check "-nrhs 0 exits 2" $?
o=$(run 2 "$bin/ovk_loadcases" -n 6 4 4 -k 3 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(echo "$o" | grep -c '^load case [0-2]: .*(converged)$')" -eq 3 ]
check "ovk_loadcases -k 3: three converged load cases" $?
exit $fail
