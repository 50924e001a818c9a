#pragma once

// The GPU backend's constants and its error path (one translation unit: gpu_backend_impl.hpp).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cancel.hpp"
#include "gpu/gpu_compat.hpp"

namespace sdma::gpu {
namespace {

constexpr int kMaxItersPerLaunch = 10000;
constexpr int kMaxPipelineDepth = 256;
// A pipelined iteration moves at least this much, so per-copy overheads overlap.
constexpr std::uint64_t kBatchTargetBytes = 64ull << 20;
constexpr double kKernelTimeoutNs = 10e9;
constexpr double kHostTimeoutNs = 120e9;
constexpr int kClockPingRounds = 64;
constexpr int kCheckBlocks = 1024;
constexpr int kCheckThreads = 256;

double hostNowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string errorText(hipError_t e) { return std::string(hipGetErrorName(e)) + ": " + hipGetErrorString(e); }

// A GPU call failed: carried up to measure() as an error record.
struct GpuFailure {
  std::string code;
  std::string message;
  std::string hint;
};

void check(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  (void)hipGetLastError();
  if (e == hipErrorMemoryAllocation) {
    throw GpuFailure{"out-of-memory", std::string(what) + ": " + errorText(e),
                     "the GPU has too little free memory for this size: use smaller --sizes or free the GPU"};
  }
  throw GpuFailure{"runtime", std::string(what) + ": " + errorText(e), ""};
}

}  // namespace
}  // namespace sdma::gpu
