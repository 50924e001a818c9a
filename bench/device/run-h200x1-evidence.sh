#!/usr/bin/env bash
# One-GPU H200 call for what moved the bytes: a user's build of sdma-probe (CMake, sm_90) and the
# two peers users measure beside it, built here from their public sources, then interleaved in
# the same call: host->GPU, GPU->host and GPU-local by copy engine and by SMs, each helper sample
# with its mover evidence (the untimed CUPTI pass), beside nvbandwidth (_ce / _sm testcases,
# device_local_copy) and TransferBench's CUDA build (D and G executors); the mislabel fault on
# every pair; the runtime default series (a warning on NVIDIA). summarize_evidence.py sets each
# figure beside both peers (summary.md, summary.json).
#
# The peers' sources are not part of this repository: PEERS (default bench/peers, git-ignored)
# holds nvbandwidth/ and TransferBench/ as fetched from github.com/NVIDIA/nvbandwidth and
# github.com/ROCm/TransferBench, VERSIONS (their commits), and debs/ (Debian's Boost
# program_options and libnuma packages, from `apt-get download`, unpacked here when the machine
# has no Boost of its own). A peer that does not build is logged and left out.
#
# Usage (repository root): OUT=DIR bash bench/device/run-h200x1-evidence.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"
results_in local-h200x1-evidence
RAW=$OUT/raw
BUILD=${BUILD:-/tmp/sdma-probe-evidence-build}
PEERS=${PEERS:-$ROOT/bench/peers}
PB=${PB:-/tmp/sdma-peers-build}
mkdir -p "$RAW" "$PB"
. "$ROOT/bench/device/peers.sh"
finish() {
  step "summary"
  timeout 60 python3 "$ROOT/bench/device/summarize_evidence.py" "$RAW" "$OUT" || fail "summary"
  cp "$RAW"/machine.txt "$RAW"/failed-steps.txt "$OUT/" 2>/dev/null
  [ -f "$RAW/sweep-1.ndjson" ] && cp "$RAW/sweep-1.ndjson" "$OUT/"
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
    device_to_host_memcpy_sm device_local_copy > "$RAW/$1.json" 2> "$RAW/$1.stderr" || fail "$1"
}
tb() {  # tb NAME: DMA and GPU executors at 512 MiB, CSV
  [ -n "$TB" ] || return 0
  step "$1: TransferBench"
  printf '%s\n' "1 1 (C0->D0->G0)" "1 132 (C0->G0->G0)" "1 1 (G0->D0->C0)" "1 132 (G0->G0->C0)" \
    "1 1 (G0->D0->G0)" "1 132 (G0->G0->G0)" > "$RAW/tb.cfg"
  OUTPUT_TO_CSV=1 timed "$1" 120 "$TB" "$RAW/tb.cfg" 512M > "$RAW/$1.csv" 2> "$RAW/$1.stderr" || fail "$1"
}

SIZES=4K,64K,256K,1M,4M,16M,64M,256M,512M
SWEEP=(sweep --backend cuda --pairs host:0,0:host,0:0 --paths engine/host,cu/host --sizes $SIZES --cus 32,132
  --iters 10 --warmup 2)
# Each round: the helper with its evidence pass, the helper without it (does the CUPTI pass
# perturb the timed points?), then the peers.
for round in 1 2; do
  probe "sweep-$round" 150 "${SWEEP[@]}" || fail "sweep-$round"
  SDMA_LENS_MOVER_EVIDENCE=0 probe "sweep-off-$round" 150 "${SWEEP[@]}" || fail "sweep-off-$round"
  nvb "nvbandwidth-$round"
  tb "transferbench-$round"
done

# A CU copy kernel under an engine label must be caught on every pair.
for pair in host:0 0:host 0:0; do
  probe "mislabel-${pair/:/-}" 30 sweep --backend cuda --pairs "$pair" --paths engine/host --sizes 64M --iters 3 \
    --warmup 1 --fault mislabel-after=0
done
probe "runtime-default" 60 sweep --backend cuda --pairs host:0 --paths engine/host --sizes 1M --iters 3 --runtime-default
finish 0
