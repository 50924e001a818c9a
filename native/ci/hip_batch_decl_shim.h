// Compile-check only: Debian's HIP headers predate hipMemcpyBatchAsync (HIP 7.1), so the
// backend's own declaration of it (gpu_compat.hpp) is what CI compiles by default. This header
// models newer headers that declare it themselves, to compile the branch that takes their
// declaration: HIP's version macros raised to 7.1 and the HIP 7.x declaration (ROCm/rocm-systems
// projects/hip/include/hip/hip_runtime_api.h). With -DSDMA_SHIM_BATCH_NO_FAILIDX the declaration
// has no failIdx, the form CUDA 13 took for cudaMemcpyBatchAsync, should HIP follow. Never used
// for a real build.
#pragma once
#include <hip/hip_runtime.h>

#undef HIP_VERSION_MAJOR
#undef HIP_VERSION_MINOR
#define HIP_VERSION_MAJOR 7
#define HIP_VERSION_MINOR 1

typedef struct hipMemcpyAttributes {
  int srcAccessOrder;
  hipMemLocation srcLocHint;
  hipMemLocation dstLocHint;
  unsigned int flags;
} hipMemcpyAttributes;

#if defined(SDMA_SHIM_BATCH_NO_FAILIDX)
hipError_t hipMemcpyBatchAsync(void** dsts, void** srcs, size_t* sizes, size_t count, hipMemcpyAttributes* attrs,
                               size_t* attrsIdxs, size_t numAttrs, hipStream_t stream);
#else
hipError_t hipMemcpyBatchAsync(void** dsts, void** srcs, size_t* sizes, size_t count, hipMemcpyAttributes* attrs,
                               size_t* attrsIdxs, size_t numAttrs, size_t* failIdx, hipStream_t stream);
#endif
