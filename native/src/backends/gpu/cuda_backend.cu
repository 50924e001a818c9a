// The CUDA build of the GPU backend: the HIP-first source through gpu_compat.hpp.
#include "backends/gpu/gpu_backend_impl.inc"

namespace sdma::gpu {

std::unique_ptr<Backend> openCudaBackend(const GpuOptions& options, OpenFailure& failure) {
  return openGpu(options, failure);
}

}  // namespace sdma::gpu
