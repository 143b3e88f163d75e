# Sourced by the drivers' area scripts (usage: AREA.sh BINDIR MPIEXEC "MPIEXEC_PREFLAGS"):
# their arguments, run NP PROGRAM ARGS... (two minutes at most), check DESCRIPTION STATUS
# (0: ok, else the script fails), and $tmp, removed at exit.
bin=$1 mpiexec=$2 pre=$3
fail=0
run() { timeout 120 "$mpiexec" -n "$1" $pre "${@:2}"; }
check() { # description, condition result
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
