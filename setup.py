"""Build glue for pyproject.toml: the C library goes into the package.

pip install . runs build_py below, which puts libovkrylov.so.0 next to the
package's modules and a _config.py naming it (ovkrylov/_lib.py loads it from
there).  The library is
  - the one of an existing CMake build when OVKRYLOV_BUILD_DIR names its
    directory (cmake -S . -B build && cmake --build build: OVKRYLOV_BUILD_DIR=build);
  - else built here with CMake (Release, the library alone, with hypre's amg
    when libhypre64m-dev is installed) in setuptools' build directory.
Either way it links the MPI that CMake finds (mpicc), which must be the one
mpi4py uses (Debian's: Open MPI).  setuptools' own directory is build-pip/
(not build/, the CMake build of the README's quick start)."""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
SONAME = "libovkrylov.so.0"


def _cmake_library(build_temp):
    """Configure and build the library alone; returns its path."""
    bdir = os.path.join(build_temp, "cmake")
    flags = ["-DCMAKE_BUILD_TYPE=Release", "-DOVK_BUILD_TESTS=OFF", "-DOVK_BUILD_EXAMPLES=OFF",
             "-DOVK_BUILD_BENCH=OFF", "-DOVK_BUILD_FORTRAN=OFF", "-DOVK_BUILD_PYTHON=OFF"]
    subprocess.check_call(["cmake", "-S", ROOT, "-B", bdir] + flags)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    subprocess.check_call(["cmake", "--build", bdir, "--target", "ovkrylov", "-j", jobs])
    return os.path.join(bdir, SONAME)


def _found_library():
    """OVKRYLOV_BUILD_DIR's library, or None."""
    d = os.environ.get("OVKRYLOV_BUILD_DIR")
    if not d:
        return None
    path = os.path.join(d if os.path.isabs(d) else os.path.join(ROOT, d), SONAME)
    if not os.path.exists(path):
        raise SystemExit(f"OVKRYLOV_BUILD_DIR={d}: no {SONAME} there (build it: cmake --build {d})")
    return path


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        lib = _found_library() or _cmake_library(os.path.join(ROOT, "build-pip", "temp"))
        dest = os.path.join(self.build_lib, "ovkrylov")
        os.makedirs(dest, exist_ok=True)
        shutil.copyfile(os.path.realpath(lib), os.path.join(dest, SONAME))
        with open(os.path.join(dest, "_config.py"), "w") as f:
            f.write(f'LIBRARY = "{SONAME}"  # next to this file (setup.py)\n')
        print(f"ovkrylov: packaged the C library {os.path.realpath(lib)}")


class BinaryDistribution(Distribution):
    """A wheel for this platform: it carries a shared library."""

    def has_ext_modules(self):
        return True


os.makedirs(os.path.join(ROOT, "build-pip"), exist_ok=True)  # egg_base must exist
setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=BinaryDistribution,
      options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}})
