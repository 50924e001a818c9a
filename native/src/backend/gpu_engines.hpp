#pragma once

#include <string>

#include "backend/collective_types.hpp"
#include "backend/copy_path.hpp"

// Defined in builds with a GPU backend (nccl_collective.cu, backends/gpu/overlap_gpu.cu).
namespace sdma::collective {

// Each returns an empty Error when it ran to the end or stopped for a cancel.
Error runGpuCollective(const CollectiveOptions& options, const CollectiveSink& sink);
Error runGpuOverlap(const OverlapOptions& options, const OverlapSink& sink);
// Why this build cannot run `path` beside the compute between these endpoints, beyond what
// the backend's own pathUnsupported says (AMD engine/device without rocSHMEM: no stand-in runs
// under its name), or empty when it can.
std::string overlapPathUnsupported(CopyPath path, int src, int dst);
// The collective library this build loads (NCCL or RCCL), found without a GPU: true with
// "rccl 2.22.3 at /usr/lib/x86_64-linux-gnu/librccl.so.1", or false with why none loads.
bool describeCollectiveLibrary(const std::string& explicitPath, std::string& description);

// One rank of a rank-per-process collective: this process drives `device` as rank `rank` of
// `world`, its communicator made by ncclCommInitRank from `id` (ncclGetUniqueId's 128 bytes).
// Every rank times its own calls; each point's times are averaged over the ranks and its
// wrong words summed (gathered through the library itself), and every rank hands the same
// point to its sink.
struct RankContext {
  int rank = 0;
  int world = 1;
  int device = 0;
  std::string id;  // 128 bytes
};
Error runGpuCollectiveRank(const CollectiveOptions& options, const RankContext& rank, const CollectiveSink& sink);
// ncclGetUniqueId of the library `explicitPath` names (or the default one), as 128 bytes.
// The id names a listener this process keeps open for the ranks' bootstrap: call it in the
// process that outlives them.
bool collectiveUniqueId(const std::string& explicitPath, std::string& id, std::string& why);

}  // namespace sdma::collective
