#include "sim/copy_model.hpp"

#include <algorithm>
#include <cmath>

namespace sdma::sim {

double cuCopyGbps(const Mi350xModel& model, double cus) {
  const double raw = cus * model.cuGbpsPerCu;
  const double cap = model.cuLinkEfficiency * model.linkGbpsPerDirection();
  const double p = model.cuCapSharpness;
  return 1.0 / std::pow(std::pow(1.0 / raw, p) + std::pow(1.0 / cap, p), 1.0 / p);
}

double engineCopyGbps(const Mi350xModel& model, int engines) {
  return std::min(engines * model.engineMaxGbps, model.engineLinkEfficiency * model.linkGbpsPerDirection());
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

CopyCost copyCost(const Mi350xModel& model, CopyPath path, std::uint64_t bytes, int cus) {
  CopyCost cost;
  switch (path) {
    case CopyPath::CuHost:
      cost.fixedNs = model.hostLaunchNs + model.hostSyncNs;
      cost.gbps = cuCopyGbps(model, cus);
      cost.cus = cus;
      return cost;
    case CopyPath::CuDevice:
      cost.fixedNs = model.deviceSyncNs;
      cost.gbps = cuCopyGbps(model, cus);
      cost.cus = cus;
      return cost;
    case CopyPath::EngineHost:
    case CopyPath::EngineDevice:
      break;
  }
  cost.packets = packetCount(model, bytes);
  cost.engines = model.enginesPerCopy;
  cost.gbps = engineCopyGbps(model, cost.engines);
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
