#!/usr/bin/env bash
# One-GPU H200 call for the rank-per-process collective (docs/COLLECTIVES.md, "Ranks and
# processes"): a user's build of sdma-probe (CMake, sm_90) beside nccl-tests, built here from
# its public source, both on the NCCL wheel torch uses, in one call:
#   - `collective` with one rank process (the default mode), variants default and ce, data checked,
#     and the default variant again without the library's INFO log (--transport-log off);
#   - the same in one process driving GPUs (--mode single-process): refused on one GPU;
#   - nccl-tests all_gather_perf and alltoall_perf -g 1 at the same sizes, iterations and
#     warm-up, the reference for the helper's times (summarize_ranks.py: ratio per size);
#   - all_gather_perf with NCCL_CTA_POLICY=2 at NCCL_DEBUG=INFO, kept whole as a real output
#     of nccl-tests with its environment lines (the import's variant from the file);
#   - a real rank killed in the middle of a run: the helper must say which rank, stop, and
#     leave no process behind.
# The peers' sources are not part of this repository: PEERS (default bench/peers, git-ignored)
# holds nccl-tests/ as fetched from github.com/NVIDIA/nccl-tests and VERSIONS (its commit).
#
# Usage (repository root): OUT=DIR bash bench/device/run-h200x1-ranks.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"
results_in local-h200x1-ranks
RAW=$OUT/raw
BUILD=${BUILD:-/tmp/sdma-probe-ranks-build}
PEERS=${PEERS:-$ROOT/bench/peers}
PB=${PB:-/tmp/sdma-peers-build}
mkdir -p "$RAW" "$PB"
. "$ROOT/bench/device/peers.sh"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
finish() {
  step "summary"
  timeout 60 python3 "$ROOT/bench/device/summarize_ranks.py" "$RAW" "$OUT" || fail "summary"
  # At most eight files come back from a device call: machine.txt and failed-steps.txt stay in raw.tar.gz.
  for f in ranks1.ndjson ranks1-nolog.ndjson kill.txt nccl-tests-allgather-ce-info.txt; do
    [ -f "$RAW/$f" ] && cp "$RAW/$f" "$OUT/"
  done
  echo "total seconds: $((SECONDS - T0)); failed steps: $(tr "\n" " " < "$RAW/failed-steps.txt" 2>/dev/null)"
  tar -C "$OUT" -czf "$OUT/raw.tar.gz" raw && rm -rf "$RAW"
  ls -la "$OUT"
  exit "${1:-0}"
}

machine_facts
build_probe "$BUILD" || finish 1
nccl_wheel > "$RAW/nccl-wheel.txt"  # not in a pipe: NCCL_ARG must be set in this shell
cat "$RAW/nccl-wheel.txt" | tee -a "$RAW/machine.txt"
NCCL_DIR=$(dirname "${NCCL_LIB:-/usr/lib/x86_64-linux-gnu/libnccl.so.2}")
SIZES=(-b 1K -e 256M -f 4 -n 20 -w 5)

step "build nccl-tests (MPI=0, sm_90, headers of the system NCCL)"
NT=""
if timed nccl-tests-build 240 make -C "$PEERS/nccl-tests/src" -j "$(nproc)" MPI=0 BUILDDIR="$PB/nccl-tests" \
     CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" > "$RAW/nccl-tests-build.txt" 2>&1; then
  NT=$PB/nccl-tests
else
  tail -20 "$RAW/nccl-tests-build.txt"; fail "nccl-tests build"
fi

# The helper: one rank process (the default), then one process driving GPUs (refused: one GPU).
SDMA_PROBE_KEEP_NCCL_LOG=1 probe ranks1 240 collective --backend cuda --variants default,ce "${SIZES[@]}" --repeats 5 \
  "${NCCL_ARG[@]}" || fail ranks1
grep -E '"type":"(collective-variant|error|warning)"' "$RAW/ranks1.ndjson" | cut -c1-600
# NCCL_DEBUG=INFO costs host time per call (each call's COLL line goes to the log file): the
# same default points without it, for the side-by-side with nccl-tests (which logs nothing).
probe ranks1-nolog 120 collective --backend cuda --variants default --transport-log off "${SIZES[@]}" --repeats 5 \
  "${NCCL_ARG[@]}" || fail ranks1-nolog
probe single 60 collective --backend cuda --mode single-process --variants default "${SIZES[@]}" "${NCCL_ARG[@]}"
echo "single-process exit $(cat "$RAW/single.rc") (1 expected: too-few-gpus)"

# The reference, same library (the wheel's, through LD_LIBRARY_PATH), sizes, calls and warm-up.
if [ -n "$NT" ]; then
  for op in all_gather alltoall; do
    step "nccl-tests ${op}_perf -g 1"
    LD_LIBRARY_PATH="$NCCL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timed "nt-$op" 120 "$NT/${op}_perf" -g 1 "${SIZES[@]}" \
      > "$RAW/nccl-tests-$op.txt" 2>&1 || fail "nccl-tests $op"
    tail -5 "$RAW/nccl-tests-$op.txt"
  done
  step "nccl-tests all_gather_perf -g 1 with NCCL_CTA_POLICY=2 at NCCL_DEBUG=INFO (a real output with its environment)"
  NCCL_CTA_POLICY=2 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV LD_LIBRARY_PATH="$NCCL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timed nt-ce 120 "$NT/all_gather_perf" -g 1 -b 1M -e 64M -f 4 -n 20 -w 5 > "$RAW/nccl-tests-allgather-ce-info.txt" 2>&1 ||
    fail "nccl-tests ce"
fi

# A rank killed mid-run: long points so the kill lands inside the timed calls.
step "kill rank 0's process in the middle of a run"
{
  "$P" collective --backend cuda --variants default -b 256M -e 256M -n 400 -w 5 --repeats 100 "${NCCL_ARG[@]}" \
    > "$RAW/kill.ndjson" 2> "$RAW/kill.stderr" &
  parent=$!
  rank=""
  for _ in $(seq 1 200); do
    rank=$(pgrep -f -- "--rank-child 0" | head -1)
    [ -n "$rank" ] && grep -q '"type":"collective-variant"' "$RAW/kill.ndjson" 2> /dev/null && break
    sleep 0.1
  done
  sleep 2
  echo "parent $parent, rank 0 pid ${rank:-none}; kill -9 at $(date -u +%T.%N)"
  [ -n "$rank" ] && kill -9 "$rank"
  wait "$parent"; echo "parent exit $?"
  grep -E '"type":"(error|done)"' "$RAW/kill.ndjson"
  sleep 1
  echo "rank processes left: $(pgrep -fc -- '--rank-child' || true)"
} > "$RAW/kill.txt" 2>&1
cat "$RAW/kill.txt"
finish 0
