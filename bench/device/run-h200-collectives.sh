#!/usr/bin/env bash
# Builds sdma-probe with the cuda backend and runs, in one go on every GPU of the node (2 or 8):
#   collective  AllGather/AlltoAll sweep, variants default and ce, data checked
#   reference   the same calls through torch.distributed (torchrun), same formulas
#   repeat      the helper again at 256 MiB, so run-to-run spread is visible
#   overlap     GEMM and FMA kernels alone and beside cu/host (8/16/32 SMs), engine/host,
#               engine/device, with clocks, power and throttle reasons
# Results land in $OUT (default bench/results/local-collectives).
# Usage: bench/device/run-h200-collectives.sh   (from the repository root)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/bench/results/local-collectives}
mkdir -p "$OUT"
WORK=${WORK:-/tmp/sdma-collectives}
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
# NVLink multicast stays off on these nodes.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
NGPUS=${NGPUS:-$(nvidia-smi -L | wc -l)}
SIZES_B=${SIZES_B:-64K} SIZES_E=${SIZES_E:-1G} SIZES_F=${SIZES_F:-4}

step() { echo "== $(date -u +%H:%M:%S) $*"; }

step "machine facts"
date -u +%Y-%m-%dT%H:%M:%SZ
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm,power.limit,power.max_limit --format=csv
nvidia-smi topo -m | head -4
nvcc --version | tail -1

# torch's NCCL (pip): the helper loads the same library file the reference uses.
NCCL_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
NCCL_LIB=$(ls "$NCCL_DIR"/libnccl.so.2 2>/dev/null || true)
CUBLAS_DIR=$(python3 -c "import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], 'lib'))" 2>/dev/null)
echo "nccl for both: ${NCCL_LIB:-system default}"
[ -n "${CUBLAS_DIR:-}" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64:$CUBLAS_DIR"

step "build (CUDA, sm_90)"
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
build() {
  cmake -S "$ROOT/native" -B "$WORK/build" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DSDMA_PROBE_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DSDMA_PROBE_BUILD_TESTS=OFF > "$WORK/cmake.txt" 2>&1 &&
    cmake --build "$WORK/build" -j > "$WORK/build.txt" 2>&1
}
t0=$(date +%s)
build || { tail -40 "$WORK/build.txt"; exit 1; }
echo "build seconds: $(( $(date +%s) - t0 ))"
P=$WORK/build/sdma-probe
"$P" --version
NCCL_ARG=(); [ -n "$NCCL_LIB" ] && NCCL_ARG=(--nccl-lib "$NCCL_LIB")

step "collective sweep: -b $SIZES_B -e $SIZES_E -f $SIZES_F, variants default and ce"
SDMA_PROBE_KEEP_NCCL_LOG=1 timeout 240 "$P" collective --backend cuda -b "$SIZES_B" -e "$SIZES_E" -f "$SIZES_F" \
  -n 20 -w 5 "${NCCL_ARG[@]}" > "$OUT/collective.ndjson"
echo "exit $?, $(grep -c '"type":"collective"' "$OUT/collective.ndjson") points"
grep -E '"type":"(error|warning|collective-variant)"' "$OUT/collective.ndjson"

step "reference: torch.distributed (torchrun, $NGPUS ranks)"
REF_SIZES=$(python3 -c "
b,e,f=[int(x[:-1])*{'K':1<<10,'M':1<<20,'G':1<<30}[x[-1]] for x in ['$SIZES_B','$SIZES_E']]+[int('$SIZES_F')]
s=[];v=b
while v<=e: s.append(str(v)); v*=f
print(','.join(s))")
timeout 180 torchrun --standalone --nproc_per_node="$NGPUS" "$ROOT/bench/device/torch_collectives.py" --sizes "$REF_SIZES" \
  --iters 20 --warmup 5 > "$OUT/torch.json" 2> "$WORK/torch.stderr"
echo "exit $?"; tail -3 "$WORK/torch.stderr"

step "repeat at 256 MiB (default variant, 50 iterations)"
timeout 90 "$P" collective --backend cuda --variants default -b 256M -e 256M -n 50 -w 5 "${NCCL_ARG[@]}" \
  > "$OUT/collective-256M-repeat.ndjson"
echo "exit $?"

step "overlap: gemm and fma beside cu/host 8,16,32 SMs, engine/host, engine/device"
timeout 150 "$P" overlap --backend cuda --compute gemm,fma --paths cu/host,engine/host,engine/device --cus 8,16,32 \
  --size 256M --phase-ms 1500 > "$OUT/overlap.ndjson"
echo "exit $?"
grep -E '"type":"(error|warning)"' "$OUT/overlap.ndjson"

step "what the library logged (excerpt)"
{
  for f in /tmp/sdma-probe-nccl-*.log; do
    echo "### $f"
    grep -E "CTA|[Ss]ymmetric|CE |[Ww]indow|Algo|NCCL version|cuMem" "$f" | grep -v opCount | sort | uniq -c | sort -rn | head -40
  done
} > "$OUT/nccl-log-excerpt.txt" 2>&1
head -30 "$OUT/nccl-log-excerpt.txt"

step "which path ran: environment the library read, kernels vs copies per variant (nsys)"
{
  echo "### variables NCCL confirmed reading (NCCL_DEBUG_SUBSYS=ENV)"
  grep -h "set by environment" /tmp/sdma-probe-nccl-*.log | sed 's/^[^]]*\] //' | sort | uniq -c
  if command -v nsys >/dev/null; then
    for v in default ce; do
      echo "### nsys: variant $v, AllGather+AlltoAll at 256M, 5 iterations"
      timeout 120 nsys profile -o "$WORK/nsys-$v" --force-overwrite true --trace=cuda "$P" collective --backend cuda \
        --variants $v -b 256M -e 256M -n 5 -w 1 --check off "${NCCL_ARG[@]}" > /dev/null 2>&1
      timeout 60 nsys stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum --format csv "$WORK/nsys-$v.nsys-rep" 2>/dev/null \
        | cut -c1-220 | head -24
    done
  else
    echo "nsys not found"
  fi
} >> "$OUT/nccl-log-excerpt.txt" 2>&1
tail -60 "$OUT/nccl-log-excerpt.txt"

step "summary"
python3 "$ROOT/bench/device/summarize_collectives.py" "$OUT"
ls -la "$OUT"
