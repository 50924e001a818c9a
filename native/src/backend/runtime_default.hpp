// What the HIP runtime does by default with one hipMemcpy*Async, for `sweep --runtime-default`
// (docs/MEASUREMENT.md, "The runtime default series"): which mover CLR and ROCr choose for a
// copy between two endpoints at one size, given the environment the user's program would see.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "backend/backend.hpp"
#include "backend/copy_path.hpp"

namespace sdma {

// The variables that decide it, as the runtime reads them (nullopt: not set).
struct RuntimeCopyEnv {
  std::optional<std::string> rocP2pSdmaSize;        // ROC_P2P_SDMA_SIZE, KiB (CLR)
  std::optional<std::string> gpuForceBlitCopySize;  // GPU_FORCE_BLIT_COPY_SIZE, KiB (CLR)
  std::optional<std::string> hsaEnableSdma;         // HSA_ENABLE_SDMA (ROCr)
};

// Reads them through `lookup` (getenv in the helper, a map in tests).
RuntimeCopyEnv readRuntimeCopyEnv(const std::function<const char*(const char*)>& lookup);

struct RuntimeDefaultChoice {
  CopyPath path = CopyPath::EngineHost;  // engine/host (SDMA) or cu/host (a blit kernel)
  int cus = 0;                           // cu/host: the blit kernel's workgroups (its CU use at most)
  std::string why;                       // one line: the rule and the values that decided it
};

// CLR, rocclr/device/rocm/rocblit.cpp KernelBlitManager::copyBuffer: a copy between two GPUs
// goes to SDMA only when larger than ROC_P2P_SDMA_SIZE KiB (rocsettings.cpp
// `sdma_p2p_threshold_ = ROC_P2P_SDMA_SIZE * Ki`, default 1024), else to a blit kernel
// limited to 16 workgroups (kLimitWgForKernelP2p); any copy of at most
// GPU_FORCE_BLIT_COPY_SIZE KiB (`sdmaCopyThreshold_`, default 0) and any copy within one
// GPU's device memory take the blit kernel (limit_blit_wg_, 16 by default); copies with
// host memory at one end go to DmaBlitManager, ROCr's SDMA. ROCr (core/util/flag.h)
// turns SDMA off for the whole process with HSA_ENABLE_SDMA=0: its copies then run as blit
// kernels too.
RuntimeDefaultChoice runtimeDefaultChoice(int src, int dst, std::uint64_t sizeBytes, const RuntimeCopyEnv& env);

// engine/device through rocSHMEM with --shmem-sdma library or off: the mover rocSHMEM uses for a
// put of `sizeBytes`, which the sample is labelled with (its mover evidence then checks it).
// rocm-systems projects/rocshmem/src/ipc_policy.hpp `IpcSdmaImpl::ipcCopy` takes SDMA when SDMA
// is enabled and the size is at least the threshold, else the issuing kernel's load/store;
// src/envvar.cpp (namespace `sdma`): ROCSHMEM_SDMA_ENABLED default true, ROCSHMEM_SDMA_THRESHOLD
// default 256 bytes. Off: the helper sets ROCSHMEM_SDMA_ENABLED=0, so always load/store.
// Library: the user's environment as the PEs inherit it (`lookup`: getenv in the helper).
// Forced: SDMA (ROCSHMEM_SDMA_THRESHOLD=0).
CopyPath rocshmemPutPath(ShmemSdma mode, std::uint64_t sizeBytes,
                         const std::function<const char*(const char*)>& lookup);

}  // namespace sdma
