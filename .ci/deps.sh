#!/usr/bin/env bash
# Install the Debian packages ovkrylov needs to build and test.
set -euo pipefail
# libfabric-dev: the offload backend's fabric engine (its libfabric1 carries the sockets
# provider, the one with triggered operations); libfabric-bin: fi_info, to check it.
# gfortran: the Fortran module and its tests (optional at configure time; libopenmpi-dev carries mpi_f08).
pkgs="cmake make gcc libc6-dev pkg-config libopenmpi-dev openmpi-bin libopenblas-dev liblapack-dev libcmocka-dev
      libfabric-dev libfabric-bin gfortran"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
