# Shell functions the one-GPU peer calls (run-h200x1-evidence.sh, run-h200x1-dims.sh) share;
# sourced after lib.sh, with RAW (the raw folder), PEERS (the peers' sources: nvbandwidth/,
# TransferBench/, VERSIONS, optionally debs/) and PB (their build folder) set. Never run.

# Self-timing: BUDGET_S seconds for the whole call (default 540); `timed` cuts each step's
# limit to what is left and skips a step when too little is.
BUDGET_S=${BUDGET_S:-540}
T0=$SECONDS
left() { echo $((BUDGET_S - (SECONDS - T0))); }
step() { echo "== $(date -u +%H:%M:%S) +$((SECONDS - T0))s $*"; }  # lib.sh's, with the seconds since the start
: > "$RAW/failed-steps.txt"
fail() { echo "FAILED: $1"; echo "$1" >> "$RAW/failed-steps.txt"; }
timed() {  # timed NAME LIMIT CMD...
  local name=$1 limit=$2; shift 2
  local rest=$(($(left) - 40))
  if [ "$rest" -lt 10 ]; then echo "SKIPPED $name (time budget)"; echo "$name skipped" >> "$RAW/failed-steps.txt"; return 125; fi
  [ "$limit" -gt "$rest" ] && limit=$rest
  timeout --kill-after=5 "$limit" "$@"
}

# machine_facts: RAW/machine.txt (the OS, GPU, driver, CUDA, CUPTI, the peers' commits), printed.
machine_facts() {
  step "machine facts"
  {
    host_facts
    grep -E '^(PRETTY_NAME|VERSION_ID)=' /etc/os-release
    timeout 20 nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total --format=csv
    timeout 10 nvcc --version | tail -2
    echo "nvml.h: $(ls /usr/local/cuda/include/nvml.h /usr/include/nvml.h 2>/dev/null | head -1)"
    echo "numa.h: $(ls /usr/include/numa.h 2>/dev/null)"
    echo "boost program_options: $(ls /usr/include/boost/program_options.hpp 2>/dev/null)"
    echo "cupti: $(ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so* /usr/local/cuda/lib64/libcupti.so* 2>/dev/null | tr '\n' ' ')"
    cat "$PEERS/VERSIONS" 2>/dev/null
  } > "$RAW/machine.txt" 2>&1
  cat "$RAW/machine.txt"
}

# build_probe BUILD: sdma-probe for sm_90 into BUILD, P its path; its CUPTI shim's and its own
# NEEDED / RUNPATH entries in RAW/cupti-readelf.txt. Returns 1 when the build fails.
build_probe() {
  local BUILD=$1
  step "build sdma-probe"
  if ! cuda_build "$BUILD" "$RAW/helper-" -- -j "$(nproc)"; then fail "build"; return 1; fi
  P=$BUILD/sdma-probe
  "$P" --version | tee -a "$RAW/machine.txt"
  readelf -d "$BUILD"/libsdma_lens_cupti.so 2>/dev/null | grep -E 'NEEDED|RPATH|RUNPATH' > "$RAW/cupti-readelf.txt"
  readelf -d "$P" | grep -E 'NEEDED|RPATH|RUNPATH' >> "$RAW/cupti-readelf.txt"
  cat "$RAW/cupti-readelf.txt"
}

# build_peers: nvbandwidth (NVB) and TransferBench's CUDA build (TB; SKIP_TRANSFERBENCH=1 leaves
# it out) from PEERS, each empty when it does not build (logged, and left out of the call).
build_peers() {
  step "build the peers"
  SYSROOT=$PB/sysroot
  mkdir -p "$SYSROOT"
  for deb in "$PEERS"/debs/*.deb; do [ -f "$deb" ] && dpkg -x "$deb" "$SYSROOT"; done
  BOOST_ARGS=()
  # Boost's headers alone are not enough: nvbandwidth links program_options.
  if ! ls /usr/lib/x86_64-linux-gnu/cmake/boost_program_options-* > /dev/null 2>&1; then
    BOOST_ARGS=(-DBoost_DIR="$SYSROOT/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0")
  fi
  NVB=""
  if timed nvb-cmake 60 cmake -S "$PEERS/nvbandwidth" -B "$PB/nvb" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
       "${BOOST_ARGS[@]}" > "$RAW/nvbandwidth-cmake.txt" 2>&1 &&
     timed nvb-build 180 cmake --build "$PB/nvb" -j "$(nproc)" > "$RAW/nvbandwidth-build.txt" 2>&1; then
    NVB=$PB/nvb/nvbandwidth
  else
    tail -20 "$RAW/nvbandwidth-build.txt" "$RAW/nvbandwidth-cmake.txt" 2>/dev/null; fail "nvbandwidth build"
  fi
  TB=""
  [ -n "${SKIP_TRANSFERBENCH:-}" ] && { export LD_LIBRARY_PATH="$SYSROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; return 0; }
  NUMA_FLAGS=()
  [ -f /usr/include/numa.h ] || NUMA_FLAGS=(-I"$SYSROOT/usr/include" -L"$SYSROOT/usr/lib/x86_64-linux-gnu")
  if timed tb-build 180 nvcc -O3 -I"$PEERS/TransferBench/src/include" "${NUMA_FLAGS[@]}" -x cu -arch=sm_90 \
       "$PEERS/TransferBench/src/TransferBench.cpp" -o "$PB/TransferBenchCuda" -lnuma -lpthread \
       > "$RAW/transferbench-build.txt" 2>&1; then
    TB=$PB/TransferBenchCuda
  else
    tail -20 "$RAW/transferbench-build.txt"; fail "TransferBench build"
  fi
  export LD_LIBRARY_PATH="$SYSROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

probe() {  # probe NAME LIMIT ARGS...
  local name=$1 limit=$2; shift 2
  step "$name: sdma-probe $*"
  timed "$name" "$limit" "$P" "$@" > "$RAW/$name.ndjson" 2> "$RAW/$name.stderr"
  local rc=$?
  echo "$rc" > "$RAW/$name.rc"
  echo "   exit $rc, $(grep -c '"type":"sample"' "$RAW/$name.ndjson") samples"
  grep -E '"type":"(error|warning)"' "$RAW/$name.ndjson" | head -3
  return $rc
}
