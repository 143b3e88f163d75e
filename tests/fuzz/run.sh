#!/usr/bin/env bash
# Build the Matrix Market fuzz target with clang (libFuzzer) and run it for a
# bounded number of inputs from the seed corpus (tests/fuzz/corpus: banners,
# size lines at 2^31 and 2^63, counts that disagree, NUL bytes, CRLF, long
# lines, and every input a past run found).
#   FUZZ_RUNS     inputs to try after the corpus (60000); with FUZZ_SEED (1)
#                 the run is the same on every machine, so a CI failure is a
#                 real regression and not a new random finding
#   FUZZ_SECONDS  explore instead: a random seed for this many seconds (use it
#                 by hand, add what it finds to tests/fuzz/corpus)
# Limits: the reader is given a 256 MB budget (ovk__mem_cap in fuzz_mmread.c);
# a single allocation of 512 MB or more, 1 GB of RSS or 10 s on one input is a
# failure, as is any crash or sanitizer report.  Exits non-zero on a finding
# (the input is left in build-fuzz/findings/).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${FUZZ_SECONDS:-}" ]; then
  limit=(-max_total_time="$FUZZ_SECONDS")
else
  limit=(-seed="${FUZZ_SEED:-1}" -runs="${FUZZ_RUNS:-60000}")
fi
cmake -S tests/fuzz -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j"$(nproc)"
work=build-fuzz/work
rm -rf "$work" && mkdir -p "$work" build-fuzz/findings
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$(date +%s)
build-fuzz/fuzz_mmread "${limit[@]}" -rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=10 \
  -max_len=4096 -dict=tests/fuzz/mm.dict -artifact_prefix=build-fuzz/findings/ -print_final_stats=1 \
  "$work" tests/fuzz/corpus 2>&1 | tail -20
echo "fuzz_mmread: no finding in $(( $(date +%s) - start )) s"
