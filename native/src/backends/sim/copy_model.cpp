#include "backends/sim/copy_model.hpp"

#include <algorithm>
#include <cmath>

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

// 1 / (1/a^p + 1/b^p)^(1/p): below both, close to the smaller one away from the knee.
double smoothMin(double a, double b, double p) {
  return 1.0 / std::pow(std::pow(1.0 / a, p) + std::pow(1.0 / b, p), 1.0 / p);
}

bool isHostRoute(Route route) { return route == Route::HostToGpu || route == Route::GpuToHost; }

// Packets of `pieces` pieces that share `bytes` as evenly as whole bytes allow.
int packetsOfPieces(std::uint64_t bytes, int pieces, std::uint64_t chunk) {
  const std::uint64_t share = bytes / static_cast<std::uint64_t>(pieces);
  const std::uint64_t remainder = bytes % static_cast<std::uint64_t>(pieces);
  const auto packetsOf = [&](std::uint64_t b) {
    return static_cast<int>(std::max<std::uint64_t>(1, (b + chunk - 1) / chunk));
  };
  return static_cast<int>(remainder) * packetsOf(share + 1) + (pieces - static_cast<int>(remainder)) * packetsOf(share);
}

// engine/device puts that rocSHMEM does not give to SDMA: loads/stores of the issuing kernel.
bool putsByLoadStore(const Mi350xModel& model, const CopyRequest& request) {
  if (request.path != CopyPath::EngineDevice) return false;
  switch (request.shmemSdma) {
    case ShmemSdma::Forced:
      return false;
    case ShmemSdma::Library:
      return request.sizeBytes < model.shmemSdmaThresholdBytes;
    case ShmemSdma::Off:
      return true;
  }
  return false;
}

CopyCost costOf(const Mi350xModel& model, const CopyRequest& request, Route route) {
  CopyCost cost;
  const std::uint64_t bytes = request.sizeBytes;
  switch (request.path) {
    case CopyPath::CuHost:
      cost.fixedNs = model.hostLaunchNs + model.hostSyncNs;
      cost.gbps = cuCopyGbps(model, request.cus, route, request.wavesPerCu);
      cost.cus = request.cus;
      return cost;
    case CopyPath::CuDevice:
      cost.fixedNs = model.deviceSyncNs;
      cost.gbps = cuCopyGbps(model, request.cus, route, request.wavesPerCu);
      cost.cus = request.cus;
      return cost;
    case CopyPath::EngineHost:
    case CopyPath::EngineDevice:
      break;
  }
  const int issuingWaves = std::max(1, request.wavesPerCu);
  if (putsByLoadStore(model, request)) {
    // The issuing kernel stores the bytes itself: one CU at the kernel's waves, synchronised
    // in-kernel as cu/device is.
    cost.loadStore = true;
    cost.fixedNs = model.deviceSyncNs;
    cost.gbps = cuCopyGbps(model, 1, route, issuingWaves);
    cost.cus = 1;
    return cost;
  }
  const std::uint64_t chunk = packetChunkFor(model, request.path);
  int engines = model.enginesPerCopy;
  int submits = 1;
  if (request.path == CopyPath::EngineHost && request.batch > 0) {
    // One batched call: one submission for the batch, its pieces' packets on the one engine
    // the runtime picks (assumption: it does not spread a batch over engines).
    cost.packets = packetsOfPieces(bytes, request.batch, chunk);
  } else {
    const int split = std::max(1, request.split);
    cost.packets = packetsOfPieces(bytes, split, chunk);
    if (split > 1) {
      cost.engineIds = splitEngineIds(model, request);
      engines = static_cast<int>(cost.engineIds.size());
      // engine/host: one host thread submits each piece as its own call, one after another.
      if (request.path == CopyPath::EngineHost) submits = split;
    }
  }
  cost.engines = engines;
  // Pieces on the same engine share it; the last piece ends when the engines have moved it all.
  cost.gbps = engineCopyGbps(model, engines, route);
  // Both initiators write every packet, ring a doorbell and wait for the engine's fixed cost.
  cost.fixedNs = cost.packets * model.packetIssueNs + model.doorbellNs + model.engineFixedNs;
  if (request.path == CopyPath::EngineHost) {
    cost.fixedNs += submits * model.engineHostSubmitNs + model.engineHostCompletionNs;
    cost.cus = 0;
  } else {
    cost.fixedNs += (issuingWaves - 1) * model.putBarrierNsPerWave;
    cost.cus = 1;  // the CU that writes the packets and rings the doorbell
  }
  return cost;
}

}  // namespace

Route routeOf(int src, int dst) {
  if (isHost(src)) return Route::HostToGpu;
  if (isHost(dst)) return Route::GpuToHost;
  return src == dst ? Route::Local : Route::Peer;
}

double cuPerCuGbps(const Mi350xModel& model, Route route, int wavesPerCu) {
  double perCu = model.cuPeerGbpsPerCu;
  if (route == Route::HostToGpu) perCu = model.cuHostToGpuGbpsPerCu;
  if (route == Route::GpuToHost) perCu = model.cuGpuToHostGbpsPerCu;
  if (route == Route::Local) perCu = model.cuLocalGbpsPerCu;
  const double perWave = perCu / model.defaultWavesPerCu * model.waveSaturation;
  const int waves = wavesPerCu > 0 ? wavesPerCu : model.defaultWavesPerCu;
  return smoothMin(waves * perWave, perCu, model.cuCapSharpness);
}

double cuCopyGbps(const Mi350xModel& model, double cus, Route route, int wavesPerCu) {
  double cap = model.cuLinkEfficiency * model.linkGbpsPerDirection();
  if (isHostRoute(route)) {
    cap = model.pcieCuEfficiency * model.pcieGbpsPerDirection;
  } else if (route == Route::Local) {
    cap = model.localCopyEfficiency * model.hbmGbps / 2;
  }
  const double gbps = smoothMin(cus * cuPerCuGbps(model, route, wavesPerCu), cap, model.cuCapSharpness);
  // A weak node (--sim-weak) on top of the model; x 1 leaves every number as it was.
  return gbps * model.weakness.cu * routeWeakness(model.weakness, route);
}

double engineCopyGbps(const Mi350xModel& model, int engines, Route route) {
  double cap = model.engineLinkEfficiency * model.linkGbpsPerDirection();
  if (isHostRoute(route)) {
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

int routeEngineCount(const Mi350xModel& model, Route route) {
  return isHostRoute(route) ? model.pcieEnginesPerGpu : model.xgmiEnginesPerGpu;
}

std::uint64_t packetChunkFor(const Mi350xModel& model, CopyPath path) {
  const std::uint64_t chunk = path == CopyPath::EngineHost ? model.rocrSdmaCopyMaxBytes : model.packetChunkBytes;
  return std::min(chunk, model.copyLinearMaxBytes);
}

int packetCount(const Mi350xModel& model, std::uint64_t bytes, CopyPath path) {
  const std::uint64_t chunk = packetChunkFor(model, path);
  return static_cast<int>(std::max<std::uint64_t>(1, (bytes + chunk - 1) / chunk));
}

int xgmiEngineId(const Mi350xModel& model, int srcGpu, int dstGpu, int channel) {
  // ROCr spreads peers over the xGMI engines: peer p takes the p-th engine, and extra
  // channels take the next bank of (gpuCount - 1) engines.
  const int peers = std::max(1, model.gpuCount - 1);
  const int peer = dstGpu < srcGpu ? dstGpu : dstGpu - 1;
  const int slot = (peer + channel * peers) % model.xgmiEnginesPerGpu;
  return model.pcieEnginesPerGpu + slot;
}

std::vector<int> splitEngineIds(const Mi350xModel& model, const CopyRequest& request) {
  std::vector<int> ids;
  const int split = std::max(1, request.split);
  const Route route = routeOf(request.srcGpu, request.dstGpu);
  for (int k = 0; k < split; ++k) {
    int id = 0;
    if (request.path == CopyPath::EngineDevice) {
      id = xgmiEngineId(model, request.srcGpu, request.dstGpu, k);
    } else {
      // The route's engines from the copy's default one on, each piece its own.
      const int count = routeEngineCount(model, route);
      const int first = isHostRoute(route) ? 0 : model.pcieEnginesPerGpu;
      const int start = engineIdFor(model, request.srcGpu, request.dstGpu, 0) - first;
      id = first + (start + k) % count;
    }
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

std::string dimensionProblem(const Mi350xModel& model, const CopyRequest& request) {
  const Route route = routeOf(request.srcGpu, request.dstGpu);
  if (request.batch > 0 && request.path != CopyPath::EngineHost) {
    return "--batch is a batched host call: only engine/host has one";
  }
  if (request.split > 1 && !usesEngine(request.path)) {
    return "--engines splits an engine copy: cu/* copies are split over CUs (--cus)";
  }
  if (request.path == CopyPath::EngineHost && request.split > routeEngineCount(model, route)) {
    const int count = routeEngineCount(model, route);
    if (isHostRoute(route)) {
      return "--engines " + std::to_string(request.split) + ": a host <-> GPU copy has " + std::to_string(count) +
             " PCIe SDMA engines (ids 0.." + std::to_string(count - 1) + "); give --engines 1.." +
             std::to_string(count) + " for this pair";
    }
    return "--engines " + std::to_string(request.split) + ": a GPU has " + std::to_string(count) +
           " xGMI SDMA engines (ids " + std::to_string(model.pcieEnginesPerGpu) + ".." +
           std::to_string(model.pcieEnginesPerGpu + count - 1) + "); give --engines 1.." + std::to_string(count);
  }
  if (request.path == CopyPath::EngineDevice && request.split > model.shmemSdmaChannelsMax) {
    return "--engines " + std::to_string(request.split) + ": rocSHMEM has 1.." +
           std::to_string(model.shmemSdmaChannelsMax) +
           " SDMA channels per destination (ROCSHMEM_SDMA_NUM_CHANNELS); give --engines 1.." +
           std::to_string(model.shmemSdmaChannelsMax) + " for engine/device";
  }
  return {};
}

CopyCost copyCost(const Mi350xModel& model, const CopyRequest& request) {
  return costOf(model, request, routeOf(request.srcGpu, request.dstGpu));
}

CopyCost copyCost(const Mi350xModel& model, CopyPath path, std::uint64_t bytes, int cus, Route route) {
  CopyRequest request;
  request.path = path;
  request.sizeBytes = bytes;
  request.cus = cus;
  return costOf(model, request, route);
}

}  // namespace sdma::sim
