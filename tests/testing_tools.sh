#!/bin/sh
# The testing tools stay out of the library's surface (docs/install.md,
# "Testing tools"): libovkrylov (shared and static, in the build tree and
# installed) defines no noise injection and -- unless configured with
# OVK_ALLOC_FAULT=ON -- no allocation-failure injector (no __wrap_ allocator,
# no ovk__alloc_fault_*, no OVK_ALLOC_FAIL reader); ovkrylov.h does not include
# ovkrylov/testing.h; the testing component is installed (header, library,
# exported target) exactly when OVK_TESTING=ON.  The libraries that carry the
# tools (libovkrylov_testing.a, the tests' libovkrylov_faulty.a) are checked to
# define them, so that a check that finds nothing has looked where it would.
# Usage: testing_tools.sh BINARY_DIR SOURCE_DIR NM CC SHARED STATIC TESTING FAULTY ALLOC_FAULT(ON|OFF) OVK_TESTING(ON|OFF)
set -u
bin=$1 src=$2 nm=$3 cc=$4 shared=$5 static=$6 testing=$7 faulty=$8 alloc_fault=$9
shift 9
ovk_testing=$1
bad=0
fail() { echo "FAIL: $*" >&2; bad=1; }
pass() { echo "ok:   $*"; }
on() { case "$1" in ON|on|TRUE|true|YES|yes|1) return 0 ;; *) return 1 ;; esac; }

noise_re='ovk_noise_start|ovk_noise_stop|ovk__noise_'
inject_re='ovk__alloc_fault_|__wrap_(malloc|calloc|realloc|posix_memalign)'

# defined NAMES of a library: the dynamic table of a shared one, every
# defined symbol (local ones included) of an archive
defined() {
  case "$1" in
    *.so*) "$nm" -D --defined-only "$1" ;;
    *) "$nm" --defined-only "$1" 2>/dev/null ;;
  esac | awk 'NF >= 3 { print $3 }'
}
# lib has / has not symbols matching an extended regex
has() { defined "$1" | grep -Eq "^($2)"; }
env_reader() { grep -aq OVK_ALLOC_FAIL "$1"; }

check_library() { # file label
  if has "$1" "$noise_re"; then fail "$2 defines noise injection: $(defined "$1" | grep -E "^($noise_re)" | tr '\n' ' ')"
  else pass "$2: no noise injection"; fi
  if on "$alloc_fault"; then
    if has "$1" 'ovk__alloc_fault_arm' && env_reader "$1"; then pass "$2: the injector, as OVK_ALLOC_FAULT=ON asks"
    else fail "$2 lacks the injector although OVK_ALLOC_FAULT=ON"; fi
  else
    if has "$1" "$inject_re"; then fail "$2 defines the allocation-failure injector: $(defined "$1" | grep -E "^($inject_re)" | tr '\n' ' ')"
    else pass "$2: no allocation-failure injector"; fi
    if env_reader "$1"; then fail "$2 reads OVK_ALLOC_FAIL"; else pass "$2: does not read OVK_ALLOC_FAIL"; fi
  fi
}

# the controls: the carriers define what the checks look for
if has "$testing" 'ovk_noise_start' && has "$testing" 'ovk_noise_stop'; then pass "control: libovkrylov_testing defines the noise"
else fail "control: $testing does not define ovk_noise_start/stop (is nm reading it?)"; fi
if has "$faulty" '__wrap_malloc' && has "$faulty" 'ovk__alloc_fault_arm' && env_reader "$faulty"; then
  pass "control: libovkrylov_faulty carries the injector"
else fail "control: $faulty lacks the injector (is nm reading it?)"; fi

check_library "$shared" "libovkrylov.so (build tree)"
check_library "$static" "libovkrylov.a (build tree)"

# the umbrella header does not reach testing.h; testing.h stands alone
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
printf '#include <ovkrylov/ovkrylov.h>\nint main(void) { return 0; }\n' > "$tmp/umbrella.c"
printf '#include <ovkrylov/testing.h>\nint main(void) { return ovk_noise_stop() == OVK_ESTATE; }\n' > "$tmp/testing.c"
if ! deps=$("$cc" -M -I"$src/include" "$tmp/umbrella.c" 2>&1); then fail "cannot preprocess ovkrylov.h: $deps"
elif printf '%s\n' "$deps" | grep -q 'ovkrylov/testing\.h'; then fail "ovkrylov.h includes ovkrylov/testing.h"
else pass "ovkrylov.h does not include ovkrylov/testing.h"; fi
if deps=$("$cc" -M -I"$src/include" "$tmp/testing.c" 2>&1) && printf '%s\n' "$deps" | grep -q 'ovkrylov/testing\.h' &&
   "$cc" -fsyntax-only -Wall -Werror -I"$src/include" "$tmp/testing.c"; then
  pass "control: ovkrylov/testing.h compiles on its own and shows in -M"
else fail "control: ovkrylov/testing.h does not compile on its own"; fi

# the installed package
if ! out=$(cmake --install "$bin" --prefix "$tmp/prefix" 2>&1); then
  fail "cmake --install: $out"
else
  lib=$(find "$tmp/prefix" -name 'libovkrylov.so.*' -type f | head -n 1)
  arc=$(find "$tmp/prefix" -name 'libovkrylov.a' | head -n 1)
  if [ -n "$lib" ] && [ -n "$arc" ]; then
    check_library "$lib" "installed libovkrylov.so"
    check_library "$arc" "installed libovkrylov.a"
  else fail "no libovkrylov.so.* or libovkrylov.a installed under $tmp/prefix"; fi
  hdr=$(find "$tmp/prefix" -path '*/include/ovkrylov/testing.h' | head -n 1)
  tlib=$(find "$tmp/prefix" -name 'libovkrylov_testing.a' | head -n 1)
  exported=0
  grep -qs 'ovkrylov::ovkrylov_testing' $(find "$tmp/prefix" -name 'ovkrylovTargets*.cmake') && exported=1
  if on "$ovk_testing"; then
    if [ -n "$hdr" ] && [ -n "$tlib" ] && [ $exported = 1 ]; then pass "installed: the testing component (OVK_TESTING=ON)"
    else fail "OVK_TESTING=ON but installed header '$hdr', library '$tlib', exported $exported"; fi
  else
    if [ -z "$hdr" ] && [ -z "$tlib" ] && [ $exported = 0 ]; then pass "installed: no testing component (OVK_TESTING=OFF)"
    else fail "OVK_TESTING=OFF but installed header '$hdr', library '$tlib', exported $exported"; fi
  fi
  if find "$tmp/prefix" -name 'libovkrylov_faulty*' | grep -q .; then fail "libovkrylov_faulty is installed"
  else pass "installed: no libovkrylov_faulty"; fi
fi
exit $bad
