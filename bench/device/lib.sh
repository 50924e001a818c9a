# Shell functions the run-h200*.sh scripts share; sourced, never run:
#   . "$(dirname "$0")/lib.sh"
# Sets ROOT (the repository) and keeps NVLink multicast off, as it stays on these nodes, also
# for anything the helper or torchrun starts.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
# torch's symmetric memory (torch.distributed, torchrun) keeps multicast off as well.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1

# multicast_env: the three settings above as a child process sees them, one NAME=VALUE a line.
multicast_env() { env | grep -E '^(NCCL_NVLS_ENABLE|NVSHMEM_DISABLE_NVLS|TORCH_SYMM_MEM_DISABLE_MULTICAST)=' | sort; }

step() { echo "== $(date -u +%H:%M:%S) $*"; }

# log_to FILE: everything the script prints from here on also goes to FILE.
log_to() { exec > >(tee "$1") 2>&1; }

# results_in NAME: OUT (default bench/results/NAME) made, and log.txt in it a copy of all output.
results_in() {
  OUT=${OUT:-$ROOT/bench/results/$1}
  mkdir -p "$OUT"
  log_to "$OUT/log.txt"
}

# fresh_work DEFAULT: WORK (default DEFAULT), emptied, for the build and scratch files.
fresh_work() {
  WORK=${WORK:-$1}
  rm -rf "$WORK" && mkdir -p "$WORK"
}

# host_facts: the lines every machine.txt starts with.
host_facts() {
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -r)"
  echo "cpus: $(nproc)"
}

# cuda_build BUILD LOGS [CMAKE_OPTION...] [-- BUILD_OPTION...]: configures native/ with the cuda
# backend for sm_90 (Ninja when there is one) into BUILD and builds it; the logs go to
# LOGScmake.txt and LOGSbuild.txt (LOGS is a folder with its slash, or a file prefix). Prints
# how long it took; on a failure the end of the log instead, and returns 1.
cuda_build() {
  local build=$1 logs=$2 configure=() make=() gen=() t0
  t0=$(date +%s)
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do configure+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  make=("$@")
  command -v ninja > /dev/null && gen=(-G Ninja)
  cmake -S "$ROOT/native" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DSDMA_PROBE_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 "${configure[@]}" > "${logs}cmake.txt" 2>&1 || { tail -30 "${logs}cmake.txt"; return 1; }
  cmake --build "$build" -j "${make[@]}" > "${logs}build.txt" 2>&1 || { tail -40 "${logs}build.txt"; return 1; }
  echo "build seconds: $(( $(date +%s) - t0 ))"
}

# pip_nvidia_libs: the lib folders of the pip-installed NCCL / NVSHMEM / cuBLAS (the ones torch
# uses), joined with ':'; empty when there are none.
pip_nvidia_libs() {
  timeout 30 python3 - <<'PY' 2>/dev/null
import os, glob
try:
    import nvidia
    base = list(nvidia.__path__)[0]
    print(":".join(sorted(set(os.path.dirname(p) for p in glob.glob(base + "/*/lib/lib*.so*")))))
except Exception:
    pass
PY
}

# nccl_wheel: sets NCCL_LIB to torch's NCCL (pip wheel; empty: the system's) and NCCL_ARG to the
# helper's flag for it, so the helper loads the same library file the torch reference uses.
nccl_wheel() {
  local dir
  dir=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
  NCCL_LIB=$(ls "$dir"/libnccl.so.2 2>/dev/null || true)
  NCCL_ARG=(); [ -n "$NCCL_LIB" ] && NCCL_ARG=(--nccl-lib "$NCCL_LIB")
  echo "nccl for both: ${NCCL_LIB:-system default}"
}

# size_list FIRST LAST FACTOR: FIRST, FIRST*FACTOR, ... up to LAST in bytes, comma-separated
# (FIRST and LAST with a K, M or G suffix), the sizes torch_collectives.py takes.
size_list() {
  python3 -c "
b,e=[int(x[:-1])*{'K':1<<10,'M':1<<20,'G':1<<30}[x[-1]] for x in ['$1','$2']]
s=[];v=b
while v<=e: s.append(str(v)); v*=int('$3')
print(','.join(s))"
}

# torch_reference LIMIT SIZES WORK OUT: torch.distributed's AllGather and AlltoAll on NGPUS
# ranks (torchrun), 20 iterations after 5 warm-up, into OUT/torch.json.
torch_reference() {
  step "reference: torch.distributed (torchrun, $NGPUS ranks)"
  timeout "$1" torchrun --standalone --nproc_per_node="$NGPUS" "$ROOT/bench/device/torch_collectives.py" --sizes "$2" \
    --iters 20 --warmup 5 > "$4/torch.json" 2> "$3/torch.stderr"
  echo "exit $?"; tail -3 "$3/torch.stderr"
}

# count FILE TYPE: how many records of TYPE an NDJSON file holds.
count() { grep -c "\"type\":\"$2\"" "$1"; }

# report FILE TYPES: the records of these types (a|b|c) in an NDJSON file.
report() { grep -E "\"type\":\"($2)\"" "$1"; }
