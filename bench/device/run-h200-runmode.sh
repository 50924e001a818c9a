#!/usr/bin/env bash
# The run mode on a 2-GPU NVIDIA node: builds sdma-probe with the cuda backend and the
# CUPTI injection library, builds examples/fused-a2a-cuda, runs it under
# `sdma-probe run --backend cuda` (without device-span records, the shape of the fixture; then
# again with them, into runmode-fused-a2a-spans.ndjson, checked by summarize_spans.py), then
# checks a cancel ends the program's process group.
# NDJSON, the program's output and the machine facts land in $OUT (default
# bench/results/runmode-local); test/fixtures/runmode/ keeps a copy of the first NDJSON.
# Usage: bench/device/run-h200-runmode.sh      (from the repository root)
set -uo pipefail
. "$(dirname "$0")/lib.sh"  # also NVLink multicast off, which the program under test inherits
results_in runmode-local
BUILD=${BUILD:-/tmp/sdma-probe-runmode-build}

step "machine facts"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv
  nvcc --version | tail -2
  ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so* /usr/local/cuda/lib64/libcupti.so* 2>/dev/null
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

step "build sdma-probe (cuda) + libsdma_lens_cupti.so"
cuda_build "$BUILD" "$BUILD." -DSDMA_PROBE_WITH_CUPTI=ON -DSDMA_PROBE_BUILD_TESTS=OFF -- --target sdma-probe sdma_lens_cupti \
  || exit 1
P=$BUILD/sdma-probe
"$P" --version

step "build examples/fused-a2a-cuda"
nvcc -O2 -arch=sm_90 -I"$ROOT/native/include" "$ROOT/examples/fused-a2a-cuda/fused_a2a.cu" -o "$BUILD/fused_a2a" || exit 1

nvcc -O2 -arch=sm_90 -DSDMA_LENS_TRACE_OFF -I"$ROOT/native/include" "$ROOT/examples/fused-a2a-cuda/fused_a2a.cu" \
  -o "$BUILD/fused_a2a_trace_off" || exit 1

step "the example on its own: trace inactive, then compiled out"
( time "$BUILD/fused_a2a" 8 5 ) 2>&1
( time "$BUILD/fused_a2a_trace_off" 8 5 ) 2>&1

step "sdma-probe run --backend cuda --span-records 0 -- fused_a2a 8 5"
( cd "$BUILD" && timeout 120 "$P" run --backend cuda --span-records 0 -- ./fused_a2a 8 5 ) > "$OUT/runmode-fused-a2a.ndjson" 2> "$OUT/runmode-fused-a2a.stderr"
echo "exit $?"
cat "$OUT/runmode-fused-a2a.stderr"
grep -o '"type":"[a-z]*"' "$OUT/runmode-fused-a2a.ndjson" | sort | uniq -c
report "$OUT/runmode-fused-a2a.ndjson" 'program|warning|error|done'
grep '"type":"dispatch"' "$OUT/runmode-fused-a2a.ndjson" | head -3
grep '"type":"copy"' "$OUT/runmode-fused-a2a.ndjson" | head -6

step "sdma-probe run --backend cuda --span-records 200000 -- fused_a2a 8 5: which SMs, when"
( cd "$BUILD" && timeout 120 "$P" run --backend cuda --span-records 200000 -- ./fused_a2a 8 5 ) \
  > "$OUT/runmode-fused-a2a-spans.ndjson" 2> "$OUT/runmode-fused-a2a-spans.stderr"
echo "exit $?"
grep -o '"type":"[a-z-]*"' "$OUT/runmode-fused-a2a-spans.ndjson" | sort | uniq -c
grep '"type":"device-span"' "$OUT/runmode-fused-a2a-spans.ndjson" | head -4
python3 "$ROOT/bench/device/summarize_spans.py" "$OUT/runmode-fused-a2a-spans.ndjson"
echo "summarize_spans exit $?"

step "the same with --span-records 100: the first 100 in time order and a device-spans-capped warning"
( cd "$BUILD" && timeout 120 "$P" run --backend cuda --span-records 100 -- ./fused_a2a 8 5 ) \
  > "$OUT/runmode-fused-a2a-spans-capped.ndjson" 2>/dev/null
count "$OUT/runmode-fused-a2a-spans-capped.ndjson" device-span
grep '"code":"device-spans-capped"' "$OUT/runmode-fused-a2a-spans-capped.ndjson"

step "cancel: SIGTERM to sdma-probe ends the program's process group"
"$P" run --backend cuda -- /bin/sh -c 'sleep 60 & sleep 60; echo not-reached' > "$OUT/runmode-cancel.ndjson" 2>/dev/null &
HELPER=$!
sleep 2
kill -TERM "$HELPER"
wait "$HELPER"
echo "exit $? (143 expected)"
report "$OUT/runmode-cancel.ndjson" 'program|done'
pgrep -f "sleep 60" && echo "LEFT OVER: sleep 60" || echo "no process left behind"
