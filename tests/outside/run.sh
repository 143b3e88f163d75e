#!/usr/bin/env bash
# Install the build into a scratch prefix, then build the application example
# against it twice: with find_package(ovkrylov) and with pkg-config.  With
# FORTRAN=ON, the same for the Fortran driver (examples/ovk_laplace27.f90):
# find_package(ovkrylov COMPONENTS Fortran) and pkg-config ovkrylov-fortran.
# usage: run.sh BUILD_DIR SOURCE_DIR MPIEXEC "MPIEXEC_PREFLAGS" [FORTRAN]
set -eu
build=$1 src=$2 mpiexec=$3 pre=$4 fortran=${5:-OFF}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fapp=""
[ "$fortran" = ON ] && fapp="-DOVK_FORTRAN_APP_SOURCE=$src/examples/ovk_laplace27.f90"
cmake -S "$src/tests/outside" -B "$prefix/outside" -DCMAKE_PREFIX_PATH="$prefix" \
      -DOVK_APP_SOURCE="$src/examples/ovk_app.c" $fapp >/dev/null
cmake --build "$prefix/outside" >/dev/null
"$mpiexec" -n 2 $pre "$prefix/outside/outside_app" native
libdir=$(dirname "$(find "$prefix" -name ovkrylov.pc | head -n 1)")/..
PKG_CONFIG_PATH="$libdir/pkgconfig" mpicc -std=c11 "$src/examples/ovk_app.c" -o "$prefix/app_pc" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs ovkrylov) -Wl,-rpath,"$(cd "$libdir" && pwd)"
"$mpiexec" -n 2 $pre "$prefix/app_pc" blocking
test -x "$prefix/bin/ovk_laplace27"
if [ "$fortran" = ON ]; then
  test -x "$prefix/bin/ovk_laplace27_f"
  fmod=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --variable=fmoddir ovkrylov-fortran)
  test -f "$fmod/ovkrylov.mod"
  echo "Fortran module: $(cd "$fmod" && pwd | sed "s|^$prefix/||")/ovkrylov.mod"
  out=$("$mpiexec" -n 2 $pre "$prefix/outside/outside_app_f" -n 8 8 8 -solver pipecg)
  echo "$out" | grep -q '^Iterations = [0-9]*$'
  PKG_CONFIG_PATH="$libdir/pkgconfig" mpif90 "$src/examples/ovk_laplace27.f90" -o "$prefix/app_f_pc" \
    $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs ovkrylov-fortran) \
    -Wl,-rpath,"$(cd "$libdir" && pwd)"
  [ "$("$mpiexec" -n 2 $pre "$prefix/app_f_pc" -n 8 8 8 -solver pipecg | grep -v '^Solve Time')" = \
    "$(echo "$out" | grep -v '^Solve Time')" ]
  echo "outside project (Fortran, CMake and pkg-config): $(echo "$out" | head -n 1)"
fi
echo "outside project: PASS"
