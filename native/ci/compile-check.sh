#!/usr/bin/env bash
# Compile checks of the GPU backends on a machine without GPUs (CI):
#   1. CUDA: nvcc for sm_90 (H100/H200), through CMake, so the real build is checked; the
#      default architecture list (sm_80, sm_90, sm_100) and the backend for sm_80 and sm_100;
#   2. HIP: Debian's hipcc (ROCm 5.2, clang 15) for gfx90a (MI200);
#   3. HIP: Debian's clang-19 for gfx942 (MI300), device code to gfx942 assembly.
#   4. the rocSHMEM engine/device PE program (src/backends/gpu/rocshmem_pe.hip) and the backend's
#      dispatch to it, against ci/rocshmem_shim (the documented API, declarations only:
#      Debian ships no rocSHMEM), for gfx90a (hipcc) and gfx942 (clang-19).
# gfx950 (MI350X) needs LLVM 20 or newer, which bookworm does not ship: native/ci/rocm-sid.sh
# builds it with Debian sid's ROCm in a chroot. The same goes for overlap's AMD GEMM and board
# telemetry (hipblaslt_gemm.cpp, amdsmi_board.cpp): bookworm packages neither hipBLASLt nor
# amd-smi, so they are not compiled here.
# A missing compiler is reported and skipped; any compile error fails the script.
# Usage: native/ci/compile-check.sh   (from anywhere; writes under ${TMPDIR:-/tmp})
set -uo pipefail
NATIVE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sdma-compile-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The compilers' own temporary files (hipcc and clang leave a folder per offload compile) go
# under WORK too, and leave with it.
export TMPDIR=$WORK
failures=0
checked=0

run() {  # run LABEL CMD...
  local label=$1; shift
  local t0=$SECONDS
  if "$@" > "$WORK/out.txt" 2>&1; then
    if grep -qiE "warning" "$WORK/out.txt"; then
      echo "FAIL $label (warnings)"; cat "$WORK/out.txt"; failures=$((failures + 1))
    else
      echo "ok   $label ($((SECONDS - t0)) s)"
    fi
  else
    echo "FAIL $label"; cat "$WORK/out.txt"; failures=$((failures + 1))
  fi
  checked=$((checked + 1))
}

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$NVCC" ]; then
  run "cuda backend, nvcc sm_90 (CMake build + ctest)" bash -c "
    cmake -S '$NATIVE' -B '$WORK/cuda' -DCMAKE_BUILD_TYPE=Release -DSDMA_PROBE_WITH_CUDA=ON -DSDMA_PROBE_BUILD_TESTS=ON \
      -DCMAKE_CUDA_COMPILER='$NVCC' -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build '$WORK/cuda' -j &&
    ctest --test-dir '$WORK/cuda' --output-on-failure &&
    '$WORK/cuda/sdma-probe' --version | grep -q cuda"
  # The default architectures (no CMAKE_CUDA_ARCHITECTURES): sm_80, sm_90 and sm_100 where this
  # nvcc lists them, and the GPU backend's device code for the two not built above.
  run "cuda default architectures (CMake configure)" bash -c "
    cmake -S '$NATIVE' -B '$WORK/cuda-default' -DSDMA_PROBE_WITH_CUDA=ON -DSDMA_PROBE_BUILD_TESTS=OFF \
      -DCMAKE_CUDA_COMPILER='$NVCC' | grep 'sdma-probe CUDA architectures' > '$WORK/archs.txt' &&
    for a in 80 90 100; do
      if '$NVCC' --list-gpu-arch | grep -qx compute_\$a; then grep -q \"\$a-real\" '$WORK/archs.txt' || exit 1; fi
    done"
  run "copy check: the word rule matches the byte rule (host, nvcc)" bash -c "
    '$NVCC' -std=c++17 -O2 -I'$NATIVE/src' '$NATIVE/tests/expected_word_test.cu' -o '$WORK/expected_word_test' &&
    '$WORK/expected_word_test'"
  run "cuda backend device code, nvcc sm_80 + sm_100" "$NVCC" -std=c++17 -O2 --threads 0 \
    -gencode arch=compute_80,code=sm_80 -gencode arch=compute_100,code=sm_100 -Xcompiler=-Wall,-Wextra \
    -I"$NATIVE/src" -c "$NATIVE/src/backends/gpu/cuda_backend.cu" -o "$WORK/cuda-sm80-sm100.o"
else
  echo "skip cuda backend: no nvcc (install the CUDA toolkit, or set NVCC)"
fi

if command -v hipcc > /dev/null; then
  run "hip backend, hipcc gfx90a" env HIP_PLATFORM=amd hipcc -std=c++17 --offload-arch=gfx90a -O2 -Wall -Wextra \
    -I"$NATIVE/src" -x hip -c "$NATIVE/src/backends/gpu/hip_backend.hip" -o "$WORK/hip-gfx90a.o"
  # The per-engine copy path is compiled too, against the API's declarations (Debian's
  # headers are older than it): the version guard must not hide a broken branch.
  run "hip backend + per-engine copy API, hipcc gfx90a" env HIP_PLATFORM=amd hipcc -std=c++17 --offload-arch=gfx90a \
    -O2 -Wall -Wextra -I"$NATIVE/src" -include "$NATIVE/ci/hsa_copy_on_engine_shim.h" -x hip \
    -c "$NATIVE/src/backends/gpu/hip_backend.hip" -o "$WORK/hip-gfx90a-engine.o"
  # hipMemcpyBatchAsync (engine/host --batch, HIP 7.1 on): by default the backend's own
  # declaration (above); here the branch that takes the headers' declaration, in its HIP 7.x
  # form and in a form without failIdx (ci/hip_batch_decl_shim.h).
  for form in "" -DSDMA_SHIM_BATCH_NO_FAILIDX; do
    run "hip backend + headers declaring hipMemcpyBatchAsync $form, hipcc gfx90a" env HIP_PLATFORM=amd hipcc \
      -std=c++17 --offload-arch=gfx90a -O2 -Wall -Wextra $form -I"$NATIVE/src" -include "$NATIVE/ci/hip_batch_decl_shim.h" \
      -include "$NATIVE/ci/hsa_copy_on_engine_shim.h" -x hip -c "$NATIVE/src/backends/gpu/hip_backend.hip" \
      -o "$WORK/hip-gfx90a-batch.o"
  done
else
  echo "skip hip backend gfx90a: no hipcc (apt install hipcc)"
fi

if command -v clang++-19 > /dev/null; then
  # -nogpulib: Debian has no gfx942 device libraries; the backend needs none.
  run "hip backend, clang-19 gfx942 (host syntax + device assembly)" bash -c "
    clang++-19 -std=c++17 -x hip --offload-arch=gfx942 -nogpulib -Wall -Wextra -I'$NATIVE/src' \
      -fsyntax-only '$NATIVE/src/backends/gpu/hip_backend.hip' &&
    clang++-19 -std=c++17 -x hip --offload-arch=gfx942 -nogpulib -Wall -Wextra -I'$NATIVE/src' -O2 \
      --cuda-device-only -S '$NATIVE/src/backends/gpu/hip_backend.hip' -o '$WORK/hip-gfx942.s' &&
    grep -q s_memrealtime '$WORK/hip-gfx942.s'"
else
  echo "skip hip backend gfx942: no clang++-19 (apt install clang-19)"
fi

# engine/device through rocSHMEM: compiled, never linked here (no rocSHMEM library), so
# relocatable device code (-fgpu-rdc, as rocSHMEM requires) with the API left undefined.
SHIM="$NATIVE/ci/rocshmem_shim"
if command -v hipcc > /dev/null; then
  run "rocshmem_pe.hip (rocSHMEM shim), hipcc gfx90a -fgpu-rdc" env HIP_PLATFORM=amd hipcc -std=c++17 \
    --offload-arch=gfx90a -fgpu-rdc -O2 -Wall -Wextra -I"$NATIVE/src" -I"$SHIM" -x hip \
    -c "$NATIVE/src/backends/gpu/rocshmem_pe.hip" -o "$WORK/rocshmem_pe-gfx90a.o"
  # Both rocSHMEM init generations: 3.0 (unique-id init, rocshmem_wg_init required) and
  # 3.1-3.2 (rocshmem_wg_init deprecated); the default shim models 3.3 and later.
  for generation in 30 31; do
    run "rocshmem_pe.hip (rocSHMEM shim generation $generation), hipcc gfx90a -fgpu-rdc" env HIP_PLATFORM=amd \
      hipcc -std=c++17 --offload-arch=gfx90a -fgpu-rdc -O2 -Wall -Wextra -DSDMA_ROCSHMEM_SHIM_GENERATION=$generation \
      -I"$NATIVE/src" -I"$SHIM" -x hip -c "$NATIVE/src/backends/gpu/rocshmem_pe.hip" -o "$WORK/rocshmem_pe-$generation.o"
  done
  run "hip backend + rocSHMEM engine/device dispatch, hipcc gfx90a" env HIP_PLATFORM=amd hipcc -std=c++17 \
    --offload-arch=gfx90a -O2 -Wall -Wextra -DSDMA_HAVE_ROCSHMEM_PE=1 -I"$NATIVE/src" -x hip \
    -c "$NATIVE/src/backends/gpu/hip_backend.hip" -o "$WORK/hip-gfx90a-rocshmem.o"
  run "hip backend, rocSHMEM found but unusable, hipcc gfx90a" env HIP_PLATFORM=amd hipcc -std=c++17 \
    --offload-arch=gfx90a -O2 -Wall -Wextra '-DSDMA_ROCSHMEM_UNUSABLE="the check"' -I"$NATIVE/src" -x hip \
    -c "$NATIVE/src/backends/gpu/hip_backend.hip" -o "$WORK/hip-gfx90a-rocshmem-unusable.o"
fi
if command -v clang++-19 > /dev/null; then
  # The kernel must call the API's device functions (left for the device link) and read the
  # device clock.
  run "rocshmem_pe.hip (rocSHMEM shim), clang-19 gfx942 (host syntax + device IR)" bash -c "
    clang++-19 -std=c++17 -x hip --offload-arch=gfx942 -nogpulib -fgpu-rdc -Wall -Wextra -I'$NATIVE/src' \
      -I'$SHIM' -fsyntax-only '$NATIVE/src/backends/gpu/rocshmem_pe.hip' &&
    clang++-19 -std=c++17 -x hip --offload-arch=gfx942 -nogpulib -fgpu-rdc -Wall -Wextra -I'$NATIVE/src' \
      -I'$SHIM' -O2 --cuda-device-only -S -emit-llvm '$NATIVE/src/backends/gpu/rocshmem_pe.hip' -o '$WORK/rocshmem_pe-gfx942.ll' &&
    grep -q 'declare.*rocshmem19rocshmem_putmem_nbi' '$WORK/rocshmem_pe-gfx942.ll' &&
    grep -q 'declare.*rocshmem24rocshmem_putmem_nbi_wave' '$WORK/rocshmem_pe-gfx942.ll' &&
    grep -q 'declare.*rocshmem22rocshmem_putmem_nbi_wg' '$WORK/rocshmem_pe-gfx942.ll' &&
    grep -q 'declare.*rocshmem14rocshmem_quiet' '$WORK/rocshmem_pe-gfx942.ll' &&
    grep -q 'memrealtime' '$WORK/rocshmem_pe-gfx942.ll'"
fi

# The run mode's device-side trace header, through the two examples that use it, traced
# and compiled out (-DSDMA_LENS_TRACE_OFF).
EXAMPLES="$NATIVE/../examples"
if [ -x "$NVCC" ]; then
  for off in "" -DSDMA_LENS_TRACE_OFF; do
    run "examples/fused-a2a-cuda + trace.h, nvcc sm_90 $off" "$NVCC" -std=c++17 -O2 -arch=sm_90 $off \
      -Xcompiler=-Wall,-Wextra -I"$NATIVE/include" "$EXAMPLES/fused-a2a-cuda/fused_a2a.cu" -o "$WORK/fused_a2a_cuda"
  done
fi
if command -v hipcc > /dev/null; then
  for off in "" -DSDMA_LENS_TRACE_OFF; do
    run "examples/fused-a2a-hip + trace.h, hipcc gfx90a $off" env HIP_PLATFORM=amd hipcc -std=c++17 \
      --offload-arch=gfx90a -O2 -Wall -Wextra $off -I"$NATIVE/include" -x hip -c "$EXAMPLES/fused-a2a-hip/fused_a2a.hip" \
      -o "$WORK/fused_a2a_hip.o"
  done
fi
if command -v clang++-19 > /dev/null; then
  run "examples/fused-a2a-hip + trace.h, clang-19 gfx942 (device assembly)" bash -c "
    clang++-19 -std=c++17 -x hip --offload-arch=gfx942 -nogpulib -Wall -Wextra -I'$NATIVE/include' -O2 \
      --cuda-device-only -S '$EXAMPLES/fused-a2a-hip/fused_a2a.hip' -o '$WORK/fused_a2a_gfx942.s' &&
    grep -q s_memrealtime '$WORK/fused_a2a_gfx942.s'"
fi

# collective and overlap: NCCL/RCCL and the BLAS are loaded at run time, so only the runtime
# headers are needed (the CUDA build above already covers nvcc).
for src in backends/gpu/nccl_collective backends/gpu/overlap_gpu; do
  if command -v hipcc > /dev/null; then
    run "$src.hip, hipcc gfx90a" env HIP_PLATFORM=amd hipcc -std=c++17 --offload-arch=gfx90a -O2 -Wall -Wextra \
      -I"$NATIVE/src" -x hip -c "$NATIVE/src/$src.hip" -o "$WORK/$(basename $src)-gfx90a.o"
  fi
  if command -v clang++-19 > /dev/null; then
    run "$src.hip, clang-19 gfx942 (syntax)" clang++-19 -std=c++17 -x hip --offload-arch=gfx942 -nogpulib -Wall -Wextra \
      -I"$NATIVE/src" -fsyntax-only "$NATIVE/src/$src.hip"
  fi
done

echo "compile checks: $checked run, $failures failed"
[ "$checked" -gt 0 ] && [ "$failures" -eq 0 ]
