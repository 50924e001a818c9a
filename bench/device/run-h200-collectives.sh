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
. "$(dirname "$0")/lib.sh"
results_in local-collectives
fresh_work /tmp/sdma-collectives
NGPUS=${NGPUS:-$(nvidia-smi -L | wc -l)}
SIZES_B=${SIZES_B:-64K} SIZES_E=${SIZES_E:-1G} SIZES_F=${SIZES_F:-4}

step "machine facts"
date -u +%Y-%m-%dT%H:%M:%SZ
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm,power.limit,power.max_limit --format=csv
nvidia-smi topo -m | head -4
nvcc --version | tail -1

nccl_wheel
CUBLAS_DIR=$(python3 -c "import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], 'lib'))" 2>/dev/null)
[ -n "${CUBLAS_DIR:-}" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64:$CUBLAS_DIR"

step "build (CUDA, sm_90)"
cuda_build "$WORK/build" "$WORK/" -DSDMA_PROBE_BUILD_TESTS=OFF || exit 1
P=$WORK/build/sdma-probe
"$P" --version

step "collective sweep: -b $SIZES_B -e $SIZES_E -f $SIZES_F, variants default and ce"
SDMA_PROBE_KEEP_NCCL_LOG=1 timeout 240 "$P" collective --backend cuda -b "$SIZES_B" -e "$SIZES_E" -f "$SIZES_F" \
  -n 20 -w 5 "${NCCL_ARG[@]}" > "$OUT/collective.ndjson"
echo "exit $?, $(count "$OUT/collective.ndjson" collective) points"
report "$OUT/collective.ndjson" 'error|warning|collective-variant'

torch_reference 180 "$(size_list "$SIZES_B" "$SIZES_E" "$SIZES_F")" "$WORK" "$OUT"

step "repeat at 256 MiB (default variant, 50 iterations)"
timeout 90 "$P" collective --backend cuda --variants default -b 256M -e 256M -n 50 -w 5 "${NCCL_ARG[@]}" \
  > "$OUT/collective-256M-repeat.ndjson"
echo "exit $?"

step "overlap: gemm and fma beside cu/host 8,16,32 SMs, engine/host, engine/device"
timeout 150 "$P" overlap --backend cuda --compute gemm,fma --paths cu/host,engine/host,engine/device --cus 8,16,32 \
  --size 256M --phase-ms 1500 > "$OUT/overlap.ndjson"
echo "exit $?"
report "$OUT/overlap.ndjson" 'error|warning'

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
