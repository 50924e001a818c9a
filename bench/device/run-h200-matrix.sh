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
. "$(dirname "$0")/lib.sh"
results_in local-matrix
fresh_work /tmp/sdma-matrix
SIZE=${SIZE:-256M}
NGPUS=${NGPUS:-$(nvidia-smi -L | wc -l)}

step "machine facts ($NGPUS GPUs)"
{
  host_facts
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
  nvidia-smi topo -m
  nvidia-smi nvlink --status | head -40
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())" 2>&1
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
if [ "$NGPUS" -lt 2 ]; then echo "this node has $NGPUS GPU(s); a matrix needs two or more"; exit 1; fi

nccl_wheel

step "build (CUDA, sm_90)"
cuda_build "$WORK/build" "$WORK/" -DSDMA_PROBE_BUILD_TESTS=OFF || exit 1
P=$WORK/build/sdma-probe
"$P" --version

# N x (N-1) pairs x 4 paths, each cell 3 warm-up + 20 timed iterations of 4+ copies of 256 MiB:
# about 0.1 s a cell on NVLink, 30 s for 8 GPUs.
step "matrix: four paths, $SIZE, all $NGPUS GPUs, each ordered pair alone"
timeout 420 "$P" matrix --backend cuda --size "$SIZE" --paths all > "$OUT/matrix.ndjson"
echo "exit $?, $(count "$OUT/matrix.ndjson" matrix-cell) cells"
report "$OUT/matrix.ndjson" 'error|warning'

# All pairs of a path at once (docs/MATRIX.md): each GPU holds 2 (N-1) buffer regions of about
# twice the size; the device-initiated paths are not run at once (they would answer unsupported).
step "matrix --concurrent: cu/host and engine/host, $SIZE, all $NGPUS GPUs, every pair at once"
timeout 300 "$P" matrix --backend cuda --size "$SIZE" --paths cu/host,engine/host --concurrent > "$OUT/matrix-concurrent.ndjson"
echo "exit $?, $(count "$OUT/matrix-concurrent.ndjson" matrix-cell) cells, $(count "$OUT/matrix-concurrent.ndjson" matrix-total) totals"
report "$OUT/matrix-concurrent.ndjson" 'error|warning|matrix-total'

step "collectives: AllGather and AlltoAll, variants default and ce, 1M..$SIZE x16, all GPUs"
timeout 300 "$P" collective --backend cuda -b 1M -e "$SIZE" -f 16 -n 20 -w 5 "${NCCL_ARG[@]}" > "$OUT/collective.ndjson"
echo "exit $?, $(count "$OUT/collective.ndjson" collective) points"
report "$OUT/collective.ndjson" 'error|warning|collective-variant'

torch_reference 240 "$(size_list 1M "$SIZE" 16)" "$WORK" "$OUT"

step "summary"
python3 "$ROOT/bench/device/summarize_matrix.py" "$OUT"
ls -la "$OUT"
