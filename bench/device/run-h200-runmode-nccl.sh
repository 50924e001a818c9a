#!/usr/bin/env bash
# Run mode's library log on a 2-GPU NVIDIA node: builds sdma-probe with the cuda backend and
# the CUPTI injection library, then runs torch.distributed's AllGather and AlltoAll
# (bench/device/torch_collectives.py under torchrun, torch's own NCCL) under
#   sdma-probe run --backend cuda --library-log
# so the `library-calls` records say which path NCCL logged for each call; then once more
# with NCCL_DEBUG=WARN set by the user, which the helper must leave alone (warning
# library-log-user-set, no library-calls).
# Files in $OUT (default bench/results/runmode-nccl-local): machine.txt, log.txt,
# runmode-nccl.ndjson (+ .stderr: the program's own output), runmode-nccl-user-debug.ndjson.
# Usage: bench/device/run-h200-runmode-nccl.sh      (from the repository root)
set -uo pipefail
. "$(dirname "$0")/lib.sh"  # also NVLink multicast off, which the program under test inherits
results_in runmode-nccl-local
BUILD=${BUILD:-/tmp/sdma-probe-runmode-nccl-build}
NGPUS=${NGPUS:-2}
SIZES=${SIZES:-64K,1M,16M,256M}

step "machine facts"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv
  nvidia-smi topo -m | head -4
  nvcc --version | tail -2
  # torchrun uses torch's own NCCL (the pip nvidia-nccl wheel when present).
  python3 -c "import torch; print('torch', torch.__version__, 'nccl', '.'.join(map(str, torch.cuda.nccl.version())))"
  python3 -c "import nvidia.nccl, os; print('nccl wheel:', os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null \
    || echo "nccl wheel: none (torch's bundled or system NCCL)"
  command -v torchrun
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
command -v torchrun >/dev/null || { echo "torchrun not on PATH"; exit 1; }

step "build sdma-probe (cuda) + libsdma_lens_cupti.so"
cuda_build "$BUILD" "$BUILD." -DSDMA_PROBE_WITH_CUPTI=ON -DSDMA_PROBE_BUILD_TESTS=OFF -- --target sdma-probe sdma_lens_cupti \
  || exit 1
P=$BUILD/sdma-probe
"$P" --version

RUN=(torchrun --standalone --nproc_per_node="$NGPUS" "$ROOT/bench/device/torch_collectives.py" --sizes "$SIZES" --iters 5 --warmup 2)

step "sdma-probe run --backend cuda --library-log -- ${RUN[*]}"
( unset NCCL_DEBUG NCCL_DEBUG_SUBSYS NCCL_DEBUG_FILE
  timeout 300 "$P" run --backend cuda --library-log -- "${RUN[@]}" ) > "$OUT/runmode-nccl.ndjson" 2> "$OUT/runmode-nccl.stderr"
echo "exit $?"
tail -5 "$OUT/runmode-nccl.stderr"
grep -o '"type":"[a-z-]*"' "$OUT/runmode-nccl.ndjson" | sort | uniq -c
report "$OUT/runmode-nccl.ndjson" 'library-calls|program|warning|error|done'
# Nothing of the library's log may reach the program's output, nor its folder stay behind.
echo "NCCL INFO lines in the program's output: $(grep -c 'NCCL INFO' "$OUT/runmode-nccl.stderr")"
echo "log folders left: $(ls -d "${TMPDIR:-/tmp}"/sdma-lens-nccl-* 2>/dev/null | wc -l)"

step "the user's own NCCL_DEBUG=WARN is left alone"
( unset NCCL_DEBUG_SUBSYS NCCL_DEBUG_FILE
  NCCL_DEBUG=WARN timeout 300 "$P" run --backend cuda --library-log -- "${RUN[@]}" ) \
  > "$OUT/runmode-nccl-user-debug.ndjson" 2> /dev/null
echo "exit $?"
report "$OUT/runmode-nccl-user-debug.ndjson" 'library-calls|warning|done'

step "summary"
python3 - "$OUT/runmode-nccl.ndjson" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "library-calls":
        size = f"{r.get('minBytes')}..{r.get('maxBytes')} {r.get('sizeKind')}" if "sizeKind" in r else "no size"
        print(f"{r.get('library', '?'):5} {r['op']:10} {r['transport']:14} {r['calls']:4} calls  {r['ranks']} rank(s)  {size}")
PY
ls -la "$OUT"
