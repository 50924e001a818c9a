#pragma once

#include "backend/collective_types.hpp"

// Defined in builds with a GPU backend (nccl_collective.cu, backends/gpu/overlap_gpu.cu).
namespace sdma::collective {

// Each returns an empty Error when it ran to the end or stopped for a cancel.
Error runGpuCollective(const CollectiveOptions& options, const CollectiveSink& sink);
Error runGpuOverlap(const OverlapOptions& options, const OverlapSink& sink);
// The collective library this build loads (NCCL or RCCL), found without a GPU: true with
// "rccl 2.22.3 at /usr/lib/x86_64-linux-gnu/librccl.so.1", or false with why none loads.
bool describeCollectiveLibrary(const std::string& explicitPath, std::string& description);

}  // namespace sdma::collective
