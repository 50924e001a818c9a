#pragma once

#include <cstdint>

#include "backend/copy_path.hpp"
#include "backends/sim/mi350x_model.hpp"

// Noise-free cost of one copy on the simulated node. The sweep adds noise on top; the
// timeline lays out the same phases, so both views agree on how long a copy takes.
namespace sdma::sim {

// What a copy's bytes cross: an xGMI link to a peer GPU, PCIe to or from pinned host memory,
// or nothing but the GPU's own HBM.
enum class Route { Peer, HostToGpu, GpuToHost, Local };

Route routeOf(int src, int dst);

// Bandwidth of N CUs doing loads/stores: their summed rate, smoothly capped by the share of
// the route (xGMI link, PCIe, half the HBM) load/store can use; times model.weakness's
// cu and route factors (--sim-weak).
double cuCopyGbps(const Mi350xModel& model, double cus, Route route = Route::Peer);

// Bandwidth of `engines` SDMA engines on one route; times model.weakness's engine and route
// factors (--sim-weak).
double engineCopyGbps(const Mi350xModel& model, int engines, Route route = Route::Peer);

// The SDMA engine (timeline lane) that carries a copy: xgmiEngineId() to a peer, the PCIe
// engine of its direction to or from host, the first xGMI engine for a GPU-local copy.
int engineIdFor(const Mi350xModel& model, int src, int dst, int channel);

// Packets needed for a copy (at least one).
int packetCount(const Mi350xModel& model, std::uint64_t bytes);

// The xGMI engine that carries src -> dst on a given channel (0 = the default engine).
int xgmiEngineId(const Mi350xModel& model, int srcGpu, int dstGpu, int channel);

struct CopyCost {
  double fixedNs = 0;  // time not spent moving bytes: launch, submission, sync, packets
  double gbps = 0;     // rate while moving bytes
  int packets = 0;     // SDMA packets (0 for cu/*)
  int cus = 0;         // CUs that carried or issued the copy
  int engines = 0;

  double nominalNs(std::uint64_t bytes) const { return fixedNs + static_cast<double>(bytes) / gbps; }
};

CopyCost copyCost(const Mi350xModel& model, CopyPath path, std::uint64_t bytes, int cus, Route route = Route::Peer);

}  // namespace sdma::sim
