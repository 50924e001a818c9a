#!/usr/bin/env bash
# First run of AMD engine/device through rocSHMEM (docs/MEASUREMENT.md) on a node with two or
# more AMD GPUs and a rocSHMEM built with USE_SDMA under ROCM_PATH (or SDMA_ROCSHMEM_ROOT).
# Builds the helper with the PE program, then: a sweep of engine/device beside engine/host,
# a traced timeline, and the validation fault (must end with exit 4).
# Usage: bash bench/device/run-amd-rocshmem.sh [OUT_DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-"$ROOT/bench/results/amd-rocshmem-$(date +%F)"}
mkdir -p "$OUT"
cmake -S "$ROOT/native" -B "$ROOT/native/build-amd" -DCMAKE_BUILD_TYPE=Release -DSDMA_PROBE_WITH_HIP=ON \
  -DSDMA_PROBE_WITH_ROCSHMEM=ON -DCMAKE_HIP_ARCHITECTURES="gfx942;gfx950" | tee "$OUT/configure.txt"
cmake --build "$ROOT/native/build-amd" -j
PROBE="$ROOT/native/build-amd/sdma-probe"
"$PROBE" info --backend hip > "$OUT/info.ndjson"
"$PROBE" sweep --backend hip --paths engine/device,engine/host,cu/device --cus 1,8,64 \
  --sizes 4K,64K,1M,16M,256M,1G --mode both --target-ms 200 > "$OUT/sweep.ndjson"
"$PROBE" sweep --backend hip --paths engine/device --sizes 1M --iters 5 --timeline-size 1M \
  --timeline-out "$OUT/timeline.sdmatl" > "$OUT/timeline.ndjson"
set +e
"$PROBE" sweep --backend hip --paths engine/device --sizes 4K,1M --iters 3 --fault corrupt-after=1 > "$OUT/fault.ndjson"
echo "fault run exit $? (expected 4)" | tee "$OUT/fault-exit.txt"
echo "results in $OUT"
