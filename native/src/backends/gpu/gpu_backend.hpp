#pragma once

#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace sdma::gpu {

// Why a GPU backend could not be opened: an error record's code, message and hint.
struct OpenFailure {
  std::string code;  // no-gpu, driver-too-old, runtime
  std::string message;
  std::string hint;
};

struct GpuOptions {
  std::uint64_t seed = 1;
  // A node whose runtime answers with no GPU still opens (a topology without GPUs, for `info`
  // and the no-gpu answers of commands that copy) instead of failing with no-gpu. Off for
  // `--backend auto`, which then falls back to the simulator.
  bool openWithoutGpus = false;
};

// Each returns null and fills `failure` when the vendor's runtime finds no usable GPU.
// Defined only in builds with that backend (SDMA_PROBE_HAVE_CUDA / SDMA_PROBE_HAVE_HIP).
std::unique_ptr<Backend> openCudaBackend(const GpuOptions& options, OpenFailure& failure);
std::unique_ptr<Backend> openHipBackend(const GpuOptions& options, OpenFailure& failure);

}  // namespace sdma::gpu
