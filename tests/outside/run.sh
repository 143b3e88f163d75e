#!/usr/bin/env bash
# Install the build into a scratch prefix, then build the application example
# against it twice: with find_package(ovkrylov) and with pkg-config.
# The CMake build takes its MPI from the installed ovkrylovConfig.cmake; the
# pkg-config build uses MPICC, the compiler wrapper the library was built with
# (and its Fortran sibling).  With FORTRAN=ON, the same for the Fortran driver
# (examples/ovk_laplace27.f90): find_package(ovkrylov COMPONENTS Fortran) and
# pkg-config ovkrylov-fortran.
# usage: run.sh BUILD_DIR SOURCE_DIR MPIEXEC "MPIEXEC_PREFLAGS" [MPICC] [FORTRAN]
set -eu
build=$1 src=$2 mpiexec=$3 pre=$4 mpicc=${5:-mpicc} fortran=${6:-OFF}
mpifc=$(dirname "$mpicc")/$(basename "$mpicc" | sed 's/^mpicc/mpif90/')
[ "$(dirname "$mpicc")" = . ] && mpifc=$(basename "$mpicc" | sed 's/^mpicc/mpif90/')
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
PKG_CONFIG_PATH="$libdir/pkgconfig" "$mpicc" -std=c11 "$src/examples/ovk_app.c" -o "$prefix/app_pc" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs ovkrylov) -Wl,-rpath,"$(cd "$libdir" && pwd)"
"$mpiexec" -n 2 $pre "$prefix/app_pc" blocking
test -x "$prefix/bin/ovk_laplace27"
# One MPI only, the library's: libmpi (Open MPI) and libmpich must not both be loaded.
mpilibs() { ldd "$1" | grep -o 'libmpi[a-z]*\.so[.0-9]*' | sort -u | paste -sd' ' -; }
want=$(mpilibs "$(find "$prefix" -name 'libovkrylov.so' | head -n 1)")
for app in "$prefix/outside/outside_app" "$prefix/app_pc"; do
  got=$(mpilibs "$app")
  [ "$got" = "$want" ] && [ "$(echo $got | wc -w)" -eq 1 ] ||
    { echo "outside project: $app loads MPI '$got', the library '$want'"; exit 1; }
done
echo "outside project: one MPI ($want)"
if [ "$fortran" = ON ]; then
  test -x "$prefix/bin/ovk_laplace27_f"
  fmod=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --variable=fmoddir ovkrylov-fortran)
  test -f "$fmod/ovkrylov.mod"
  echo "Fortran module: $(cd "$fmod" && pwd | sed "s|^$prefix/||")/ovkrylov.mod"
  out=$("$mpiexec" -n 2 $pre "$prefix/outside/outside_app_f" -n 8 8 8 -solver pipecg)
  echo "$out" | grep -q '^Iterations = [0-9]*$'
  PKG_CONFIG_PATH="$libdir/pkgconfig" "$mpifc" "$src/examples/ovk_laplace27.f90" -o "$prefix/app_f_pc" \
    $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs ovkrylov-fortran) \
    -Wl,-rpath,"$(cd "$libdir" && pwd)"
  [ "$("$mpiexec" -n 2 $pre "$prefix/app_f_pc" -n 8 8 8 -solver pipecg | grep -v '^Solve Time')" = \
    "$(echo "$out" | grep -v '^Solve Time')" ]
  echo "outside project (Fortran, CMake and pkg-config): $(echo "$out" | head -n 1)"
fi
echo "outside project: PASS"
