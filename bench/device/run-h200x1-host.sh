#!/usr/bin/env bash
# The host side of SDMA Lens on a machine with many processors (a one-GPU H200 call: 16 cores;
# no GPU is used): what a 2-core development machine cannot show.
#   - bench/timelineEngine.bench.ts: a host-held 10^7-event timeline's engine from opening the
#     file to the first view, with 0 to 3 reader threads and the engine's own choice
#     (timelineEngineThread.ts readersFor picks by processor count: this checks that choice);
#     then the same on 2, 4 and 8 of the processors (the process's CPU affinity, which Node's
#     availableParallelism reads);
#   - bench/cliStart.bench.ts: the CLI's start-up and its small sweep beside `node -e 0`;
#   - bench/fleet.bench.ts at 1,000 and 10,000 nodes (fleets read by a pool of threads), on all
#     the processors or (FLEET_CPU_COUNTS) on as many as each count says;
#   - bench/readRun.bench.ts at 10^6 and 10^7 samples.
# Nothing of Node is installed there, so it travels: PEERS/node.xz, the official Node 20 binary
# for linux-x64 (`xz -c "$(command -v node)"` on a machine with that Node), with the benchmarks
# bundled as `npm run bench` bundles them (PEERS/bundles/*.cjs) and the built dist/. The helper
# is built there with the simulator alone (CMake, no CUDA).
#
# Made here first (repository root, after `npm run build`):
#   xz -c "$(command -v node)" > bench/peers/node.xz
#   for b in timelineEngine cliStart fleet readRun; do npx esbuild bench/$b.bench.ts --bundle \
#     --platform=node --format=cjs --target=node20 --outfile=bench/peers/bundles/$b.bench.cjs; done
# and carried with dist/ to the device machine.
#
# Usage (repository root): OUT=DIR [PARTS="timeline cli fleet readrun"] [CPU_COUNTS="16 8 4 2"] \
#   [BASE_ROOT=DIR] bash bench/device/run-h200x1-host.sh   (one device call runs at most 10 minutes:
#   split PARTS). BASE_ROOT: a folder whose dist/timelineEngine.js is another build's engine (an
#   earlier commit's, bundled there with esbuild), measured before this one at each processor count.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
results_in local-h200x1-host
PEERS=${PEERS:-$ROOT/bench/peers}
WORK=${WORK:-/tmp/sdma-lens-host}
mkdir -p "$WORK"
T0=$SECONDS
failed=()
fail() { failed+=("$1"); echo "FAILED: $1"; }

step "machine"
host_facts
grep -m1 'model name' /proc/cpuinfo
free -m | head -2

step "node"
python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
  "$PEERS/node.xz" "$WORK/node" && chmod +x "$WORK/node" || { echo "no node: $PEERS/node.xz"; exit 1; }
NODE=$WORK/node
"$NODE" --version

step "helper (simulator only)"
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
if cmake -S "$ROOT/native" -B "$WORK/probe" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DSDMA_PROBE_WITH_CUDA=OFF \
     -DSDMA_PROBE_WITH_HIP=OFF > "$OUT/cmake.txt" 2>&1 && cmake --build "$WORK/probe" -j > "$OUT/build.txt" 2>&1; then
  PROBE=$WORK/probe/sdma-probe
  "$PROBE" --version
else
  tail -30 "$OUT/cmake.txt" "$OUT/build.txt"
  echo "the helper did not build"
  exit 1
fi

# "${ON[@]}" N COMMAND...: COMMAND on the first N processors.
ON=(python3 -c 'import os, sys; os.sched_setaffinity(0, range(int(sys.argv[1]))); os.execv(sys.argv[2], sys.argv[2:])')

PARTS=" ${PARTS:-timeline cli fleet readrun} "
want() { [[ $PARTS == *" $1 "* ]]; }

if want timeline; then
  # One file for every processor count: made once, with the helper.
  TL=$WORK/timeline-73529.sdmatl
  "$PROBE" sweep --backend sim --sizes 1M --paths all --cus 64 --iters 1 --timeline-size 1M --timeline-cus 64 \
    --timeline-iters 73529 --timeline-out "$TL" > /dev/null || fail "timeline file"
  for n in ${CPU_COUNTS:-16 8 4 2}; do
    # With BASE_ROOT (a folder holding another build's dist/), that build first, then this one, in turn.
    for tree in ${BASE_ROOT:+base} this; do
      dir=$ROOT
      [ "$tree" = base ] && dir=$BASE_ROOT
      step "timeline engine, 10^7 events, $n processors${BASE_ROOT:+, $tree}"
      (cd "$dir" && TIMELINE_ENGINE_FILE=$TL timeout 300 "${ON[@]}" "$n" "$NODE" "$PEERS/bundles/timelineEngine.bench.cjs" \
        "$PROBE") || fail "timelineEngine $n $tree"
    done
  done
  rm -f "$TL"
fi

if want cli; then
  step "CLI start-up"
  timeout 120 "$NODE" "$PEERS/bundles/cliStart.bench.cjs" "$PROBE" || fail cliStart
fi

if want fleet; then
  # FLEET_CPU_COUNTS="2 4": the same on the first 2, then 4 processors (default: all of them).
  for n in ${FLEET_CPU_COUNTS:-all}; do
    step "fleet, 1,000 and 10,000 nodes, $n processors"
    on=()
    [ "$n" = all ] || on=("${ON[@]}" "$n")
    SDMA_BENCH_FLEET_NODES=1000,10000 timeout 400 "${on[@]}" "$NODE" "$PEERS/bundles/fleet.bench.cjs" "$PROBE" ||
      fail "fleet $n"
  done
fi
if want readrun; then
  step "reading a run back, 10^6 and 10^7 samples"
  timeout 400 "$NODE" "$PEERS/bundles/readRun.bench.cjs" "$PROBE" || fail readRun
fi

echo "total seconds: $((SECONDS - T0)); failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
