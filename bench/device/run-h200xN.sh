#!/usr/bin/env bash
# The multi-GPU benchmark of a node of 2, 4 or 8 H200 GPUs, in at most three calls of self-timed
# stages (STAGES picks the stages of a call), every figure beside its same-run reference:
#   collectives  `collective` AllGather/AlltoAll at 256 MiB on every GPU, every variant the
#                library offers (--variants all: default, ce, and gin-sdma-lib where the library
#                is RCCL), one rank process per GPU and one process driving them all
#                (--mode single-process), beside torch.distributed's same calls (torchrun,
#                torch_collectives.py): busbw
#   device-api   GPU-initiated device-API collective kernels: the helper's own variant where
#                `collective --help` offers one (otherwise a skipped step saying so), and
#                nccl-tests' alltoall_perf device implementations (-D 1, -D 2, -R 2) beside its
#                NCCL implementation with the same registration (-D 0 -R 2), where the
#                nccl-tests in PEERS has them
#   paths        the four paths GPU 0 -> GPU 1 (sweep --src 0 --dst 1), every sample with its mover
#                evidence, and the --waves-per-cu, --engines and --batch dimensions, beside
#                nvbandwidth's device-to-device testcases (CE and SM) and TransferBench's DMA and
#                GFX executors GPU 0 -> GPU 1
#   matrix       `matrix` of the four paths, each ordered pair alone, then cu/host and engine/host
#                with every pair at once (--concurrent); a weak pair is named only where the
#                outlier rule (docs/MATRIX.md) puts it below the others
#   overlap      `overlap` GPU 0 -> GPU 1: each path beside a GEMM and an FMA kernel
#                (compute-bound) and a STREAM triad (memory-bound)
# summarize_xN.py writes summary.md and summary.json: every stage with its status (ran,
# failed, skipped with the reason, not selected), each figure beside its reference and the ratio.
#
# Three calls on a node (each under 10 minutes; OUT differs per call):
#   STAGES=collectives,device-api bash bench/device/run-h200xN.sh
#   STAGES=paths,matrix bash bench/device/run-h200xN.sh
#   STAGES=overlap bash bench/device/run-h200xN.sh
# Self-timing: BUDGET_S seconds for the whole call (default 540); the builds come first, then
# each stage gets an equal share of what is left (never more than STAGE_MAX_S, default 540), each
# step a limit cut to its stage's share; a step that fails is logged and the later steps and
# stages still run. Every process gets NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1 and
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1 (lib.sh). Clocks and power limits are never touched.
#
# Simulator mode (SIM=1, or no nvidia-smi on the machine): the same stages on the helper's
# simulated node (--backend sim --sim-gpus SIM_GPUS, default 8) with small sizes and few
# iterations, the helper from PROBE (default native/build/sdma-probe, `npm run build:native`);
# torch and the peers are recorded as skipped (not present), and summary.md's first line says
# SIMULATED.
#
# Settings (environment):
#   OUT      results folder (default bench/results/local-h200xN): summary.md summary.json log.txt
#            machine.txt raw.tar.gz (every raw file: NDJSON, peers' outputs, build logs, steps.tsv)
#   STAGES   comma list of collectives, device-api, paths, matrix, overlap, or all (default all)
#   PEERS    the peers' sources (default bench/peers, git-ignored): nvbandwidth/, TransferBench/,
#            nccl-tests/, VERSIONS, optionally debs/ (peers.sh); PB their build folder
#   BUILD    the helper's build folder (default /tmp/sdma-probe-xN-build); PROBE: a helper built
#            before, used as it is (no build)
#   FAULT    STEP:SPEC appends `--fault SPEC` to the helper step STEP (testing the failure path)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ALL_STAGES="collectives device-api paths matrix overlap"
STAGES=${STAGES:-all}
[ "$STAGES" = all ] && STAGES=${ALL_STAGES// /,}
for s in ${STAGES//,/ }; do
  if [[ " $ALL_STAGES " != *" $s "* ]]; then
    echo "run-h200xN.sh: STAGES: unknown stage '$s' (${ALL_STAGES// /, }, or all)" >&2
    exit 2
  fi
done
SIM=${SIM:-}
if [ -z "$SIM" ] && ! command -v nvidia-smi > /dev/null; then SIM=1; fi
[ "$SIM" = 0 ] && SIM=""

results_in local-h200xN
TEE_PID=$!
RAW=$OUT/raw
rm -rf "$RAW"
mkdir -p "$RAW"
PEERS=${PEERS:-$ROOT/bench/peers}
PB=${PB:-/tmp/sdma-peers-build}
BUILD=${BUILD:-/tmp/sdma-probe-xN-build}
. "$ROOT/bench/device/peers.sh"
STAGE_MAX_S=${STAGE_MAX_S:-540}
RESERVE_S=40  # the summary and the tarball
FAULT=${FAULT:-}

# --- steps, their status and the time each may take ----------------------------------------
STAGE=setup
STAGE_END=$((T0 + BUDGET_S - RESERVE_S))
: > "$RAW/steps.tsv"
: > "$RAW/stages.tsv"
TIMED_SKIPPED=""
record() {  # record STEP STATUS DETAIL: one line of steps.tsv for the current stage
  local detail=${3//$'\t'/ }
  printf '%s\t%s\t%s\t%s\n' "$STAGE" "$1" "$2" "${detail//$'\n'/ }" >> "$RAW/steps.tsv"
}
skip() {  # skip STEP REASON
  echo "SKIPPED $STAGE/$1: $2"
  record "$1" skipped "$2"
}
fail() {  # fail STEP [DETAIL]: peers.sh's, with the stage and the status file
  echo "FAILED: $STAGE/$1${2:+ ($2)}"
  echo "$STAGE/$1" >> "$RAW/failed-steps.txt"
  record "$1" failed "${2:-}"
}
cap() {  # cap LIMIT: LIMIT cut to what the stage and the call have left (0: nothing left)
  local rest=$((STAGE_END - SECONDS)) call=$(($(left) - RESERVE_S))
  [ "$call" -lt "$rest" ] && rest=$call
  if [ "$rest" -lt 10 ]; then echo 0; elif [ "$1" -gt "$rest" ]; then echo "$rest"; else echo "$1"; fi
}
timed() {  # timed NAME LIMIT CMD...: peers.sh's, bounded by the stage's share too
  local name=$1 limit; limit=$(cap "$2"); shift 2
  TIMED_SKIPPED=""
  if [ "$limit" -eq 0 ]; then
    TIMED_SKIPPED=1; skip "$name" "time budget spent"; return 125
  fi
  timeout --kill-after=5 "$limit" "$@"
}
ran() {  # ran STEP RC [WHAT]: the step's status from its exit code
  if [ -n "$TIMED_SKIPPED" ]; then return 0; fi
  case $2 in
    0) record "$1" ran "${3:-exit 0}" ;;
    124 | 137) fail "$1" "timed out (exit $2)" ;;
    *) fail "$1" "exit $2${3:+; $3}" ;;
  esac
}

# hp NAME LIMIT ARGS...: one sdma-probe step (peers.sh's probe: raw/NAME.ndjson, .stderr, .rc),
# its status recorded; FAULT=NAME:SPEC adds --fault SPEC to it.
hp() {
  local name=$1 limit=$2 rc first; shift 2
  local args=("$@")
  if [ -n "$FAULT" ] && [ "${FAULT%%:*}" = "$name" ]; then
    echo "FAULT hook: --fault ${FAULT#*:} added to $name"
    args+=(--fault "${FAULT#*:}")
  fi
  probe "$name" "$limit" "${args[@]}"
  rc=$?
  first=$(report "$RAW/$name.ndjson" error | head -1 | sed -E 's/.*"code":"([^"]*)","message":"([^"]*)".*/\1: \2/' | cut -c1-300)
  echo "   records: $(grep -o '"type":"[a-z-]*"' "$RAW/$name.ndjson" | sort | uniq -c | tr -s ' \n' ' ')"
  ran "$name" "$rc" "$first"
  return "$rc"
}

# ext NAME LIMIT OUTFILE CMD...: a peer's step, stdout to raw/OUTFILE, stderr to raw/NAME.stderr.
ext() {
  local name=$1 limit=$2 outfile=$3 rc; shift 3
  step "$name: $*"
  timed "$name" "$limit" "$@" > "$RAW/$outfile" 2> "$RAW/$name.stderr"
  rc=$?
  echo "   exit $rc"; tail -3 "$RAW/$name.stderr"
  ran "$name" "$rc" "$(tail -1 "$RAW/$name.stderr" | cut -c1-300)"
}

finish() {
  STAGE=summary
  step "summary"
  local rc=0
  # No __pycache__ beside the scripts (summarize_xN.py imports its siblings).
  if ! PYTHONDONTWRITEBYTECODE=1 timeout 60 python3 "$ROOT/bench/device/summarize_xN.py" "$RAW" "$OUT"; then
    rc=1
    { [ -n "$SIM" ] && echo "SIMULATED: no GPU was measured."
      echo "# ${NGPUS:-?}x GPU: the summary could not be written"; echo; echo "See log.txt and raw.tar.gz."; } > "$OUT/summary.md"
  fi
  cp "$RAW/machine.txt" "$OUT/machine.txt" 2> /dev/null
  echo "total seconds: $((SECONDS - T0)); failed steps: $(tr '\n' ' ' < "$RAW/failed-steps.txt")"
  tar -C "$OUT" -czf "$OUT/raw.tar.gz" raw && rm -rf "$RAW"
  ls -la "$OUT"
  # The log's tee ends when this shell's output closes: wait for it so log.txt is whole.
  exec > /dev/null 2>&1
  wait "$TEE_PID" 2> /dev/null
  exit "$rc"
}

# --- the machine, the helper, the peers ----------------------------------------------------
if [ -n "$SIM" ]; then
  NGPUS=${SIM_GPUS:-8}
  BACKEND=(--backend sim --sim-gpus "$NGPUS")
  P=${PROBE:-$ROOT/native/build/sdma-probe}
  step "machine facts (simulator mode: $NGPUS simulated GPUs)"
  { host_facts; echo "mode: SIMULATED (sdma-probe --backend sim --sim-gpus $NGPUS); no GPU is measured"
    echo "helper: $P"; "$P" --version; } > "$RAW/machine.txt" 2>&1
  cat "$RAW/machine.txt"
  [ -x "$P" ] || { fail helper "no helper at $P (npm run build:native)"; finish; }
  # Small sizes, few iterations: the whole script runs in seconds.
  SIZES=1M,256M ITERS=(--iters 3 --warmup 1) CALLS=(-n 5 -w 1 --repeats 2) DIMS_SIZES=256M NCCL_ARG=()
  MATRIX_ITERS=(--iters 3 --warmup 1) PHASE_MS=200
else
  NGPUS=${NGPUS:-$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')}
  BACKEND=(--backend cuda)
  machine_facts
  { timeout 10 nvidia-smi topo -m; timeout 10 nvidia-smi nvlink --status | head -40
    timeout 20 python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } \
    >> "$RAW/machine.txt" 2>&1
  PYLIBS=$(pip_nvidia_libs)
  [ -n "$PYLIBS" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PYLIBS"
  nccl_wheel > "$RAW/nccl-wheel.txt"  # not in a pipe: NCCL_LIB and NCCL_ARG stay in this shell
  cat "$RAW/nccl-wheel.txt" | tee -a "$RAW/machine.txt"
  if [ -n "${PROBE:-}" ]; then  # a helper built before (an earlier call on the same machine)
    P=$PROBE; "$P" --version | tee -a "$RAW/machine.txt"; skip build "PROBE=$PROBE given: that helper is used"
  else
    build_probe "$BUILD" || finish  # peers.sh's build_probe logs the failure (fail build)
    record build ran "$BUILD"
  fi
  SIZES=4K,64K,1M,16M,256M,1G ITERS=(--iters 10 --warmup 2) CALLS=(-n 20 -w 5 --repeats 5) DIMS_SIZES=64M,256M
  MATRIX_ITERS=() PHASE_MS=1000
fi
echo "gpus used: $NGPUS; stages: $STAGES; budget: $BUDGET_S s" | tee -a "$RAW/machine.txt"
step "environment every step gets (as a child process sees it)"
multicast_env | tee "$RAW/env.txt"
selected() { [[ ",$STAGES," == *",$1,"* ]]; }

hp info 60 info "${BACKEND[@]}"
MAXCU=$(python3 -c "
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except ValueError: continue
    if r.get('type') == 'topology' and r.get('gpus'): print(r['gpus'][0]['cus']); break" "$RAW/info.ndjson" 2> /dev/null)
[ -n "$MAXCU" ] || MAXCU=132
echo "SMs (CUs) per GPU: $MAXCU"

# Peers, built before the stages so their build time is no stage's share.
NVB="" TB="" NT=""
if [ -z "$SIM" ] && selected paths; then
  if [ -d "$PEERS/nvbandwidth" ] || [ -d "$PEERS/TransferBench" ]; then
    build_peers
    [ -n "$NVB" ] && record nvbandwidth-build ran "$NVB"
    [ -n "$TB" ] && record transferbench-build ran "$TB"
  fi
fi
if [ -z "$SIM" ] && selected device-api && [ -d "$PEERS/nccl-tests/src" ]; then
  # NCCL's headers and library where torch's wheel has them (the device API needs NCCL >= 2.28),
  # else the system's: a folder shaped as nccl-tests' NCCL_HOME expects.
  NCCL_HOME_ARG=()
  wheel=$(dirname "$(dirname "${NCCL_LIB:-/nonexistent/lib/x}")")
  if [ -f "$wheel/include/nccl.h" ]; then
    mkdir -p "$PB/nccl-home/lib"
    ln -sfn "$wheel/include" "$PB/nccl-home/include"
    ln -sf "$NCCL_LIB" "$PB/nccl-home/lib/libnccl.so"
    NCCL_HOME_ARG=(NCCL_HOME="$PB/nccl-home")
  fi
  step "build nccl-tests alltoall_perf (MPI=0, sm_90, NCCL headers: ${NCCL_HOME_ARG[*]:-the system})"
  if timed nccl-tests-build 300 make -C "$PEERS/nccl-tests/src" -j "$(nproc)" MPI=0 BUILDDIR="$PB/nccl-tests" \
       CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" "${NCCL_HOME_ARG[@]}" \
       "$PB/nccl-tests/alltoall_perf" > "$RAW/nccl-tests-build.txt" 2>&1; then
    NT=$PB/nccl-tests/alltoall_perf; record nccl-tests-build ran "$NT"
  else
    tail -20 "$RAW/nccl-tests-build.txt"; fail nccl-tests-build "see raw/nccl-tests-build.txt"
  fi
fi

# --- the stages -----------------------------------------------------------------------------
needs_two() {  # a stage between GPUs on a node with fewer than two
  [ "$NGPUS" -ge 2 ] && return 0
  skip "$STAGE" "needs 2 GPUs or more; this node has $NGPUS"
  return 1
}

stage_collectives() {
  needs_two || return
  local coll=(collective "${BACKEND[@]}" --variants all -b 256M -e 256M "${CALLS[@]}" "${NCCL_ARG[@]}")
  hp coll-rank 240 "${coll[@]}"
  hp coll-single 240 "${coll[@]}" --mode single-process
  if [ -n "$SIM" ]; then
    skip torch "not present: simulator mode, no GPU for torch.distributed's ranks"
  elif ! command -v torchrun > /dev/null || ! timeout 60 python3 -c "import torch.distributed" 2> /dev/null; then
    skip torch "not present: torchrun or torch.distributed is not installed"
  else
    local limit; limit=$(cap 240)
    if [ "$limit" -eq 0 ]; then skip torch "time budget spent"; return; fi
    torch_reference "$limit" 256M "$RAW" "$RAW"
    if grep -q '"points"' "$RAW/torch.json" 2> /dev/null; then record torch ran "torch.json"
    else fail torch "no points in torch.json: $(tail -1 "$RAW/torch.stderr" | cut -c1-300)"; fi
  fi
}

stage_device_api() {
  needs_two || return
  local help offered
  help=$("$P" collective --help 2>&1)
  offered=$(sed -n 's/^ *--variants LIST *//p' <<< "$help")
  if [[ "$help" == *device-api* ]]; then
    hp coll-device-api 240 collective "${BACKEND[@]}" --variants device-api -b 256M -e 256M "${CALLS[@]}" "${NCCL_ARG[@]}"
  else
    skip helper-device-api "not available in this build: sdma-probe collective has no GPU-initiated device-API variant (collective --help, --variants: ${offered})"
  fi
  if [ -n "$SIM" ]; then
    skip nccl-tests "not present: simulator mode, no GPU for nccl-tests"
    return
  fi
  if [ -z "$NT" ]; then
    if [ -d "$PEERS/nccl-tests/src" ]; then skip nccl-tests "not built (see raw/nccl-tests-build.txt)"
    else skip nccl-tests "not present: $PEERS/nccl-tests (github.com/NVIDIA/nccl-tests)"; fi
    return
  fi
  if ! "$NT" -h 2>&1 | grep -q device_implementation; then
    skip nccl-tests "not available in this nccl-tests: alltoall_perf -h has no -D (device_implementation)"
    return
  fi
  # -D 0: NCCL's own AlltoAll on the same symmetric registration (-R 2), the reference.
  local d lib=()
  [ -n "${NCCL_LIB:-}" ] && lib=(env LD_LIBRARY_PATH="$(dirname "$NCCL_LIB")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  for d in 0 1 2; do
    ext "nccl-tests-D$d" 120 "nccl-tests-alltoall-D$d.txt" "${lib[@]}" "$NT" -g "$NGPUS" -b 256M -e 256M -n 20 -w 5 -R 2 -D "$d"
  done
}

stage_paths() {
  needs_two || return
  local pair=(--src 0 --dst 1) cus="8,32,$MAXCU"
  hp paths-sweep 200 sweep "${BACKEND[@]}" "${pair[@]}" --paths all --sizes "$SIZES" --cus "$cus" "${ITERS[@]}"
  hp paths-waves 150 sweep "${BACKEND[@]}" "${pair[@]}" --paths cu/host,cu/device --sizes "$DIMS_SIZES" --cus "8,$MAXCU" \
    --waves-per-cu 1,2,4,8,16,32 "${ITERS[@]}"
  hp paths-engines 120 sweep "${BACKEND[@]}" "${pair[@]}" --paths engine/host --sizes "$DIMS_SIZES" --engines 1,2,4,8 "${ITERS[@]}"
  hp paths-batch 120 sweep "${BACKEND[@]}" "${pair[@]}" --paths engine/host --sizes "1M,$DIMS_SIZES" --batch 0,1,4,16,64 "${ITERS[@]}"
  if [ -n "$SIM" ]; then
    skip nvbandwidth "not present: simulator mode, no GPU for nvbandwidth"
    skip transferbench "not present: simulator mode, no GPU for TransferBench"
    return
  fi
  if [ -n "$NVB" ]; then
    ext nvbandwidth 120 nvbandwidth.json "$NVB" -j -b 256 -i 10 -t device_to_device_memcpy_write_ce \
      device_to_device_memcpy_read_ce device_to_device_memcpy_write_sm device_to_device_memcpy_read_sm
  elif [ -d "$PEERS/nvbandwidth" ]; then skip nvbandwidth "not built (see raw/nvbandwidth-build.txt)"
  else skip nvbandwidth "not present: $PEERS/nvbandwidth (github.com/NVIDIA/nvbandwidth)"; fi
  if [ -n "$TB" ]; then
    printf '%s\n' "1 1 (G0->D0->G1)" "1 2 (G0->D0->G1)" "1 4 (G0->D0->G1)" "1 8 (G0->D0->G1)" \
      "1 $MAXCU (G0->G0->G1)" "1 32 (G0->G0->G1)" "1 8 (G0->G0->G1)" > "$RAW/transferbench.cfg"
    OUTPUT_TO_CSV=1 ext transferbench 120 transferbench.csv "$TB" "$RAW/transferbench.cfg" 256M
  elif [ -d "$PEERS/TransferBench" ]; then skip transferbench "not built (see raw/transferbench-build.txt)"
  else skip transferbench "not present: $PEERS/TransferBench (github.com/ROCm/TransferBench)"; fi
}

stage_matrix() {
  needs_two || return
  hp matrix 300 matrix "${BACKEND[@]}" --size 256M --paths all "${MATRIX_ITERS[@]}"
  # Every pair of a path at once; the device-initiated paths are not run at once (docs/MATRIX.md).
  hp matrix-concurrent 200 matrix "${BACKEND[@]}" --size 256M --paths cu/host,engine/host --concurrent "${MATRIX_ITERS[@]}"
}

stage_overlap() {
  needs_two || return
  hp overlap 300 overlap "${BACKEND[@]}" --src 0 --dst 1 --compute gemm,fma,triad --paths cu/host,engine/host,engine/device \
    --cus "8,$((MAXCU / 4))" --size 64M,256M --phase-ms "$PHASE_MS"
}

remaining=0
for s in ${ALL_STAGES}; do selected "$s" && remaining=$((remaining + 1)); done
for s in ${ALL_STAGES}; do
  if ! selected "$s"; then
    printf '%s\tnot-selected\t%s\n' "$s" "not in STAGES=$STAGES" >> "$RAW/stages.tsv"
    continue
  fi
  STAGE=$s
  share=$(( ($(left) - RESERVE_S) / remaining ))
  [ "$share" -gt "$STAGE_MAX_S" ] && share=$STAGE_MAX_S
  STAGE_END=$((SECONDS + share))
  step "stage $s (at most ${share} s)"
  t=$SECONDS
  "stage_${s//-/_}"
  printf '%s\tselected\t%s\n' "$s" "$((SECONDS - t)) s" >> "$RAW/stages.tsv"
  remaining=$((remaining - 1))
done
finish
