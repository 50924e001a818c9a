#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/copy_path.hpp"
#include "backends/sim/mi350x_model.hpp"

// Noise-free cost of one copy on the simulated node. The sweep adds noise on top; the
// timeline lays out the same phases, so both views agree on how long a copy takes.
namespace sdma::sim {

// What a copy's bytes cross: an xGMI link to a peer GPU, PCIe to or from pinned host memory,
// or nothing but the GPU's own HBM.
enum class Route { Peer, HostToGpu, GpuToHost, Local };

Route routeOf(int src, int dst);

// One CU's load/store rate on a route with `wavesPerCu` waves (0: the default 16): the smooth
// minimum of waves x the per-wave rate and the CU's own rate (docs/SIMULATOR.md).
double cuPerCuGbps(const Mi350xModel& model, Route route, int wavesPerCu = 0);

// Bandwidth of N CUs doing loads/stores: their summed rate, smoothly capped by the share of
// the route (xGMI link, PCIe, half the HBM) load/store can use; times model.weakness's
// cu and route factors (--sim-weak).
double cuCopyGbps(const Mi350xModel& model, double cus, Route route = Route::Peer, int wavesPerCu = 0);

// Bandwidth of `engines` SDMA engines on one route; times model.weakness's engine and route
// factors (--sim-weak).
double engineCopyGbps(const Mi350xModel& model, int engines, Route route = Route::Peer);

// The SDMA engine (timeline lane) that carries a copy: xgmiEngineId() to a peer, the PCIe
// engine of its direction to or from host, the first xGMI engine for a GPU-local copy.
int engineIdFor(const Mi350xModel& model, int src, int dst, int channel);

// SDMA engines a route has: the 2 PCIe engines to or from host, the 14 xGMI engines otherwise.
int routeEngineCount(const Mi350xModel& model, Route route);

// The largest packet of a path: ROCr's 0x3fffff bytes for engine/host, the 128 MiB chunk
// for engine/device; never above COPY_LINEAR's 1 GiB.
std::uint64_t packetChunkFor(const Mi350xModel& model, CopyPath path);

// Packets needed for a copy of `bytes` on `path` (at least one).
int packetCount(const Mi350xModel& model, std::uint64_t bytes, CopyPath path = CopyPath::EngineHost);

// The xGMI engine that carries src -> dst on a given channel (0 = the default engine).
int xgmiEngineId(const Mi350xModel& model, int srcGpu, int dstGpu, int channel);

// The engines of a split copy, distinct, in the order the pieces take them: engine/host
// --engines N takes N distinct engines of its route from the default one on; engine/device
// channel k's queue sits on xgmiEngineId(k) (channels may share an engine).
std::vector<int> splitEngineIds(const Mi350xModel& model, const CopyRequest& request);

// Why the simulated node cannot run the request's values of the seed's dimensions, or empty.
std::string dimensionProblem(const Mi350xModel& model, const CopyRequest& request);

struct CopyCost {
  double fixedNs = 0;  // time not spent moving bytes: launch, submission, sync, packets
  double gbps = 0;     // rate while moving bytes
  int packets = 0;     // SDMA packets (0 for cu/*)
  int cus = 0;         // CUs that carried or issued the copy
  int engines = 0;
  std::vector<int> engineIds;  // the engines of a split copy (empty when not split)
  bool loadStore = false;      // engine/device whose puts did not take SDMA (--shmem-sdma)

  double nominalNs(std::uint64_t bytes) const { return fixedNs + static_cast<double>(bytes) / gbps; }
};

// The cost of one request, every dimension of it.
CopyCost copyCost(const Mi350xModel& model, const CopyRequest& request);
// The cost with every seed dimension at its default.
CopyCost copyCost(const Mi350xModel& model, CopyPath path, std::uint64_t bytes, int cus, Route route = Route::Peer);

}  // namespace sdma::sim
