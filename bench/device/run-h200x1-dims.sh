#!/usr/bin/env bash
# One-GPU H200 call for the seed's dimensions (docs/SEED-EXPERIMENTS.md): a user's build of
# sdma-probe (CMake, sm_90) beside nvbandwidth and TransferBench, built here from their public
# sources, in one call:
#   - warps per SM (1, 2, 4, 8, 16, 32) at 1, 8 and 132 SMs, host->GPU and GPU-local, beside the
#     copy engine in the same sweep and TransferBench's GFX executor at the same block size
#     (GFX_BLOCK_SIZE, a multiple of 64: 2 warps and up);
#   - one copy split over 1..8 streams (host->GPU, GPU->host, GPU-local) beside TransferBench's
#     DMA executor with as many streams (subexecutors);
#   - batched copies (cudaMemcpyBatchAsync of 1, 4, 16 and 64 pieces) against single copies of
#     the same sizes in the same sweep, beside nvbandwidth's copy-engine testcases.
# summarize_dims.py sets each figure beside its same-run reference (summary.md, summary.json).
#
# The peers' sources are not part of this repository: PEERS (default bench/peers, git-ignored)
# holds nvbandwidth/ and TransferBench/ as fetched from github.com/NVIDIA/nvbandwidth and
# github.com/ROCm/TransferBench, VERSIONS (their commits), and optionally debs/ (Debian's Boost
# program_options and libnuma packages, unpacked here when the machine has none). A peer that
# does not build is logged and left out.
#
# Usage (repository root): OUT=DIR bash bench/device/run-h200x1-dims.sh
# STEPS (default "warps streams batch") runs only the named measurement steps.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
results_in local-h200x1-dims
RAW=$OUT/raw
BUILD=${BUILD:-/tmp/sdma-probe-dims-build}
PEERS=${PEERS:-$ROOT/bench/peers}
PB=${PB:-/tmp/sdma-peers-build}
mkdir -p "$RAW" "$PB"
BUDGET_S=${BUDGET_S:-540}
T0=$SECONDS
left() { echo $((BUDGET_S - (SECONDS - T0))); }
step() { echo "== $(date -u +%H:%M:%S) +$((SECONDS - T0))s $*"; }
: > "$RAW/failed-steps.txt"
fail() { echo "FAILED: $1"; echo "$1" >> "$RAW/failed-steps.txt"; }
timed() {  # timed NAME LIMIT CMD...
  local name=$1 limit=$2; shift 2
  local rest=$(($(left) - 40))
  if [ "$rest" -lt 10 ]; then echo "SKIPPED $name (time budget)"; echo "$name skipped" >> "$RAW/failed-steps.txt"; return 125; fi
  [ "$limit" -gt "$rest" ] && limit=$rest
  timeout --kill-after=5 "$limit" "$@"
}
finish() {
  step "summary"
  timeout 60 python3 "$ROOT/bench/device/summarize_dims.py" "$RAW" "$OUT" || fail "summary"
  cp "$RAW"/machine.txt "$RAW"/failed-steps.txt "$OUT/" 2>/dev/null
  for f in warps streams batch; do [ -f "$RAW/$f.ndjson" ] && cp "$RAW/$f.ndjson" "$OUT/"; done
  tar -C "$OUT" -czf "$OUT/raw.tar.gz" raw && rm -rf "$RAW"
  echo "total seconds: $((SECONDS - T0)); failed steps: $(tr "\n" " " < "$OUT/failed-steps.txt" 2>/dev/null)"
  ls -la "$OUT"
  exit "${1:-0}"
}

step "machine facts"
{
  host_facts
  grep -E '^(PRETTY_NAME|VERSION_ID)=' /etc/os-release
  timeout 20 nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total --format=csv
  timeout 10 nvcc --version | tail -2
  echo "nvml.h: $(ls /usr/local/cuda/include/nvml.h /usr/include/nvml.h 2>/dev/null | head -1)"
  echo "numa.h: $(ls /usr/include/numa.h 2>/dev/null)"
  echo "boost program_options: $(ls /usr/include/boost/program_options.hpp 2>/dev/null)"
  echo "cupti: $(ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so* /usr/local/cuda/lib64/libcupti.so* 2>/dev/null | tr '\n' ' ')"
  cat "$PEERS/VERSIONS" 2>/dev/null
} > "$RAW/machine.txt" 2>&1
cat "$RAW/machine.txt"

step "build sdma-probe"
if ! cuda_build "$BUILD" "$RAW/helper-" -- -j "$(nproc)"; then fail "build"; finish 1; fi
P=$BUILD/sdma-probe
"$P" --version | tee -a "$RAW/machine.txt"
readelf -d "$BUILD"/libsdma_lens_cupti.so 2>/dev/null | grep -E 'NEEDED|RPATH|RUNPATH' > "$RAW/cupti-readelf.txt"
readelf -d "$P" | grep -E 'NEEDED|RPATH|RUNPATH' >> "$RAW/cupti-readelf.txt"
cat "$RAW/cupti-readelf.txt"

step "build the peers"
SYSROOT=$PB/sysroot
mkdir -p "$SYSROOT"
for deb in "$PEERS"/debs/*.deb; do [ -f "$deb" ] && dpkg -x "$deb" "$SYSROOT"; done
BOOST_ARGS=()
# Boost's headers alone are not enough: nvbandwidth links program_options.
if ! ls /usr/lib/x86_64-linux-gnu/cmake/boost_program_options-* > /dev/null 2>&1; then
  BOOST_ARGS=(-DBoost_DIR="$SYSROOT/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0")
fi
NVB=""
if timed nvb-cmake 60 cmake -S "$PEERS/nvbandwidth" -B "$PB/nvb" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
     "${BOOST_ARGS[@]}" > "$RAW/nvbandwidth-cmake.txt" 2>&1 &&
   timed nvb-build 180 cmake --build "$PB/nvb" -j "$(nproc)" > "$RAW/nvbandwidth-build.txt" 2>&1; then
  NVB=$PB/nvb/nvbandwidth
else
  tail -20 "$RAW/nvbandwidth-build.txt" "$RAW/nvbandwidth-cmake.txt" 2>/dev/null; fail "nvbandwidth build"
fi
TB=""
NUMA_FLAGS=()
[ -f /usr/include/numa.h ] || NUMA_FLAGS=(-I"$SYSROOT/usr/include" -L"$SYSROOT/usr/lib/x86_64-linux-gnu")
if timed tb-build 180 nvcc -O3 -I"$PEERS/TransferBench/src/include" "${NUMA_FLAGS[@]}" -x cu -arch=sm_90 \
     "$PEERS/TransferBench/src/TransferBench.cpp" -o "$PB/TransferBenchCuda" -lnuma -lpthread \
     > "$RAW/transferbench-build.txt" 2>&1; then
  TB=$PB/TransferBenchCuda
else
  tail -20 "$RAW/transferbench-build.txt"; fail "TransferBench build"
fi
export LD_LIBRARY_PATH="$SYSROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

probe() {  # probe NAME LIMIT ARGS...
  local name=$1 limit=$2; shift 2
  step "$name: sdma-probe $*"
  timed "$name" "$limit" "$P" "$@" > "$RAW/$name.ndjson" 2> "$RAW/$name.stderr"
  local rc=$?
  echo "$rc" > "$RAW/$name.rc"
  echo "   exit $rc, $(grep -c '"type":"sample"' "$RAW/$name.ndjson") samples"
  grep -E '"type":"(error|warning)"' "$RAW/$name.ndjson" | head -3
  return $rc
}
nvb() {  # nvb NAME: the five testcases, JSON
  [ -n "$NVB" ] || return 0
  step "$1: nvbandwidth"
  timed "$1" 120 "$NVB" -j -t host_to_device_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_ce \
    device_local_copy > "$RAW/$1.json" 2> "$RAW/$1.stderr" || fail "$1"
}
tb() {  # tb NAME SIZE LINE...: one TransferBench call of these transfers, CSV (env passes through)
  [ -n "$TB" ] || return 0
  local name=$1 size=$2; shift 2
  step "$name: TransferBench $size ${GFX_BLOCK_SIZE:+GFX_BLOCK_SIZE=$GFX_BLOCK_SIZE}"
  printf '%s\n' "$@" > "$RAW/$name.cfg"
  OUTPUT_TO_CSV=1 timed "$name" 120 "$TB" "$RAW/$name.cfg" "$size" > "$RAW/$name.csv" 2> "$RAW/$name.stderr" || fail "$name"
}

STEPS=${STEPS:-warps streams batch}
want() { [[ " $STEPS " == *" $1 "* ]]; }

# Warps per SM against the copy engine, host->GPU and GPU-local (the seed's "one wave" question,
# asked of an H200's SMs and copy engine).
want warps && probe warps 200 sweep --backend cuda --pairs host:0,0:0 --paths cu/host,engine/host --sizes 256K,4M,64M,256M \
  --cus 1,8,132 --waves-per-cu 1,2,4,8,16,32 --iters 5 --warmup 1 || fail warps
want warps && for bs in 64 128 256 512; do  # TransferBench takes at most 512
  GFX_BLOCK_SIZE=$bs tb "tb-gfx-$bs" 64M "1 1 (C0->G0->G0)" "1 8 (C0->G0->G0)" "1 132 (C0->G0->G0)" \
    "1 1 (G0->G0->G0)" "1 8 (G0->G0->G0)" "1 132 (G0->G0->G0)"
done

# One copy over 1..8 streams.
want streams && probe streams 120 sweep --backend cuda --pairs host:0,0:host,0:0 --paths engine/host --sizes 1M,16M,256M \
  --engines 1,2,3,4,6,8 --iters 10 --warmup 2 || fail streams
want streams && tb tb-dma 256M "1 1 (C0->D0->G0)" "1 2 (C0->D0->G0)" "1 4 (C0->D0->G0)" "1 8 (C0->D0->G0)" \
  "1 1 (G0->D0->C0)" "1 2 (G0->D0->C0)" "1 4 (G0->D0->C0)" "1 8 (G0->D0->C0)" \
  "1 1 (G0->D0->G0)" "1 2 (G0->D0->G0)" "1 4 (G0->D0->G0)" "1 8 (G0->D0->G0)"

# Batched against single copies, same sweep.
want batch && probe batch 120 sweep --backend cuda --pairs host:0,0:host,0:0 --paths engine/host --sizes 64K,1M,16M,256M \
  --batch 0,1,4,16,64 --iters 10 --warmup 2 || fail batch
nvb nvbandwidth
finish 0
