#!/usr/bin/env bash
# The GPU x GPU bandwidth matrix on every GPU of the node (2 or 8), beside the collectives:
#   matrix      sdma-probe matrix: the four paths at 256 MiB, each ordered pair alone
#   concurrent  sdma-probe matrix --concurrent: cu/host and engine/host, every pair at once
#   collective  AllGather/AlltoAll per variant (default, ce) on all GPUs, data checked
#   reference   the same calls through torch.distributed (torchrun, one rank per GPU)
# then one table: per path min/median/max and the weakest pair; all pairs at once: the
# aggregate beside the sum of the pairs measured alone, per-pair and per-GPU send/receive
# GB/s; per collective the helper's busbw beside torch's. Never touches clocks or power limits.
# Results in $OUT (default bench/results/local-matrix), at most 8 files, no sub-folders:
#   log.txt  machine.txt  matrix.ndjson  matrix-concurrent.ndjson  collective.ndjson  torch.json
#   summary.md  summary.json
# Usage: bench/device/run-h200-matrix.sh   (from the repository root)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/bench/results/local-matrix}
mkdir -p "$OUT"
WORK=${WORK:-/tmp/sdma-matrix}
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
# NVLink multicast stays off on these nodes.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
SIZE=${SIZE:-256M}
NGPUS=${NGPUS:-$(nvidia-smi -L | wc -l)}

step() { echo "== $(date -u +%H:%M:%S) $*"; }

step "machine facts ($NGPUS GPUs)"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -r)"
  echo "cpus: $(nproc)"
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
  nvidia-smi topo -m
  nvidia-smi nvlink --status | head -40
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())" 2>&1
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
if [ "$NGPUS" -lt 2 ]; then echo "this node has $NGPUS GPU(s); a matrix needs two or more"; exit 1; fi

# torch's NCCL (pip): the helper loads the same library file the reference uses.
NCCL_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
NCCL_LIB=$(ls "$NCCL_DIR"/libnccl.so.2 2>/dev/null || true)
echo "nccl for both: ${NCCL_LIB:-system default}"

step "build (CUDA, sm_90)"
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
t0=$(date +%s)
{ cmake -S "$ROOT/native" -B "$WORK/build" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DSDMA_PROBE_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DSDMA_PROBE_BUILD_TESTS=OFF > "$WORK/cmake.txt" 2>&1 &&
  cmake --build "$WORK/build" -j > "$WORK/build.txt" 2>&1; } || { tail -40 "$WORK/cmake.txt" "$WORK/build.txt"; exit 1; }
echo "build seconds: $(( $(date +%s) - t0 ))"
P=$WORK/build/sdma-probe
"$P" --version
NCCL_ARG=(); [ -n "$NCCL_LIB" ] && NCCL_ARG=(--nccl-lib "$NCCL_LIB")

# N x (N-1) pairs x 4 paths, each cell 3 warm-up + 20 timed iterations of 4+ copies of 256 MiB:
# about 0.1 s a cell on NVLink, 30 s for 8 GPUs.
step "matrix: four paths, $SIZE, all $NGPUS GPUs, each ordered pair alone"
timeout 420 "$P" matrix --backend cuda --size "$SIZE" --paths all > "$OUT/matrix.ndjson"
echo "exit $?, $(grep -c '"type":"matrix-cell"' "$OUT/matrix.ndjson") cells"
grep -E '"type":"(error|warning)"' "$OUT/matrix.ndjson"

# All pairs of a path at once (docs/MATRIX.md): each GPU holds 2 (N-1) buffer regions of about
# twice the size; the device-initiated paths are not run at once (they would answer unsupported).
step "matrix --concurrent: cu/host and engine/host, $SIZE, all $NGPUS GPUs, every pair at once"
timeout 300 "$P" matrix --backend cuda --size "$SIZE" --paths cu/host,engine/host --concurrent > "$OUT/matrix-concurrent.ndjson"
echo "exit $?, $(grep -c '"type":"matrix-cell"' "$OUT/matrix-concurrent.ndjson") cells, $(grep -c '"type":"matrix-total"' "$OUT/matrix-concurrent.ndjson") totals"
grep -E '"type":"(error|warning|matrix-total)"' "$OUT/matrix-concurrent.ndjson"

step "collectives: AllGather and AlltoAll, variants default and ce, 1M..$SIZE x16, all GPUs"
timeout 300 "$P" collective --backend cuda -b 1M -e "$SIZE" -f 16 -n 20 -w 5 "${NCCL_ARG[@]}" > "$OUT/collective.ndjson"
echo "exit $?, $(grep -c '"type":"collective"' "$OUT/collective.ndjson") points"
grep -E '"type":"(error|warning|collective-variant)"' "$OUT/collective.ndjson"

step "reference: torch.distributed (torchrun, $NGPUS ranks)"
REF_SIZES=$(python3 -c "
e=int('$SIZE'[:-1])*{'K':1<<10,'M':1<<20,'G':1<<30}['$SIZE'[-1]]
s=[];v=1<<20
while v<=e: s.append(str(v)); v*=16
print(','.join(s))")
timeout 240 torchrun --standalone --nproc_per_node="$NGPUS" "$ROOT/bench/device/torch_collectives.py" --sizes "$REF_SIZES" \
  --iters 20 --warmup 5 > "$OUT/torch.json" 2> "$WORK/torch.stderr"
echo "exit $?"; tail -3 "$WORK/torch.stderr"

step "summary"
python3 "$ROOT/bench/device/summarize_matrix.py" "$OUT"
ls -la "$OUT"
