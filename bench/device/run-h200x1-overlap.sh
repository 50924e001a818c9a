#!/usr/bin/env bash
# One-GPU H200 call for the fused-kernel claim (docs/COLLECTIVES.md, "overlap"): a user's build
# of sdma-probe (CMake, sm_90) measures how much of a compute-bound GEMM and FMA kernel and a
# memory-bound STREAM triad survives beside each copy path, and how much bandwidth the copy
# keeps, against the CU arithmetic ((SMs - SMs the copy holds) / SMs), in one call:
#   - `overlap` host -> GPU, GPU -> host and GPU-local, copies of 64 MiB and 256 MiB, beside
#     gemm, fma and triad, paths cu/host on 8 and 33 SMs (33 of 132 is the seed's 64 of 256 CUs),
#     engine/host, and engine/device (refused on one GPU: it says why), board clocks and power
#     sampled in every phase (NVML, read only);
#   - the references, built or run here in the same call: BabelStream's CUDA triad (fp32, the
#     same 3 x 1 GiB arrays) for the triad alone, torch.matmul bf16 8192^3 (cuBLAS) for the GEMM
#     alone, nvbandwidth's host<->device and device-local copies (CE and SM, 256 MiB) for the
#     copies alone.
# GEMM_ONLY=1: the GEMM alone and torch.matmul only, both held for seconds at the power cap
# (the helper: --compute gemm --paths engine/host --phase-ms 3000, host -> GPU).
# The peers' sources are not part of this repository: PEERS (default bench/peers, git-ignored)
# holds BabelStream/ and nvbandwidth/ as fetched from github.com/UoB-HPC/BabelStream and
# github.com/NVIDIA/nvbandwidth, and VERSIONS (their commits).
#
# Usage (repository root): OUT=DIR bash bench/device/run-h200x1-overlap.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"
results_in local-h200x1-overlap
RAW=$OUT/raw
BUILD=${BUILD:-/tmp/sdma-probe-overlap-build}
PEERS=${PEERS:-$ROOT/bench/peers}
PB=${PB:-/tmp/sdma-peers-build}
mkdir -p "$RAW" "$PB"
. "$ROOT/bench/device/peers.sh"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
finish() {
  step "summary"
  timeout 60 python3 "$ROOT/bench/device/summarize_overlap.py" "$RAW" "$OUT" || fail "summary"
  # At most eight files come back from a device call: the rest stays in raw.tar.gz.
  for f in ov-h2d.ndjson ov-d2h.ndjson ov-local.ndjson; do
    [ -f "$RAW/$f" ] && cp "$RAW/$f" "$OUT/"
  done
  echo "total seconds: $((SECONDS - T0)); failed steps: $(tr "\n" " " < "$RAW/failed-steps.txt" 2>/dev/null)"
  tar -C "$OUT" -czf "$OUT/raw.tar.gz" raw && rm -rf "$RAW"
  ls -la "$OUT"
  exit "${1:-0}"
}

machine_facts
nvidia-smi --query-gpu=clocks.max.sm,clocks.max.mem,power.limit,power.max_limit --format=csv | tee -a "$RAW/machine.txt"
build_probe "$BUILD" || finish 1
GEMM_ONLY=${GEMM_ONLY:-}
NVB=""
[ -z "$GEMM_ONLY" ] && SKIP_TRANSFERBENCH=1 build_peers

BS=""
[ -z "$GEMM_ONLY" ] && step "build BabelStream (CUDA model, sm_90)"
if [ -z "$GEMM_ONLY" ] && timed bs-build 180 bash -c "cmake -S '$PEERS/BabelStream' -B '$PB/babelstream' -DMODEL=cuda -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCUDA_ARCH=sm_90 && cmake --build '$PB/babelstream' -j $(nproc)" \
     > "$RAW/babelstream-build.txt" 2>&1; then
  BS=$(find "$PB/babelstream" -maxdepth 1 -type f -name 'cuda-stream' | head -1)
fi
[ -n "$BS" ] || [ -n "$GEMM_ONLY" ] || { tail -20 "$RAW/babelstream-build.txt"; fail "BabelStream build"; }

# The helper: each endpoint pair, the same flags.
FLAGS=(--backend cuda --compute gemm,fma,triad --paths cu/host,engine/host,engine/device --cus 8,33 --size 64M,256M
  --phase-ms 1000)
if [ -n "$GEMM_ONLY" ]; then
  probe ov-h2d 120 overlap --src host --dst 0 --backend cuda --compute gemm --paths engine/host --size 64M \
    --phase-ms 3000 || fail ov-h2d
else
  probe ov-h2d 150 overlap --src host --dst 0 "${FLAGS[@]}" || fail ov-h2d
  probe ov-d2h 150 overlap --src 0 --dst host "${FLAGS[@]}" || fail ov-d2h
  probe ov-local 150 overlap --src 0 --dst 0 "${FLAGS[@]}" || fail ov-local
fi
for f in ov-h2d ov-d2h ov-local; do
  [ -f "$RAW/$f.ndjson" ] || continue
  echo "$f: $(count "$RAW/$f.ndjson" overlap) overlap records"
  report "$RAW/$f.ndjson" 'error|warning|path-unsupported' | cut -c1-400
done

# The references, alone.
if [ -n "$BS" ]; then
  step "BabelStream triad, fp32, 2^28 elements (3 x 1 GiB), 50 times"
  timed bs-run 60 "$BS" --float -s 268435456 -n 50 -o Triad --csv --gigabytes > "$RAW/babelstream.csv" 2>&1 ||
    fail "BabelStream run"
  cat "$RAW/babelstream.csv"
fi
# Batches of 10 calls for 4 s: the first batches run before the board reaches its power cap
# (a burst), the rest at the cap, as the helper's phases run; both are kept.
step "torch.matmul bf16 8192^3 (cuBLAS), random operands, batches of 10 calls for 4 s after 10"
timed torch-gemm 90 python3 - > "$RAW/torch-gemm.json" 2> "$RAW/torch-gemm.stderr" <<'PY' || fail "torch gemm"
import json, time, torch
n = 8192
a = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
b = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
for _ in range(10):
    c = a @ b
torch.cuda.synchronize()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
rates, at = [], []
t0 = time.monotonic()
while time.monotonic() - t0 < 4.0:
    start.record()
    for _ in range(10):
        c = a @ b
    end.record()
    end.synchronize()
    rates.append(2 * n**3 * 10 / (start.elapsed_time(end) * 1e-3) / 1e12)
    at.append(time.monotonic() - t0)
print(json.dumps({"torch": torch.__version__, "cublas": torch.backends.cuda.preferred_blas_library().name
                  if hasattr(torch.backends.cuda, "preferred_blas_library") else None, "tflops": rates,
                  "secondsAt": at}))
PY
cat "$RAW/torch-gemm.json"; tail -3 "$RAW/torch-gemm.stderr"
if [ -n "$NVB" ]; then
  step "nvbandwidth: host<->device and device-local copies, CE and SM, 256 MiB"
  timed nvb 120 "$NVB" -t host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_memcpy_sm \
    device_to_host_memcpy_sm device_local_copy -b 256 -i 10 -j > "$RAW/nvbandwidth.json" 2> "$RAW/nvbandwidth.stderr" ||
    fail "nvbandwidth"
  head -c 600 "$RAW/nvbandwidth.json"; echo
fi
finish 0
