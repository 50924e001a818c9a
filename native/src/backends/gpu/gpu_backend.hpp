#pragma once

#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "util/error.hpp"

namespace sdma::gpu {

// An opened GPU backend, or why none could be opened (`error`: no-gpu, driver-too-old,
// runtime, ...; `backend` null).
struct OpenedBackend {
  std::unique_ptr<Backend> backend;
  Error error;
};

struct GpuOptions {
  std::uint64_t seed = 1;
  // A node whose runtime answers with no GPU still opens (a topology without GPUs, for `info`
  // and the no-gpu answers of commands that copy) instead of failing with no-gpu. Off for
  // `--backend auto`, which then falls back to the simulator.
  bool openWithoutGpus = false;
};

// Each returns no backend and an Error when the vendor's runtime finds no usable GPU.
// Defined only in builds with that backend (SDMA_PROBE_HAVE_CUDA / SDMA_PROBE_HAVE_HIP).
OpenedBackend openCudaBackend(const GpuOptions& options);
OpenedBackend openHipBackend(const GpuOptions& options);

}  // namespace sdma::gpu
