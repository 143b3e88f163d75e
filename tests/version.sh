#!/bin/sh
# One version: include/ovkrylov/ovkrylov.h's OVK_VERSION_* is the source;
# CMake's project version (read from it) and the Python package's
# __version__ (pyproject.toml reads that) must say the same.
# With BUILD_DIR, also the pkg-config files' Version (ovkrylov.pc, ovkrylov-fortran.pc when built).
# usage: version.sh SOURCE_DIR CMAKE_PROJECT_VERSION [BUILD_DIR]
src=$1 cmake_version=$2 build=${3:-}
h=$src/include/ovkrylov/ovkrylov.h
part() { sed -n "s/^#define OVK_VERSION_$1 *\([0-9][0-9]*\).*/\1/p" "$h"; }
header=$(part MAJOR).$(part MINOR).$(part PATCH)
python=$(sed -n 's/^__version__ = "\([^"]*\)".*/\1/p' "$src/python/ovkrylov/__init__.py")
echo "header $header, CMake $cmake_version, Python $python"
[ "$header" = "$cmake_version" ] && [ "$header" = "$python" ] || { echo "FAIL: the versions differ"; exit 1; }
for pc in ${build:+"$build"/ovkrylov.pc "$build"/ovkrylov-fortran.pc}; do
  [ -f "$pc" ] || continue
  v=$(sed -n 's/^Version: *//p' "$pc")
  echo "$(basename "$pc") $v"
  [ "$v" = "$header" ] || { echo "FAIL: $pc says $v"; exit 1; }
done
