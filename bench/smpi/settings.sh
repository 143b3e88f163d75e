# The SMPI settings of the scaling study (sourced by scaling.sh); each one's
# reason is in docs/scaling.md, "Settings".
OVK_SMPI_CFG=(
  --log=root.thres:warning --log=smpi_config.thres:error
  # compute: the real work runs but costs no simulated time; ovk_smpi_bench
  # charges the costs a real single-rank run measured (smpi_execute)
  --cfg=smpi/simulate-computation:no
  # smpi_execute(d) runs d * host-speed flops on a platform host (1 Gflop/s):
  # the same speed, so that it charges exactly d
  --cfg=smpi/host-speed:1Gf
  # one MPI_Test / MPI_Iprobe: 0.1 us of simulated time (Open MPI's MPI_Test
  # of a pending request measured 0.08-0.10 us here), never growing
  # (OVK_SMPI_TEST_COST overrides it, in seconds)
  --cfg=smpi/test:${OVK_SMPI_TEST_COST:-1e-7} --cfg=smpi/iprobe:${OVK_SMPI_TEST_COST:-1e-7}
  --cfg=smpi/grow-injected-times:no
  # MPICH's algorithm choices (recursive doubling for small allreduces)
  --cfg=smpi/coll-selector:mpich
  # messages pay the platform's link latencies and bandwidths as written
  # (SMPI's default factors are a TCP cluster's calibration)
  --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
)
ovk_smpi_run() { # TIMEOUT NP PLATFORM PROGRAM ARGS...
  local limit=$1 np=$2 platform=$3
  shift 3
  local hosts
  hosts=$(mktemp)
  seq 0 $((np - 1)) | sed 's/^/node-/' >"$hosts"
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 smpirun -wrapper "timeout --kill-after=10 $limit" -np "$np" \
    -platform "$platform" -hostfile "$hosts" "${OVK_SMPI_CFG[@]}" --cfg=smpi/tmpdir:"${TMPDIR:-/tmp}" "$@" 2>&1
  local rc=$?
  rm -f "$hosts"
  return $rc
}
