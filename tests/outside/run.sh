#!/usr/bin/env bash
# Install the build into a scratch prefix, then build the application example
# against it twice: with find_package(ovkrylov) and with pkg-config.
# The CMake build takes its MPI from the installed ovkrylovConfig.cmake; the
# pkg-config build uses MPICC, the compiler wrapper the library was built with.
# usage: run.sh BUILD_DIR SOURCE_DIR MPIEXEC "MPIEXEC_PREFLAGS" [MPICC]
set -eu
build=$1 src=$2 mpiexec=$3 pre=$4 mpicc=${5:-mpicc}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$src/tests/outside" -B "$prefix/outside" -DCMAKE_PREFIX_PATH="$prefix" \
      -DOVK_APP_SOURCE="$src/examples/ovk_app.c" >/dev/null
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
echo "outside project: PASS"
