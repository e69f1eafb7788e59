#!/usr/bin/env bash
# One device call: builds the GPU test suites (tests/gpu, tests/nvrtc: Qt Test executables) and
# the tools they drive on the GPU machine, which has no Qt, with the Qt bundle of
# scripts/device/bundle_qt.sh, then runs them through ctest. ctest's output and its full log
# (every suite's own output) land in $OUT.
# usage (on the GPU machine, carry [".deps", ".qt"]):
#   scripts/device/gpu_tests.sh [--build-only] [ctest regex, default '^gpu\.|^nvrtc\.']
# GCONV_TEST_BUILD_DIR (default build/device-tests), GCONV_JOBS (build jobs, default nproc),
# GCONV_CTEST_JOBS (default 6), GCONV_CTEST_SECONDS (ctest's time limit, default 270),
# GCONV_QT_ROOT (where the bundle is unpacked, default /tmp/gconv-qt), GCONV_TEST_TARGETS (the
# targets to build instead of every suite and tool the suites run).
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
die() { echo "gpu_tests.sh: $*" >&2; exit 1; }

build_only=0
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi
regex="${1:-^gpu\.|^nvrtc\.}"
out="${OUT:-/tmp/gconv-out}"
build="${GCONV_TEST_BUILD_DIR:-$repo/build/device-tests}"
jobs="${GCONV_JOBS:-$(nproc 2>/dev/null || echo 4)}"
qt_root="${GCONV_QT_ROOT:-/tmp/gconv-qt}"
mkdir -p "$out"

[ -d .deps/hip/include/hip ] || die ".deps missing: run scripts/device/bundle_deps.sh and carry .deps"
[ -f .qt/qt6-bundle.tar.gz ] || die ".qt/qt6-bundle.tar.gz missing: run scripts/device/bundle_qt.sh and carry .qt"

# Unpack the bundle; Qt's own libraries come from it, its dependencies only where the machine
# has none of that soname (a system library is never shadowed by Debian's copy).
rm -rf "$qt_root"
mkdir -p "$qt_root/fill"
tar -xzf .qt/qt6-bundle.tar.gz -C "$qt_root" || die "cannot unpack .qt/qt6-bundle.tar.gz"
qt_lib="$qt_root/usr/lib/x86_64-linux-gnu"
qt_deps="$qt_root/usr/lib/gconv-qt-deps"
moc="$qt_root/usr/lib/qt6/libexec/moc"
qt_libs_path="$qt_lib:$qt_root/fill"
for _ in 1 2 3 4 5; do # a filled library can itself need one the machine lacks
  missing="$(LD_LIBRARY_PATH="$qt_libs_path" ldd "$qt_lib/libQt6Core.so.6" "$qt_lib/libQt6Test.so.6" \
             "$moc" "$qt_root"/fill/*.so* 2>/dev/null | awk '/not found/ {print $1}' | sort -u)"
  [ -n "$missing" ] || break
  for m in $missing; do
    [ -e "$qt_deps/$m" ] || die "$m is needed by Qt but neither on this machine nor in the bundle"
    ln -sf "$qt_deps/$m" "$qt_root/fill/$m"
  done
done
[ -z "$missing" ] || die "still missing after filling from the bundle: $missing"
filled="$(ls "$qt_root/fill" | tr '\n' ' ')"
echo "qt bundle: $(cat "$qt_root/BUNDLE_MANIFEST" | head -1 | cut -d_ -f2); from the bundle: ${filled:-nothing}"
# moc (run by the build) and the suites (run by ctest) find Qt through this.
export LD_LIBRARY_PATH="$qt_libs_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$moc" --version >/dev/null || die "the bundled moc does not run"

export PATH="/usr/local/cuda/bin:$PATH"
export GCONV_CACHE_DIR="${GCONV_CACHE_DIR:-/tmp/gconv-test-cache}"
t0=$(date +%s)
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGCONV_BUILD_GUI=OFF \
  -DGCONV_BUILD_TESTS=ON -DGCONV_GPU_PLATFORM=nvidia -DGCONV_DEPS_DIR="$repo/.deps" \
  -DCUDAToolkit_ROOT=/usr/local/cuda -DCMAKE_PREFIX_PATH="$qt_root/usr" \
  -DQt6_DIR:PATH="$qt_lib/cmake/Qt6" >"$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; die "configure failed (configure.log)"; }
grep -E "gconv: (NVIDIA|GUI)" "$out/configure.log"
for m in Qt6Core Qt6Test; do
  grep -q "^${m}_DIR:PATH=$qt_lib/cmake/$m\$" "$build/CMakeCache.txt" || die "$m was not taken from the bundle"
done

suites=()
for f in tests/gpu/tst_*.cpp; do suites+=("$(basename "$f" .cpp)"); done
targets=("${suites[@]}" tst_kernel_compile gconv-worker gconv-bench gconv-fake-worker gconv-sweep-driver)
# shellcheck disable=SC2206 # a list of target names, split on blanks
[ -n "${GCONV_TEST_TARGETS:-}" ] && targets=(${GCONV_TEST_TARGETS})
# -k 0: a suite that does not compile must not keep the others from running.
build_rc=0
cmake --build "$build" -j "$jobs" --target "${targets[@]}" -- -k 0 >"$out/build.log" 2>&1 || build_rc=$?
if [ "$build_rc" != 0 ]; then
  grep -E "error|FAILED" "$out/build.log" | head -40
  echo "gpu_tests.sh: the build failed (build.log); running what was built" >&2
fi
echo "configure + build: $(( $(date +%s) - t0 )) s (${#targets[@]} targets, -j $jobs)"
[ -x "$build/tests/tst_runtime" ] && ldd "$build/tests/tst_runtime" | grep -E "Qt6|icu" | sed 's/^/  /'
[ "$build_only" = 1 ] && exit "$build_rc"

command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
t1=$(date +%s)
# The whole call has a limit: stop ctest before it, keeping the log of what ran.
timeout --signal=TERM "${GCONV_CTEST_SECONDS:-270}" \
  ctest --test-dir "$build" -R "$regex" --output-on-failure -j "${GCONV_CTEST_JOBS:-6}" 2>&1 |
  tee "$out/ctest.log"
rc=${PIPESTATUS[0]}
cp "$build/Testing/Temporary/LastTest.log" "$out/ctest-full.log" 2>/dev/null
echo "ctest: $(( $(date +%s) - t1 )) s, exit $rc$([ "$rc" = 124 ] && echo ' (stopped at the time limit)')"
[ "$rc" = 0 ] && rc=$build_rc
exit "$rc"
