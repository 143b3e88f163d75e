#!/usr/bin/env bash
# Markdown tables from scaling.sh's results.txt: per study, time per iteration
# (simulated us), share of the reductions hidden, and wall time, by
# solver/backend and rank count.
#   tables.sh results.txt
set -euo pipefail
awk '
/^SMPI_RESULT/ {
  delete f
  for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
  key = f["study"] SUBSEP f["solver"] "/" f["backend"] SUBSEP f["ranks"]
  if ($0 ~ /FAILED/) { t[key] = "failed"; h[key] = "-"; w[key] = f["wall_s"] }
  else { t[key] = sprintf("%.1f", f["t_iter_us"]); h[key] = sprintf("%.0f%%", 100 * f["hidden"])
         w[key] = f["wall_s"]; ar[f["study"] SUBSEP f["ranks"]] = f["allreduce_us"]
         nl[f["study"] SUBSEP f["ranks"]] = f["nlocal"] }
  if (!(f["study"] in seen_s)) { seen_s[f["study"]] = 1; studies[++ns] = f["study"] }
  c = f["solver"] "/" f["backend"]
  if (!((f["study"], c) in seen_c)) { seen_c[f["study"], c] = 1; cases[f["study"], ++nc[f["study"]]] = c }
  if (!((f["study"], f["ranks"]) in seen_r)) { seen_r[f["study"], f["ranks"]] = 1; rk[f["study"], ++nr[f["study"]]] = f["ranks"] }
}
END {
  for (s = 1; s <= ns; s++) {
    st = studies[s]
    printf "\n**%s scaling**: time per iteration in simulated us (share of the reductions hidden; wall time of the simulation in s)\n\n", st
    printf "| solver/backend |"; for (r = 1; r <= nr[st]; r++) printf " %s ranks (%s rows/rank, allreduce %.0f us) |", rk[st, r], nl[st SUBSEP rk[st, r]], ar[st SUBSEP rk[st, r]]
    printf "\n|---|"; for (r = 1; r <= nr[st]; r++) printf "---|"; printf "\n"
    for (c = 1; c <= nc[st]; c++) {
      printf "| %s |", cases[st, c]
      for (r = 1; r <= nr[st]; r++) { k = st SUBSEP cases[st, c] SUBSEP rk[st, r]
        if (k in t) printf " %s (%s; %s s) |", t[k], h[k], w[k]; else printf " - |" }
      printf "\n"
    }
  }
}' "$1"
