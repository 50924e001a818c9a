#pragma once

// The GPU backend's one translation unit (cuda_backend.cu, hip_backend.hip): its parts in
// order, then openGpu. docs/MEASUREMENT.md says how it measures.
#include <dlfcn.h>

#include <memory>
#include <string>

// The parts whose free functions others use come first.
#include "gpu/gpu_backend_class.hpp"
#include "gpu/gpu_topology.hpp"
#include "gpu/gpu_validation.hpp"
#include "gpu/gpu_path_engine_device.hpp"
#include "gpu/gpu_pair_resources.hpp"
#include "gpu/gpu_path_host_initiated.hpp"
#include "gpu/gpu_path_cu_device.hpp"
#include "gpu/gpu_concurrent.hpp"
#include "gpu/gpu_measure.hpp"

namespace sdma::gpu {
namespace {

std::unique_ptr<Backend> openGpu(const GpuOptions& options, OpenFailure& failure) {
  const char* vendorTool = SDMA_GPU_NVIDIA_OR_AMD("nvidia-smi", "rocm-smi");
#if defined(SDMA_GPU_NVIDIA)
  // Without the driver library the runtime says "insufficient driver"; users need to hear
  // that there is no driver (or GPU) at all.
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(driver);
  } else {
    failure = {"no-gpu", "no NVIDIA driver (libcuda.so.1) is installed on this machine, so it has no usable GPU",
               "run on a GPU node (or point the extension at one over SSH); without a GPU use --backend sim"};
    return nullptr;
  }
#endif
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e == hipErrorInsufficientDriver) {
    failure = {"driver-too-old", std::string("the GPU driver is older than this sdma-probe's runtime: ") + errorText(e),
               std::string("update the driver (see ") + vendorTool + ") or rebuild native/ with the toolkit that "
               "matches it"};
    return nullptr;
  }
  if (options.openWithoutGpus && (e == hipSuccess || e == hipErrorNoDevice) && count == 0) {
    (void)hipGetLastError();
    try {
      return std::make_unique<GpuBackend>(options, 0);
    } catch (const GpuFailure& f) {
      failure = {f.code, f.message, f.hint};
      return nullptr;
    }
  }
  if (e != hipSuccess || count == 0) {
    failure = {"no-gpu",
               std::string("no ") + SDMA_GPU_NVIDIA_OR_AMD("NVIDIA", "AMD") + " GPU is visible to this process" +
                   (e != hipSuccess ? " (" + errorText(e) + ")" : std::string()),
               std::string("check `") + vendorTool + "` and the visible-devices variable (" +
                   SDMA_GPU_NVIDIA_OR_AMD("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES") +
                   "); without a GPU use --backend sim"};
    return nullptr;
  }
  try {
    return std::make_unique<GpuBackend>(options, count);
  } catch (const GpuFailure& f) {
    failure = {f.code, f.message, f.hint};
    return nullptr;
  }
}

}  // namespace
}  // namespace sdma::gpu
