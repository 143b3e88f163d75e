# The SMPI settings of the tests (sourced).  Correctness only: compute costs
# nothing (smpi/simulate-computation:no), MPI_Test and MPI_Iprobe cost 1 us of
# simulated time each, never growing (a test of a pending request must advance
# the clock, or a rank polling nbc's schedule spins without time passing and
# the simulation never ends; 1 us keeps the spins few), and the MPICH
# collective selector (SMPI's defaults make MPI_Allgather/MPI_Alltoall-based
# setup slow).  The study's settings are in bench/smpi/settings.sh.
ovk_smpirun() { # NP PLATFORM PROGRAM ARGS...: run under smpirun (a wall-time bound of 240 s)
  local np=$1 platform=$2
  shift 2
  local hosts
  hosts=$(mktemp)
  seq 0 $((np - 1)) | sed 's/^/node-/' >"$hosts"
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$smpirun" -wrapper "timeout --kill-after=10 240" -np "$np" -platform "$platform" -hostfile "$hosts" \
    --log=root.thres:warning --log=smpi_config.thres:error \
    --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:mpich \
    --cfg=smpi/test:1e-6 --cfg=smpi/iprobe:1e-6 --cfg=smpi/grow-injected-times:no \
    --cfg=smpi/tmpdir:"${TMPDIR:-/tmp}" "$@" 2>&1
  local rc=$?
  rm -f "$hosts"
  return $rc
}
