#!/usr/bin/env bash
# Install the Debian packages ovkrylov needs to build and test.
set -euo pipefail
# libfabric-dev: the offload backend's fabric engine (its libfabric1 carries the sockets
# provider, the one with triggered operations); libfabric-bin: fi_info, to check it.
# clang + its compiler-rt (libclang-rt-N-dev, N the clang version): libFuzzer, for tests/fuzz.
# gfortran: the Fortran binding (CMake's check_language(Fortran)).
# libhypre64m-dev: hypre with 64-bit global indices (as ovk_gidx), for the amg preconditioner
# (found by CMake; without it amg is absent). It links Open MPI, so the MPICH build leaves amg out.
# libmpich-dev, mpich: tests/run_all.sh also builds and tests against MPICH (mpicc.mpich,
# mpifort.mpich for the Fortran module, mpiexec.mpich). Debian registers MPICH's mpicc/mpiexec
# alternatives at priority 40, below Open MPI's 50, so the default mpicc, mpiexec and CMake
# FindMPI stay Open MPI (checked at the end).
# libsimgrid-dev, simgrid: SimGrid's SMPI (smpicc, smpirun) for the simulated build's tests
# (tests/smpi, run by tests/run_all.sh in build-smpi) and bench/smpi.
# petsc-dev: PETSc (Debian's: Open MPI, real double, 32-bit PetscInt) for the PETSc plug-in
# libovkrylov_petsc (petsc/, KSP type ovkrylov) and its tests (tests/petsc); found by CMake.
# python3-petsc4py: the plug-in from petsc4py (tests/petsc/test_petsc4py.py, ctest petsc4py_np2).
# python3-mpi4py, python3-numpy, python3-scipy, python3-pytest: the Python package (python/) and
# its tests (tests/python, pytest under mpiexec; Debian's mpi4py is built on Open MPI).
# python3-venv, python3-pip, python3-setuptools, python3-wheel: `pip install --no-build-isolation .`
# (pyproject.toml, offline) into a venv, which tests/python/run.sh checks.
pkgs="cmake make gcc libc6-dev pkg-config libopenmpi-dev openmpi-bin libopenblas-dev liblapack-dev libcmocka-dev
      libfabric-dev libfabric-bin clang gfortran libmpich-dev mpich libhypre64m-dev
      libsimgrid-dev simgrid petsc-dev python3-petsc4py python3 python3-mpi4py python3-numpy python3-scipy
      python3-pytest python3-venv python3-pip python3-setuptools python3-wheel"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
# libFuzzer ships in the compiler-rt package of the installed clang's version
clang_major=$(clang -dumpversion | cut -d. -f1)
rt="libclang-rt-${clang_major}-dev"
if ! dpkg -s "$rt" >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$rt"
fi
# README's quick start and the default build expect Open MPI behind mpicc and mpiexec.
for tool in mpicc mpiexec; do
  case "$(readlink -f "$(command -v $tool)")" in
    */opal_wrapper|*/orterun|*.openmpi) ;;
    *) echo "deps.sh: warning: $tool is not Open MPI ($(readlink -f "$(command -v $tool)"));" \
            "'update-alternatives --auto mpi' and '--auto mpirun' restore the default" >&2 ;;
  esac
done
