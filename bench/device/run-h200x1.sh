#!/usr/bin/env bash
# One-GPU H200 benchmark in one call: machine facts, a user's build of sdma-probe (CMake,
# default CUDA architectures), `info`, the default one-GPU sweep (no endpoint flags: it must
# choose host->GPU, GPU->host and GPU-local by itself), the full endpoint sweep
# (--pairs host:0,0:host,0:0, every path, 4 KiB..1 GiB, 1..132 SMs), the corrupt-after fault on
# every pair and path, and the plain cudaMemcpyAsync / SM-copy reference
# (reference_host_copy.cu) before and after the sweeps, all in the same run. Then
# summarize_h200x1.py sets each figure beside its reference (summary.md, summary.json).
#
# Finishes in under 8 minutes: every step has a time limit taken from what is left of the
# budget; a step that fails is logged (exit code, error record) and the later steps still run,
# except after a failed build or a failed `info`, where the helper steps stop and the summary is
# written from what there is. Clocks and power limits are never touched.
#
# Usage (from the repository root): bench/device/run-h200x1.sh
#   OUT    results folder (default bench/results/local-h200x1); what lands there:
#          summary.md summary.json log.txt machine.txt info.ndjson sweep-default.ndjson
#          sweep-full.ndjson raw.tar.gz (every other file: faults, stderr, build logs, reference)
#   BUILD  build folder (default /tmp/sdma-probe-h200x1-build)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
results_in local-h200x1
RAW=$OUT/raw
BUILD=${BUILD:-/tmp/sdma-probe-h200x1-build}
mkdir -p "$RAW"
# NVLink multicast stays off on these nodes (lib.sh), also for torch's symmetric memory.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1

BUDGET_S=${BUDGET_S:-465}  # the whole script, summary included, stays under 8 minutes
T0=$SECONDS
left() { echo $(( BUDGET_S - (SECONDS - T0) )); }
step() { echo "== $(date -u +%H:%M:%S) +$((SECONDS - T0))s $*"; }  # lib.sh's step, with the seconds since the start
failed_steps=()
fail() { failed_steps+=("$1"); echo "FAILED: $1"; echo "$1" >> "$RAW/failed-steps.txt"; }
: > "$RAW/failed-steps.txt"

finish() {
  step "summary"
  if ! timeout 60 python3 "$ROOT/bench/device/summarize_h200x1.py" "$RAW" "$OUT"; then
    fail "summary"
    { echo "# 1x H200: summary could not be written"; echo; echo "See log.txt and raw.tar.gz."; } > "$OUT/summary.md"
  fi
  for f in info sweep-default sweep-full; do [ -f "$RAW/$f.ndjson" ] && cp "$RAW/$f.ndjson" "$OUT/"; done
  cp "$RAW/machine.txt" "$OUT/machine.txt" 2>/dev/null
  tar -C "$OUT" -czf "$OUT/raw.tar.gz" raw && rm -rf "$RAW"
  echo "total seconds: $((SECONDS - T0)); failed steps: ${failed_steps[*]:-none}"
  ls -la "$OUT"
  exit "${1:-0}"
}

# timed NAME LIMIT CMD...: runs CMD with at most LIMIT seconds (less when the budget is short);
# stdout to raw/NAME.out unless the caller redirects. Returns CMD's exit code (124: timed out).
timed() {
  local name=$1 limit=$2; shift 2
  local rest; rest=$(( $(left) - 45 ))  # the summary and the tarball keep 45 s
  if [ "$rest" -lt 10 ]; then
    echo "SKIPPED $name: the time budget is spent"; echo "$name skipped (time budget)" >> "$RAW/failed-steps.txt"
    return 125
  fi
  [ "$limit" -gt "$rest" ] && limit=$rest
  timeout --kill-after=5 "$limit" "$@"
}

step "machine facts"
{
  host_facts
  timeout 20 nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv
  timeout 10 nvcc --version | tail -2
  cmake --version | head -1
} > "$RAW/machine.txt" 2>&1
timeout 30 nvidia-smi -q > "$RAW/nvidia-smi-q.txt" 2>&1
timeout 10 nvidia-smi topo -m > "$RAW/topo.txt" 2>&1
timeout 10 lscpu > "$RAW/lscpu.txt" 2>&1
if command -v numactl > /dev/null; then timeout 10 numactl -H > "$RAW/numactl.txt" 2>&1; else echo "numactl: not installed" > "$RAW/numactl.txt"; fi
{
  echo "# host NUMA nodes (sysfs): $(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)"
  for bus in $(timeout 10 nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null); do
    # nvidia-smi prints 00000000:BB:DD.F; sysfs names it 0000:bb:dd.f
    dev=/sys/bus/pci/devices/$(echo "${bus#????}" | tr 'A-F' 'a-f')
    echo "gpu $bus -> $dev"
    for f in numa_node current_link_speed current_link_width max_link_speed max_link_width; do
      echo "  $f: $(cat "$dev/$f" 2>/dev/null || echo unavailable)"
    done
  done
} > "$RAW/pcie-link.txt" 2>&1
cat "$RAW/machine.txt" "$RAW/pcie-link.txt"

# pip-installed NCCL / NVSHMEM (the ones torch uses) so `info` can report them too.
PYLIBS=$(pip_nvidia_libs)
[ -n "$PYLIBS" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PYLIBS"

step "build (CMake defaults: the CUDA architectures the toolkit supports of sm_80, sm_90, sm_100)"
GEN=(); command -v ninja > /dev/null && GEN=(-G Ninja)
tb=$SECONDS
if ! timed cmake 120 cmake -S "$ROOT/native" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DSDMA_PROBE_WITH_CUDA=ON > "$RAW/cmake.txt" 2>&1; then
  tail -30 "$RAW/cmake.txt"; fail "cmake configure"; finish 1
fi
grep -E "CUDA architectures|sdma-probe backends" "$RAW/cmake.txt"
if ! timed build 300 cmake --build "$BUILD" -j "$(nproc)" > "$RAW/build.txt" 2>&1; then
  tail -40 "$RAW/build.txt"; fail "build"; finish 1
fi
echo "build seconds: $((SECONDS - tb))" | tee -a "$RAW/machine.txt"
P=$BUILD/sdma-probe
"$P" --version | tee -a "$RAW/machine.txt"
REF=$BUILD/reference_host_copy
if ! timed reference-build 90 nvcc -O2 -arch=sm_90 "$ROOT/bench/device/reference_host_copy.cu" -o "$REF" \
     > "$RAW/reference-build.txt" 2>&1; then
  cat "$RAW/reference-build.txt"; fail "reference build"
fi

reference() {  # reference NAME
  [ -x "$REF" ] || return 0
  step "reference $1: cudaMemcpyAsync H2D/D2H/local and the SM copy through mapped host memory"
  if timed "$1" 60 "$REF" 10 32,132 > "$RAW/$1.csv" 2> "$RAW/$1.stderr"; then
    cat "$RAW/$1.csv"
  else
    cat "$RAW/$1.stderr"; fail "$1"
  fi
}

probe() {  # probe NAME LIMIT ARGS...: NDJSON to raw/NAME.ndjson, exit code to raw/NAME.rc
  local name=$1 limit=$2; shift 2
  step "$name: sdma-probe $*"
  timed "$name" "$limit" "$P" "$@" > "$RAW/$name.ndjson" 2> "$RAW/$name.stderr"
  local rc=$?
  echo "$rc" > "$RAW/$name.rc"
  echo "   exit $rc, $(count "$RAW/$name.ndjson" sample) samples, $(count "$RAW/$name.ndjson" path-unsupported) path-unsupported"
  report "$RAW/$name.ndjson" 'error|warning' | head -3
  return $rc
}

reference reference-before

if ! probe info 60 info --backend cuda; then
  fail "info"; reference reference-after; finish 1
fi
grep '"type":"topology"' "$RAW/info.ndjson" | head -c 3000; echo

# A user's first sweep on one GPU: no endpoint flags (the helper picks the pairs); fewer
# iterations than the default so the run fits the budget.
probe sweep-default 150 sweep --backend cuda --iters 5 --warmup 1 || fail "sweep-default (exit $?)"

SIZES=4K,16K,64K,256K,1M,4M,16M,64M,256M,1G
SMS=1,2,4,8,16,32,64,96,128,132
probe sweep-full 200 sweep --backend cuda --pairs host:0,0:host,0:0 --paths all --sizes $SIZES --cus $SMS \
  --iters 5 --warmup 1 || fail "sweep-full (exit $?)"

# The check must catch one damaged destination byte on every pair and path (exit 4, error
# code validation); engine/device has no host or GPU-local form (path-unsupported, no sample).
for pair in host:0 0:host 0:0; do
  for path in cu/host cu/device engine/host engine/device; do
    name="fault-${pair/:/-}-${path//\//-}"
    probe "$name" 30 sweep --backend cuda --pairs "$pair" --paths "$path" --sizes 1M --cus 8 --iters 2 --warmup 1 \
      --fault corrupt-after=0
  done
done

reference reference-after
finish 0
