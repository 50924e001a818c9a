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
    defined(HSA_AMD_INTERFACE_VERSION_MINOR) &&                                          \
    (HSA_AMD_INTERFACE_VERSION_MAJOR > 1 || HSA_AMD_INTERFACE_VERSION_MINOR >= 2)
#define SDMA_HAVE_COPY_ON_ENGINE 1
#endif
#endif
// engine/device through rocSHMEM is decided by CMake (src/gpu/rocshmem.cmake):
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
