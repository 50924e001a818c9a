// The HIP (AMD) build of the GPU backend.
#include "backends/gpu/gpu_backend_impl.inc"

namespace sdma::gpu {

std::unique_ptr<Backend> openHipBackend(const GpuOptions& options, OpenFailure& failure) {
  return openGpu(options, failure);
}

}  // namespace sdma::gpu
