#pragma once

// The GPU backend is written in HIP. For nvcc builds this header maps the HIP names it uses
// onto CUDA, so one source serves both vendors; vendor-only features (CU masks and SDMA
// engine selection on AMD, the copy-engine proxy's stream memory ops on NVIDIA) sit behind
// SDMA_GPU_AMD / SDMA_GPU_NVIDIA.

#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define SDMA_GPU_AMD 1
#include <hip/hip_runtime.h>
#if __has_include(<hip/hip_ext.h>)
#include <hip/hip_ext.h>
#define SDMA_HAVE_CU_MASK 1
#endif
// hsa_amd_memory_async_copy_on_engine arrived with ROCm 5.7 (HSA AMD interface 1.2); older
// headers (Debian's ROCm 5.2 has 1.0) lack it, so it is detected, not assumed.
#if __has_include(<hsa/hsa_ext_amd.h>)
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#define SDMA_HAVE_HSA 1
// Interface 1.2 added hsa_amd_memory_async_copy_on_engine and copy_engine_status.
#if !defined(SDMA_HAVE_COPY_ON_ENGINE) && defined(HSA_AMD_INTERFACE_VERSION_MAJOR) && \
    defined(HSA_AMD_INTERFACE_VERSION_MINOR) &&                                       \
    (HSA_AMD_INTERFACE_VERSION_MAJOR > 1 || HSA_AMD_INTERFACE_VERSION_MINOR >= 2)
#define SDMA_HAVE_COPY_ON_ENGINE 1
#endif
#endif
// engine/device through rocSHMEM is decided by CMake (src/backends/gpu/CMakeLists.txt):
// SDMA_HAVE_ROCSHMEM_PE when its PE program is built, SDMA_ROCSHMEM_UNUSABLE when a
// rocSHMEM was found that cannot carry the path.

#elif defined(__CUDACC__)
#define SDMA_GPU_NVIDIA 1
#include <cuda.h>
#include <cuda_runtime.h>

#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipErrorMemoryAllocation cudaErrorMemoryAllocation
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetLastError cudaGetLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipSetDevice cudaSetDevice
#define hipDeviceProp_t cudaDeviceProp
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define hipDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define hipDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define hipErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipHostMalloc(ptr, bytes, flags) cudaHostAlloc(ptr, bytes, flags)
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostMallocPortable cudaHostAllocPortable
#define hipMemGetInfo cudaMemGetInfo
#define hipHostFree cudaFreeHost
#define hipHostGetDevicePointer cudaHostGetDevicePointer
#define hipHostRegister cudaHostRegister
#define hipHostUnregister cudaHostUnregister
#define hipHostRegisterMapped cudaHostRegisterMapped
#define hipHostRegisterPortable cudaHostRegisterPortable
#define hipMemcpyKind cudaMemcpyKind
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpyPeerAsync cudaMemcpyPeerAsync
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStream_t cudaStream_t
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamQuery cudaStreamQuery
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipErrorNotReady cudaErrorNotReady
#define hipEvent_t cudaEvent_t
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipLaunchCooperativeKernel cudaLaunchCooperativeKernel
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipDeviceAttributeMaxSharedMemoryPerMultiprocessor cudaDevAttrMaxSharedMemoryPerMultiprocessor
#define hipDeviceAttributeMaxSharedMemoryPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipDeviceAttributeL2CacheSize cudaDevAttrL2CacheSize
#define hipDeviceAttributeCooperativeLaunch cudaDevAttrCooperativeLaunch
#define hipDeviceAttributeAsyncEngineCount cudaDevAttrAsyncEngineCount
#define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
// overlap
#define hipHostMallocDefault cudaHostAllocDefault
#define hipDeviceGetStreamPriorityRange cudaDeviceGetStreamPriorityRange
#define hipStreamCreateWithPriority cudaStreamCreateWithPriority
// collective: graph capture of a library call
#define hipGraph_t cudaGraph_t
#define hipGraphNode_t cudaGraphNode_t
#define hipGraphNodeType cudaGraphNodeType
#define hipGraphNodeTypeKernel cudaGraphNodeTypeKernel
#define hipGraphNodeTypeMemcpy cudaGraphNodeTypeMemcpy
#define hipGraphNodeTypeGraph cudaGraphNodeTypeGraph
#define hipGraphGetNodes cudaGraphGetNodes
#define hipGraphNodeGetType cudaGraphNodeGetType
#define hipGraphChildGraphNodeGetGraph cudaGraphChildGraphNodeGetGraph
#define hipGraphDestroy cudaGraphDestroy
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipStreamCaptureModeRelaxed cudaStreamCaptureModeRelaxed
#else
#error "gpu_compat.hpp is for HIP or CUDA translation units only"
#endif

#if defined(SDMA_GPU_NVIDIA)
#define SDMA_VENDOR_NAME "nvidia"
#define SDMA_BACKEND_NAME "cuda"
#define SDMA_GPU_NVIDIA_OR_AMD(nvidia, amd) nvidia
#else
#define SDMA_VENDOR_NAME "amd"
#define SDMA_BACKEND_NAME "hip"
#define SDMA_GPU_NVIDIA_OR_AMD(nvidia, amd) amd
#endif

// ---- stream memory operations (the gate and the proxy's completion write) ----
// The one place where the two vendors' calls differ in more than the name.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#if defined(SDMA_GPU_AMD)
#include <dlfcn.h>
#endif

namespace sdma::gpu {

#if defined(SDMA_GPU_NVIDIA)
// Reached through the runtime's entry-point query, so the binary needs no libcuda at link
// time and still starts (and reports "no GPU") on machines without a driver.
using WaitValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WriteValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using MemcpyDtoDAsyncFn = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
inline WaitValueFn gWaitValue = nullptr;
inline WriteValueFn gWriteValue = nullptr;
inline MemcpyDtoDAsyncFn gMemcpyDtoDAsync = nullptr;

inline void loadStreamMemOps() {
  cudaDriverEntryPointQueryResult status{};
  void* fn = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &fn, 12000, cudaEnableDefault, &status) == cudaSuccess &&
      status == cudaDriverEntryPointSuccess) {
    gWaitValue = reinterpret_cast<WaitValueFn>(fn);
  }
  fn = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &fn, 12000, cudaEnableDefault, &status) == cudaSuccess &&
      status == cudaDriverEntryPointSuccess) {
    gWriteValue = reinterpret_cast<WriteValueFn>(fn);
  }
  fn = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuMemcpyDtoDAsync", &fn, 12000, cudaEnableDefault, &status) == cudaSuccess &&
      status == cudaDriverEntryPointSuccess) {
    gMemcpyDtoDAsync = reinterpret_cast<MemcpyDtoDAsyncFn>(fn);
  }
}
inline bool haveStreamMemOps() { return gWaitValue != nullptr && gWriteValue != nullptr; }
inline hipError_t streamWaitAtLeast(hipStream_t s, void* devPtr, std::uint32_t value) {
  return gWaitValue(s, reinterpret_cast<CUdeviceptr>(devPtr), value, CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS
             ? hipSuccess
             : cudaErrorUnknown;
}
inline hipError_t streamWrite(hipStream_t s, void* devPtr, std::uint32_t value) {
  return gWriteValue(s, reinterpret_cast<CUdeviceptr>(devPtr), value, CU_STREAM_WRITE_VALUE_DEFAULT) == CUDA_SUCCESS
             ? hipSuccess
             : cudaErrorUnknown;
}
// The proxy's submission: the driver's copy call skips the runtime's own bookkeeping on a
// path whose small-copy cost is mostly API time (docs/MEASUREMENT.md, "proxy submission").
inline hipError_t proxyCopy(void* dst, const void* src, std::size_t bytes, hipStream_t s, bool viaDriver) {
  if (viaDriver && gMemcpyDtoDAsync != nullptr) {
    return gMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes, s) ==
                   CUDA_SUCCESS
               ? hipSuccess
               : cudaErrorUnknown;
  }
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, s);
}
#else
inline void loadStreamMemOps() {}
inline bool haveStreamMemOps() { return true; }
inline hipError_t streamWaitAtLeast(hipStream_t s, void* devPtr, std::uint32_t value) {
  return hipStreamWaitValue32(s, devPtr, value, hipStreamWaitValueGte, 0xFFFFFFFFu);
}
inline hipError_t streamWrite(hipStream_t s, void* devPtr, std::uint32_t value) {
  return hipStreamWriteValue32(s, devPtr, value, 0);
}
#endif

// ---- a copy within one GPU on an engine ----
// HIP's hipMemcpyDeviceToDeviceNoCU (HIP 6.1 on), which CLR turns into an SDMA copy
// (ROCm/clr hipamd/src/hip_memory.cpp, ihipGetMemcpyType: same device and this kind ->
// hipCopyBufferSDMA); plain hipMemcpyDeviceToDevice within a GPU is CLR's blit kernel on the
// CUs at every size. Found by overload: a HIP without the enumerator (and CUDA, whose
// device-to-device copy already runs on a copy engine) keeps hipMemcpyDeviceToDevice.
template <class Kind>
constexpr auto localEngineKind(int) -> decltype(Kind::hipMemcpyDeviceToDeviceNoCU) {
  return Kind::hipMemcpyDeviceToDeviceNoCU;
}
template <class Kind>
constexpr Kind localEngineKind(...) {
  return hipMemcpyDeviceToDevice;
}
inline constexpr hipMemcpyKind kLocalEngineKind = localEngineKind<hipMemcpyKind>(0);
// The HIP in use has the NoCU kind: a GPU-local engine copy is SDMA, not possibly a blit kernel.
inline constexpr bool kLocalEngineIsNoCu = kLocalEngineKind != hipMemcpyDeviceToDevice;

// ---- one batched call of several copies (engine/host --batch) ----
// batchCopyUnavailable: why this build or runtime cannot make the call (empty: it can).
// batchCopy: `count` copies (dsts[i] <- srcs[i], sizes[i] bytes) in one call on `stream`,
// in stream order; srcDevice / dstDevice name where the operands live (-1: host memory).
#if defined(SDMA_GPU_NVIDIA)
// cudaMemcpyBatchAsync arrived with CUDA 12.8 and changed in 13.0, which dropped its failIdx
// argument. CUDA 13 (cuda_runtime_api.h):
//   cudaError_t cudaMemcpyBatchAsync(void* const* dsts, const void* const* srcs, const size_t* sizes,
//       size_t count, struct cudaMemcpyAttributes* attrs, size_t* attrsIdxs, size_t numAttrs,
//       cudaStream_t stream);
// CUDA 12.8 and 12.9: (void** dsts, void** srcs, size_t* sizes, size_t count,
//       cudaMemcpyAttributes* attrs, size_t* attrsIdxs, size_t numAttrs, size_t* failIdx,
//       cudaStream_t stream).
// One attribute entry (attrsIdxs {0}) covers every copy: sources read in stream order, the
// operands' locations as hints.
inline std::string batchCopyUnavailable() {
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12080
  return {};
#else
  return "this sdma-probe was built against a CUDA older than 12.8, which has no cudaMemcpyBatchAsync";
#endif
}
inline hipError_t batchCopy(void** dsts, void** srcs, std::size_t* sizes, std::size_t count, int srcDevice,
                            int dstDevice, hipStream_t stream) {
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12080
  auto where = [](int device) {
    cudaMemLocation l{};
    l.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    l.id = device < 0 ? 0 : device;
    return l;
  };
  cudaMemcpyAttributes attrs{};
  attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  attrs.srcLocHint = where(srcDevice);
  attrs.dstLocHint = where(dstDevice);
  attrs.flags = 0;
  std::size_t attrsIdx = 0;
#if CUDART_VERSION >= 13000
  return cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &attrs, &attrsIdx, 1, stream);
#else
  std::size_t failIdx = 0;
  return cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &attrs, &attrsIdx, 1, &failIdx, stream);
#endif
#else
  (void)dsts, (void)srcs, (void)sizes, (void)count, (void)srcDevice, (void)dstDevice, (void)stream;
  return cudaErrorNotSupported;
#endif
}
#else
// hipMemcpyBatchAsync first shipped with HIP 7.1 (ROCm 7.1); the headers CI compiles against
// (Debian's ROCm) are older and do not declare it. Its HIP 7.x form (ROCm/rocm-systems
// projects/hip/include/hip/hip_runtime_api.h; the hip-tests' catch/unit/memory/
// hipMemcpyBatchAsync.cc quote it):
//   hipError_t hipMemcpyBatchAsync(void** dsts, void** srcs, size_t* sizes, size_t count,
//       hipMemcpyAttributes* attrs, size_t* attrsIdxs, size_t numAttrs, size_t* failIdx,
//       hipStream_t stream);
// Where the headers declare it, their declaration's type is the one used; otherwise the
// declaration above, with the attributes left opaque (none are passed). The symbol is
// resolved at run time from the loaded libamdhip64 (dlsym), after hipRuntimeGetVersion says
// 7.1 or newer, so an older runtime refuses the point instead of the program failing to load.
// No attributes are passed (numAttrs 0): ROCm 7.2.1's CLR is reported to refuse any call with
// attributes (ROCm/clr hipamd/src/hip_memory.cpp at rocm-7.2.1, hipMemcpyBatchAsync's argument
// checks; not read here), and each copy's direction is worked out from its pointers anyway.
// Compile-checked only (native/ci/compile-check.sh): no AMD GPU has run this yet.
#if HIP_VERSION_MAJOR > 7 || (HIP_VERSION_MAJOR == 7 && HIP_VERSION_MINOR >= 1)
using HipMemcpyBatchAsyncFn = decltype(&::hipMemcpyBatchAsync);
#else
struct HipMemcpyAttributesOpaque;
using HipMemcpyBatchAsyncFn = hipError_t (*)(void** dsts, void** srcs, std::size_t* sizes, std::size_t count,
                                             HipMemcpyAttributesOpaque* attrs, std::size_t* attrsIdxs,
                                             std::size_t numAttrs, std::size_t* failIdx, hipStream_t stream);
#endif
inline constexpr int kHipBatchMajor = 7, kHipBatchMinor = 1;

struct HipBatchEntry {
  HipMemcpyBatchAsyncFn fn = nullptr;
  std::string why;  // when fn is null
};
inline const HipBatchEntry& hipBatchEntry() {
  static const HipBatchEntry entry = [] {
    HipBatchEntry e;
    int version = 0;
    if (hipRuntimeGetVersion(&version) != hipSuccess) {
      (void)hipGetLastError();
      e.why = "hipRuntimeGetVersion failed, so whether this HIP has hipMemcpyBatchAsync is not known";
      return e;
    }
    const int need = kHipBatchMajor * 10000000 + kHipBatchMinor * 100000;
    if (version < need) {
      e.why = "hipMemcpyBatchAsync needs HIP " + std::to_string(kHipBatchMajor) + "." + std::to_string(kHipBatchMinor) +
              " (ROCm 7.1) or newer; this runtime is HIP " + std::to_string(version / 10000000) + "." +
              std::to_string(version / 100000 % 100) + "." + std::to_string(version % 100000);
      return e;
    }
    void* lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) lib = dlopen("libamdhip64.so.7", RTLD_NOW | RTLD_NOLOAD);
    void* sym = dlsym(lib != nullptr ? lib : RTLD_DEFAULT, "hipMemcpyBatchAsync");
    if (sym == nullptr) {
      e.why = "the loaded HIP runtime (libamdhip64) has no hipMemcpyBatchAsync symbol";
      return e;
    }
    e.fn = reinterpret_cast<HipMemcpyBatchAsyncFn>(sym);
    return e;
  }();
  return entry;
}
inline std::string batchCopyUnavailable() { return hipBatchEntry().why; }
// The call with or without failIdx, as the declaration in use has it.
template <class Fn>
hipError_t callHipBatch(Fn fn, void** dsts, void** srcs, std::size_t* sizes, std::size_t count, hipStream_t stream) {
  if constexpr (std::is_invocable_v<Fn, void**, void**, std::size_t*, std::size_t, std::nullptr_t, std::size_t*,
                                    std::size_t, std::size_t*, hipStream_t>) {
    std::size_t failIdx = 0;
    return fn(dsts, srcs, sizes, count, nullptr, nullptr, 0, &failIdx, stream);
  } else {
    return fn(dsts, srcs, sizes, count, nullptr, nullptr, 0, stream);
  }
}
inline hipError_t batchCopy(void** dsts, void** srcs, std::size_t* sizes, std::size_t count, int srcDevice,
                            int dstDevice, hipStream_t stream) {
  (void)srcDevice, (void)dstDevice;
  const HipBatchEntry& e = hipBatchEntry();
  if (e.fn == nullptr) return hipErrorNotSupported;
  return callHipBatch(e.fn, dsts, srcs, sizes, count, stream);
}
#endif

}  // namespace sdma::gpu
