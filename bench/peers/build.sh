#!/usr/bin/env bash
# Build the peer programs on their own (CMake, bench/peers/CMakeLists.txt)
# into DIR (default /tmp/ovk-peers; the CMake build tree in DIR/.build).
# Peers whose library is missing are skipped with a message.
# Usage: bench/peers/build.sh [DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:-/tmp/ovk-peers}"
cmake -S "$here" -B "$dir/.build" -DOVK_PEERS_DIR="$dir"
cmake --build "$dir/.build" -j2
