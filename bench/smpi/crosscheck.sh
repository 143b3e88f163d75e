#!/usr/bin/env bash
# The cross-check table of docs/scaling.md: each simulated run of results.txt
# (scaling.sh) against what the latency model (docs/latency-model.md) predicts
# for the same compute, rank count and reductions, with its preset's
# L = alpha + beta * ceil(log2 P) (pcg-overlap-256: beta = 31.25 us, P = 256):
#   blocking (no overlap), and alg1, gmres, sgmres, scg (blocking sums) on
#   any backend:                                     C + R L
#   pipecg, pipeprcg on nbc (one reduction in flight over the window W, all of
#   C here, levels advanced by the pokes):           C + R L - min(W, R L)
#   plcg:l=L on nbc (a reduction has l iterations):  max(C, (C + R L) / l)
# where C is the charged compute per iteration and R the reductions per
# iteration.  The simulation also pays the halo exchange: H = the bench's
# probe of one exchange x the matvecs per iteration (pipeprcg makes two, plcg
# adds its estimate's), which the model has not.  Two readings, shown side by
# side: the halo outside the overlap (H + model(C): a reduction of nbc moves
# on only at pokes in the kernels, and a halo wait does not poke) and the halo
# as work a reduction overlaps (model(C + H)); on blocking they agree.
#   crosscheck.sh results.txt [beta_us] [P]
set -euo pipefail
awk -v beta="${2:-31.25}" -v P="${3:-256}" '
/^SMPI_RESULT/ && !/FAILED/ {
  delete f
  for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
  if (f["ranks"] != P) next
  lv = 0; for (p = 1; p < P; p *= 2) lv++
  L = beta * lv; C = f["compute_us"] + 0; R = f["reductions_per_iter"] + 0
  H = f["halo_us"] * f["matvecs"] / f["iters"]
  s = f["solver"]; b = f["backend"]; l = 1
  if (s ~ /^plcg/) { l = s; sub(/.*l=/, "", l); l += 0 }
  m_out = H + model(s, b, l, C, R, L); m_in = model(s, b, l, C + H, R, L); t = f["t_iter_us"]
  printf "| %s | %s | %d | %.0f | %.0f | %.0f | %.2f | %.0f | %.2f |\n", s, b, f["nlocal"], t, H, m_out, t / m_out,
         m_in, t / m_in
}
function model(s, b, l, C, R, L) {
  if (b == "blocking" || s == "alg1" || s ~ /^(s?gmres|scg)/) return C + R * L
  if (s ~ /^plcg/) return (C > (C + R * L) / l) ? C : (C + R * L) / l
  return C + R * L - ((C < R * L) ? C : R * L)
}' "$1"
