# OVK_SIMULATE, after project(): what the simulated build holds and what it
# leaves out (docs/scaling.md, "The simulated build").
#   - SMPI runs every rank as a thread of one simulator process that yields
#     only inside MPI calls: a thread of our own that calls MPI (nbc:thread=1,
#     the offload backend's agent) cannot run, and is refused at run time with
#     OVK_EUNSUPPORTED (src/backends/registry.c, OVK_SIMULATE).
#   - libfabric drives a real NIC (OVK_WITH_LIBFABRIC must be OFF).
#   - hypre and the Fortran module link a real MPI; the mpiexec tests, the
#     benchmarks of bench/ and the peers run on real ranks: all left out.
#     tests/smpi (CI) and bench/smpi (the scaling study) take their place.
if(NOT CMAKE_C_COMPILER MATCHES "smpicc$")
  message(FATAL_ERROR "OVK_SIMULATE=ON but the C compiler is ${CMAKE_C_COMPILER}, not smpicc: "
    "use a fresh build directory.")
endif()
find_program(OVK_SMPIRUN NAMES smpirun DOC "SimGrid's smpirun")
if(NOT OVK_SMPIRUN)
  message(FATAL_ERROR "OVK_SIMULATE=ON needs SimGrid's smpirun (Debian: apt-get install simgrid).")
endif()
execute_process(COMMAND ${OVK_SMPIRUN} -version OUTPUT_VARIABLE _ovk_sg_version ERROR_QUIET
  OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" OVK_SIMGRID_VERSION "${_ovk_sg_version}")
message(STATUS "simulated build: SimGrid ${OVK_SIMGRID_VERSION} (${OVK_SMPICC}, ${OVK_SMPIRUN}); "
  "Fortran, hypre, libfabric, the mpiexec tests and bench/ are left out")
# normal variables shadow the cached options for the rest of the configure
set(OVK_BUILD_FORTRAN OFF)
set(OVK_WITH_HYPRE OFF)
set(OVK_BUILD_BENCH OFF)
set(OVK_BUILD_PEERS OFF)
