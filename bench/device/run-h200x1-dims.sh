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
. "$ROOT/bench/device/peers.sh"
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

machine_facts
build_probe "$BUILD" || finish 1
build_peers

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
