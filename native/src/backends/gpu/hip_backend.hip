// The HIP (AMD) build of the GPU backend.
#include "backends/gpu/gpu_backend_impl.inc"

namespace sdma::gpu {

OpenedBackend openHipBackend(const GpuOptions& options) { return openGpu(options); }

}  // namespace sdma::gpu
