#!/usr/bin/env bash
# Builds sdma-probe with the cuda backend and runs the whole comparison on a 2-GPU node in
# one go: info, the four paths over the sizes, the SM scaling curve, tracing overhead, the
# plain cudaMemcpyPeerAsync reference, validation fault runs and the error cases.
# Raw NDJSON/CSV and the machine facts land in $OUT (default bench/results/local).
# Usage: bench/device/run-h200.sh            (from the repository root)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
results_in local
RAW=$OUT/raw
mkdir -p "$RAW"
BUILD=${BUILD:-/tmp/sdma-probe-build}

step "machine facts"
{
  host_facts
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} > "$RAW/machine.txt" 2>&1
nvidia-smi topo -m > "$RAW/topo.txt" 2>&1
nvidia-smi nvlink --status > "$RAW/nvlink.txt" 2>&1
nvidia-smi -q | grep -E -A0 "Product Name|Driver Version|CUDA Version|Bus Id|Max Clocks|Graphics|Memory +:|Power Limit|Persistence Mode|Compute Mode|MIG Mode|Current +:" > "$RAW/smi-q-excerpt.txt" 2>&1
cat "$RAW/machine.txt" "$RAW/topo.txt"

# pip-installed NCCL / NVSHMEM (the ones torch uses) so `info` can report them too.
PYLIBS=$(pip_nvidia_libs)
[ -n "$PYLIBS" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PYLIBS"

step "build (CUDA, sm_90)"
cuda_build "$BUILD" "$RAW/" || exit 1
ctest --test-dir "$BUILD" 2>&1 | tail -3
nvcc -O2 -arch=sm_90 "$ROOT/bench/device/reference_peer_copy.cu" -o "$BUILD/reference_peer_copy" || exit 1
P=$BUILD/sdma-probe
"$P" --version

probe() {  # probe NAME ARGS...: NDJSON to raw/NAME.ndjson, exit code to raw/NAME.rc
  local name=$1; shift
  step "$name: sdma-probe $*"
  timeout 150 "$P" "$@" > "$RAW/$name.ndjson" 2> "$RAW/$name.stderr"
  local rc=$?
  echo "$rc" > "$RAW/$name.rc"
  echo "   exit $rc, $(count "$RAW/$name.ndjson" sample) samples"
  grep '"type":"error"' "$RAW/$name.ndjson" | head -2
}

probe info info --backend cuda
SIZES=4K,64K,1M,16M,64M,256M,1G
probe sweep sweep --backend cuda --paths all --sizes $SIZES --cus 1,132 --mode both --iters 20 --warmup 3 --target-ms 20
probe scaling sweep --backend cuda --paths cu/host --sizes 1G --cus 1,2,4,8,16,32,64,96,128,132 --iters 10 --warmup 2 --trace
probe blocks-per-cu sweep --backend cuda --paths cu/host --sizes 1G --cus 8,16 --blocks-per-cu 2 --iters 10 --trace
probe device-small sweep --backend cuda --paths cu/device,engine/device --sizes 4K,64K --cus 1 --mode one-shot --iters 200 --warmup 20
# Where the 132-SM device-initiated copy loses time: per-block spans of one iteration.
probe cu-device-trace sweep --backend cuda --paths cu/device --sizes 4K --cus 132 --iters 5 --trace \
  --timeline-size 4K --timeline-cus 132
# Tracing overhead: the same copy with tracing off and on, alternated so drift hits both.
for k in 1 2 3; do
  probe trace-off-$k sweep --backend cuda --paths cu/host --sizes 256M --cus 132 --iters 50 --warmup 5
  probe trace-on-$k sweep --backend cuda --paths cu/host --sizes 256M --cus 132 --iters 50 --warmup 5 --trace
done
probe timeline sweep --backend cuda --paths all --sizes 1M --cus 16 --iters 3 --timeline-size 16M --timeline-cus 16 \
  --timeline-out "$RAW/timeline-16M.sdmatl"
# Validation must catch a damaged byte on every path (exit 4, error code validation).
for path in cu/host cu/device engine/host engine/device; do
  probe "fault-${path//\//-}" sweep --backend cuda --paths $path --sizes 1M --cus 8 --iters 3 --fault corrupt-after=0
done
# The errors users hit.
# Under the card's total (so the argument check passes) but over what is free.
probe err-oom sweep --backend cuda --paths engine/host --sizes 150000000000 --iters 1 --warmup 0
probe err-engine-id sweep --backend cuda --paths engine/host --sizes 1M --engine 1 --iters 2
CUDA_VISIBLE_DEVICES=0 probe err-one-gpu sweep --backend cuda --sizes 4K --cus 1
CUDA_VISIBLE_DEVICES= probe err-no-gpu info --backend cuda
CUDA_VISIBLE_DEVICES= probe auto-no-gpu sweep --sizes 4K --cus 1 --iters 2

step "reference: plain cudaMemcpyPeerAsync loop"
"$BUILD/reference_peer_copy" 20 | tee "$RAW/reference.csv"

step "summary"
python3 "$ROOT/bench/device/summarize.py" "$RAW" "$OUT"
tar -C "$OUT" -czf "$OUT/raw.tar.gz" raw && rm -rf "$RAW"
ls -la "$OUT"
