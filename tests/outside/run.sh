#!/usr/bin/env bash
# Install the build into a scratch prefix, then build the application example
# against it: with find_package(ovkrylov), with plain `cc $(pkg-config --cflags
# --libs ovkrylov)` (ovkrylov.pc requires the library's MPI module: ompi-c,
# mpich) and with MPICC, the C wrapper the library was built with, plus
# pkg-config.  The CMake build takes its MPI from the installed
# ovkrylovConfig.cmake.  With FORTRAN=ON, the same for the Fortran driver
# (examples/ovk_laplace27.f90): find_package(ovkrylov COMPONENTS Fortran), and
# pkg-config ovkrylov-fortran with the Fortran wrapper it names (variable mpifc).
# Every program, and the installed libraries, must load one MPI, the library's.
# usage: run.sh BUILD_DIR SOURCE_DIR MPIEXEC "MPIEXEC_PREFLAGS" [MPICC] [FORTRAN]
set -eu
build=$1 src=$2 mpiexec=$3 pre=$4 mpicc=${5:-mpicc} fortran=${6:-OFF}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fapp=""
[ "$fortran" = ON ] && fapp="-DOVK_FORTRAN_APP_SOURCE=$src/examples/ovk_laplace27.f90"
cmake -S "$src/tests/outside" -B "$prefix/outside" -DCMAKE_PREFIX_PATH="$prefix" \
      -DOVK_APP_SOURCE="$src/examples/ovk_app.c" $fapp >/dev/null
cmake --build "$prefix/outside" >/dev/null
"$mpiexec" -n 2 $pre "$prefix/outside/outside_app" native
libdir=$(cd "$(dirname "$(find "$prefix" -name ovkrylov.pc | head -n 1)")/.." && pwd)
pc() { PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config "$@"; }
echo "ovkrylov.pc requires: $(pc --print-requires ovkrylov | paste -sd' ' -)"
# plain cc: everything, MPI included, from pkg-config
${CC:-cc} -std=c11 "$src/examples/ovk_app.c" -o "$prefix/app_pc" \
  $(pc --cflags --libs ovkrylov) -Wl,-rpath,"$libdir"
"$mpiexec" -n 2 $pre "$prefix/app_pc" blocking
# docs/install.md's commands of "Building an application against it", as written there: PREFIX the
# scratch install, app.c and app.f90 the examples; the MPI module and hypre as this build has them
# (the doc names Open MPI's and a build with amg). Each program they build must start.
doc_blocks() { # the sh blocks of that section, continuation lines joined
  awk '/^## Building an application against it/{on=1; next} on && /^## /{on=0}
       on && /^```sh/{inb=1; next} inb && /^```/{inb=0; next} on && inb' "$src/docs/install.md" |
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta'
}
mpimod=$(pc --print-requires ovkrylov | grep -oE '^(ompi-c|mpich)' | head -n 1)
hypre=-lHYPRE64m
pc --static --libs ovkrylov | grep -q HYPRE || hypre=""
mkdir "$prefix/doc_cmds"
doc_blocks | { [ "$fortran" = ON ] && cat || grep -v 'ovkrylov-fortran'; } |
  sed -e "s|PREFIX|$prefix|g" -e "s|app\.c |$src/examples/ovk_app.c |" \
      -e "s|app\.f90 |$src/examples/ovk_laplace27.f90 |" -e "s|-lHYPRE64m|$hypre|" -e "s|ompi-c|$mpimod|" \
  > "$prefix/doc_cmds/cmds.sh"
[ "$(grep -c . "$prefix/doc_cmds/cmds.sh")" -ge 3 ] ||
  { echo "outside project: docs/install.md's commands not found"; cat "$prefix/doc_cmds/cmds.sh"; exit 1; }
(cd "$prefix/doc_cmds" && PKG_CONFIG_PATH="" bash -e cmds.sh) ||
  { echo "outside project: docs/install.md's commands failed:"; cat "$prefix/doc_cmds/cmds.sh"; exit 1; }
for app in app app_static; do
  "$mpiexec" -n 2 $pre "$prefix/doc_cmds/$app" blocking | grep -q 'iterations [0-9]*, relative residual' ||
    { echo "outside project: docs/install.md's $app does not run"; exit 1; }
done
if [ "$fortran" = ON ]; then
  (cd "$prefix/doc_cmds" && "$mpiexec" -n 2 $pre ./app_f -n 8 8 8 -solver pipecg) |
    grep -q '^Iterations = [0-9]*$' || { echo "outside project: docs/install.md's app_f does not run"; exit 1; }
fi
echo "outside project: docs/install.md's commands build programs that run ($(grep -c . "$prefix/doc_cmds/cmds.sh") lines)"
# the MPI wrapper and pkg-config (built and checked, not run)
"$mpicc" -std=c11 "$src/examples/ovk_app.c" -o "$prefix/app_pc_wrapper" \
  $(pc --cflags --libs ovkrylov) -Wl,-rpath,"$libdir"
test -x "$prefix/bin/ovk_laplace27"
# the installed driver runs from another directory (its rpath finds the library), README's quick start
mkdir "$prefix/elsewhere"
out=$(cd "$prefix/elsewhere" && "$mpiexec" -n 2 $pre "$prefix/bin/ovk_laplace27" -n 8 8 8 -ovk_solver pipeprcg \
      -ovk_precond ic0 -ovk_view)
echo "$out" | grep -q '^  solver: pipeprcg' && echo "$out" | grep -q '^Iterations = [0-9]*$'
echo "outside project: installed ovk_laplace27 from another directory: $(echo "$out" | grep '^Iterations')"
# One MPI only, the library's: Open MPI (libmpi, libmpi_usempif08, ...) and MPICH
# (libmpich, libmpichfort) must not both be loaded.
mpi_of() { ldd "$1" | grep -oE 'libmpi[a-z_0-9]*\.so' |
  sed -E 's/^libmpich[a-z_0-9]*\.so$/MPICH/; s/^libmpi(_[a-z_0-9]*)?\.so$/Open MPI/' | sort -u | paste -sd, -; }
want=$(mpi_of "$libdir/libovkrylov.so")
[ -n "$want" ] && [ "${want#*,}" = "$want" ] || { echo "outside project: libovkrylov.so loads MPI '$want'"; exit 1; }
check=("$prefix/outside/outside_app" "$prefix/app_pc" "$prefix/app_pc_wrapper" "$prefix/bin/ovk_laplace27")
[ "$fortran" = ON ] && check+=("$libdir/libovkrylov_fortran.so" "$prefix/outside/outside_app_f"
                               "$prefix/bin/ovk_laplace27_f")
one_mpi() { # each finds all its libraries and loads the library's MPI only
  for app in "$@"; do
    ! ldd "$app" | grep 'not found' || { echo "outside project: $app misses a library"; exit 1; }
    got=$(mpi_of "$app")
    [ "$got" = "$want" ] ||
      { echo "outside project: $app loads MPI '$got', the library '$want'"; exit 1; }
  done
}
one_mpi "${check[@]}"
if [ "$fortran" = ON ]; then
  test -x "$prefix/bin/ovk_laplace27_f"
  fmod=$(pc --variable=fmoddir ovkrylov-fortran)
  test -f "$fmod/ovkrylov.mod"
  echo "Fortran module: $(cd "$fmod" && pwd | sed "s|^$prefix/||")/ovkrylov.mod"
  out=$("$mpiexec" -n 2 $pre "$prefix/outside/outside_app_f" -n 8 8 8 -solver pipecg)
  echo "$out" | grep -q '^Iterations = [0-9]*$'
  mpifc=$(pc --variable=mpifc ovkrylov-fortran)
  # the compiler the module was built with, stated by the package: the wrapper's
  fcv=$(pc --variable=fcompiler_version ovkrylov-fortran)
  [ -n "$fcv" ] && "$mpifc" --version | head -n 1 | grep -qF "$fcv" ||
    { echo "outside project: fcompiler_version '$fcv' is not $mpifc's: $("$mpifc" --version | head -n 1)"; exit 1; }
  echo "Fortran module built with $(pc --variable=fcompiler_id ovkrylov-fortran) $fcv"
  "$mpifc" "$src/examples/ovk_laplace27.f90" -o "$prefix/app_f_pc" \
    $(pc --cflags --libs ovkrylov-fortran) -Wl,-rpath,"$libdir"
  one_mpi "$prefix/app_f_pc"
  [ "$("$mpiexec" -n 2 $pre "$prefix/app_f_pc" -n 8 8 8 -solver pipecg | grep -v '^Solve Time')" = \
    "$(echo "$out" | grep -v '^Solve Time')" ]
  echo "outside project (Fortran, CMake and pkg-config with $mpifc): $(echo "$out" | head -n 1)"
fi
echo "outside project: one MPI ($want)"
echo "outside project: PASS"
