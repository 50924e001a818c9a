#include "backends/sim/copy_model.hpp"

#include <algorithm>
#include <cmath>

#include "backend/backend.hpp"

namespace sdma::sim {

namespace {

// --sim-weak's factor for the route a copy's bytes cross (a GPU-local copy crosses neither).
double routeWeakness(const SimWeakness& weakness, Route route) {
  switch (route) {
    case Route::Peer:
      return weakness.link;
    case Route::HostToGpu:
    case Route::GpuToHost:
      return weakness.pcie;
    case Route::Local:
      break;
  }
  return 1;
}

}  // namespace

Route routeOf(int src, int dst) {
  if (isHost(src)) return Route::HostToGpu;
  if (isHost(dst)) return Route::GpuToHost;
  return src == dst ? Route::Local : Route::Peer;
}

double cuCopyGbps(const Mi350xModel& model, double cus, Route route) {
  double perCu = model.cuGbpsPerCu;
  double cap = model.cuLinkEfficiency * model.linkGbpsPerDirection();
  if (route == Route::HostToGpu || route == Route::GpuToHost) {
    perCu = model.cuPcieGbpsPerCu;
    cap = model.pcieCuEfficiency * model.pcieGbpsPerDirection;
  } else if (route == Route::Local) {
    perCu = model.cuLocalGbpsPerCu;
    cap = model.localCopyEfficiency * model.hbmGbps / 2;
  }
  const double raw = cus * perCu;
  const double p = model.cuCapSharpness;
  const double gbps = 1.0 / std::pow(std::pow(1.0 / raw, p) + std::pow(1.0 / cap, p), 1.0 / p);
  // A weak node (--sim-weak) on top of the model; x 1 leaves every number as it was.
  return gbps * model.weakness.cu * routeWeakness(model.weakness, route);
}

double engineCopyGbps(const Mi350xModel& model, int engines, Route route) {
  double cap = model.engineLinkEfficiency * model.linkGbpsPerDirection();
  if (route == Route::HostToGpu || route == Route::GpuToHost) {
    cap = model.pcieEngineEfficiency * model.pcieGbpsPerDirection;
  } else if (route == Route::Local) {
    // No link in the way: the engine's own rate, under the HBM's.
    cap = model.localCopyEfficiency * model.hbmGbps / 2;
  }
  const double gbps = std::min(engines * model.engineMaxGbps, cap);
  return gbps * model.weakness.engine * routeWeakness(model.weakness, route);
}

int engineIdFor(const Mi350xModel& model, int src, int dst, int channel) {
  switch (routeOf(src, dst)) {
    case Route::HostToGpu:
      return 0;
    case Route::GpuToHost:
      return model.pcieEnginesPerGpu > 1 ? 1 : 0;
    case Route::Local:
      return model.pcieEnginesPerGpu + channel % model.xgmiEnginesPerGpu;
    case Route::Peer:
      break;
  }
  return xgmiEngineId(model, src, dst, channel);
}

int packetCount(const Mi350xModel& model, std::uint64_t bytes) {
  const std::uint64_t chunk = std::min(model.packetChunkBytes, model.copyLinearMaxBytes);
  return static_cast<int>(std::max<std::uint64_t>(1, (bytes + chunk - 1) / chunk));
}

int xgmiEngineId(const Mi350xModel& model, int srcGpu, int dstGpu, int channel) {
  // ROCr spreads peers over the xGMI engines: peer p takes the p-th engine, and extra
  // channels take the next bank of (gpuCount - 1) engines.
  const int peers = model.gpuCount - 1;
  const int peer = dstGpu < srcGpu ? dstGpu : dstGpu - 1;
  const int slot = (peer + channel * peers) % model.xgmiEnginesPerGpu;
  return model.pcieEnginesPerGpu + slot;
}

CopyCost copyCost(const Mi350xModel& model, CopyPath path, std::uint64_t bytes, int cus, Route route) {
  CopyCost cost;
  switch (path) {
    case CopyPath::CuHost:
      cost.fixedNs = model.hostLaunchNs + model.hostSyncNs;
      cost.gbps = cuCopyGbps(model, cus, route);
      cost.cus = cus;
      return cost;
    case CopyPath::CuDevice:
      cost.fixedNs = model.deviceSyncNs;
      cost.gbps = cuCopyGbps(model, cus, route);
      cost.cus = cus;
      return cost;
    case CopyPath::EngineHost:
    case CopyPath::EngineDevice:
      break;
  }
  cost.packets = packetCount(model, bytes);
  cost.engines = model.enginesPerCopy;
  cost.gbps = engineCopyGbps(model, cost.engines, route);
  // Both initiators write every packet, ring a doorbell and wait for the engine's fixed cost.
  cost.fixedNs = cost.packets * model.packetIssueNs + model.doorbellNs + model.engineFixedNs;
  if (path == CopyPath::EngineHost) {
    cost.fixedNs += model.engineHostSubmitNs + model.engineHostCompletionNs;
    cost.cus = 0;
  } else {
    cost.cus = 1;  // the CU that writes the packets and rings the doorbell
  }
  return cost;
}

}  // namespace sdma::sim
