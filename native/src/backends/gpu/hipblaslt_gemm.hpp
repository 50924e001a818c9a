#pragma once

// Overlap's GEMM on AMD through hipBLASLt (libhipblaslt, <hipblaslt/hipblaslt.h>): the compute-bound
// kind beside the copies, as cublasGemmEx is on NVIDIA. Compiled where CMake finds hipBLASLt
// (SDMA_HAVE_HIPBLASLT, src/backends/gpu/CMakeLists.txt). Plain C++ over the HIP runtime API: the
// hipBLASLt header stays in hipblaslt_gemm.cpp.
#include <hip/hip_runtime_api.h>

#include <memory>
#include <string>

namespace sdma::gpu {

class HipblasltGemm {
 public:
  // bf16 A, B, D (n x n), fp32 accumulate (HIPBLAS_COMPUTE_32F), D = A*B on `stream`, operands
  // allocated here and filled with random bf16 (constant operands draw less power and would
  // hide a power cap). Throws sdma::Failure("library-unavailable" | "runtime" | "out-of-memory", ...).
  HipblasltGemm(int n, hipStream_t stream);
  ~HipblasltGemm();
  void launch();                     // one GEMM on the stream (no sync)
  const std::string& label() const;  // "hipblasLtMatmul bf16 8192^3 (hipBLASLt)"

 private:
  struct State;  // hipBLASLt's handle, descriptors, algorithm and the device buffers
  std::unique_ptr<State> state_;
  std::string label_;
};

}  // namespace sdma::gpu
