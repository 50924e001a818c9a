#pragma once

#include "collective/collective_types.hpp"

// Defined in builds with a GPU backend (nccl_collective.cu, overlap/overlap_gpu.cu).
namespace sdma::collective {

bool runGpuCollective(const CollectiveOptions& options, const CollectiveSink& sink, EngineFailure& failure);
bool runGpuOverlap(const OverlapOptions& options, const OverlapSink& sink, EngineFailure& failure);

}  // namespace sdma::collective
