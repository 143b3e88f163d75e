# OVK_SIMULATE, before project(): the C compiler is SimGrid's smpicc, which
# compiles against SMPI's mpi.h and links every program as a shared object
# that smpirun loads into the simulator.
find_program(OVK_SMPICC NAMES smpicc DOC "SimGrid's SMPI C compiler wrapper")
if(NOT OVK_SMPICC)
  message(FATAL_ERROR "OVK_SIMULATE=ON needs SimGrid's smpicc, which was not found "
    "(Debian: apt-get install libsimgrid-dev simgrid; or pass -DOVK_SMPICC=/path/to/smpicc).")
endif()
if(DEFINED CMAKE_C_COMPILER AND NOT CMAKE_C_COMPILER MATCHES "smpicc$")
  message(FATAL_ERROR "OVK_SIMULATE=ON compiles with smpicc, but this build directory's C compiler is "
    "${CMAKE_C_COMPILER}: configure the simulated build in a fresh build directory.")
endif()
set(CMAKE_C_COMPILER "${OVK_SMPICC}" CACHE FILEPATH "C compiler (smpicc: OVK_SIMULATE=ON)")
