// The CUDA build of the GPU backend: the HIP-first source through gpu_compat.hpp.
#include "backends/gpu/gpu_backend_impl.inc"

namespace sdma::gpu {

OpenedBackend openCudaBackend(const GpuOptions& options) { return openGpu(options); }

}  // namespace sdma::gpu
