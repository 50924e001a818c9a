#include "backends/sim/sim_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "util/cancel.hpp"
#include "util/host_name.hpp"
#include "util/heartbeat.hpp"
#include "util/rng.hpp"
#include "backends/sim/copy_model.hpp"
#include "backends/sim/sharing_model.hpp"
#include "backends/sim/sim_timeline.hpp"
#include "backend/validation.hpp"

namespace sdma::sim {

namespace {

Topology buildTopology(const Mi350xModel& model) {
  Topology topology;
  topology.node = {"simulated MI350X node", "amd", "AMD Instinct MI350X", true, hostName()};
  topology.host = HostInfo{model.hostNumaNodes};
  for (int index = 0; index < model.gpuCount; ++index) {
    GpuInfo gpu;
    gpu.index = index;
    gpu.name = model.gpuName;
    gpu.arch = model.arch;
    gpu.cus = model.cusPerGpu;
    gpu.memoryBytes = model.memoryBytes;
    gpu.numaNode = std::min(index / model.gpusPerNumaNode, model.hostNumaNodes - 1);
    for (int id = 0; id < model.pcieEnginesPerGpu; ++id) gpu.engines.push_back({id, "pcie", std::nullopt});
    for (int k = 0; k < model.xgmiEnginesPerGpu; ++k) {
      gpu.engines.push_back({model.pcieEnginesPerGpu + k, "xgmi", model.engineMaxGbps});
    }
    topology.gpus.push_back(gpu);
  }
  // One entry per direction, so a reader finds (src, dst) without assuming symmetry.
  for (int src = 0; src < model.gpuCount; ++src) {
    for (int dst = 0; dst < model.gpuCount; ++dst) {
      if (src != dst)
        topology.links.push_back({src, dst, "xgmi", model.xgmiLinksPerPeer, model.linkGbpsPerDirection()});
    }
  }
  // Host <-> GPU: one PCIe Gen5 x16 link per GPU, each direction its own entry.
  for (int gpu = 0; gpu < model.gpuCount; ++gpu) {
    topology.links.push_back({kHostEndpoint, gpu, "pcie", 1, model.pcieGbpsPerDirection});
    topology.links.push_back({gpu, kHostEndpoint, "pcie", 1, model.pcieGbpsPerDirection});
  }
  return topology;
}

// Each work unit gets its own random stream, derived from what it measures: a unit's
// numbers do not depend on which other units the sweep runs, or in which order.
std::uint64_t unitSeed(std::uint64_t seed, const CopyRequest& request) {
  std::uint64_t s = mixSeed(seed, static_cast<std::uint64_t>(request.path));
  s = mixSeed(s, request.sizeBytes);
  s = mixSeed(s, static_cast<std::uint64_t>(request.cus));
  s = mixSeed(s, static_cast<std::uint64_t>(request.srcGpu));
  s = mixSeed(s, static_cast<std::uint64_t>(request.dstGpu));
  // The seed's dimensions mix in only when not the default, so a unit without them keeps the
  // stream it had before they existed.
  if (request.wavesPerCu > 0) s = mixSeed(s, 0x1000u + static_cast<std::uint64_t>(request.wavesPerCu));
  if (request.split > 1) s = mixSeed(s, 0x2000u + static_cast<std::uint64_t>(request.split));
  if (request.batch > 0) s = mixSeed(s, 0x3000u + static_cast<std::uint64_t>(request.batch));
  if (request.shmemSdma != ShmemSdma::Forced) s = mixSeed(s, 0x4000u + static_cast<std::uint64_t>(request.shmemSdma));
  // The runtime default series is its own run of copies: its own noise.
  return request.series.empty() ? s : mixSeed(s, request.series.size());
}

// --sim-delay-ms: a unit that takes this long, as slow hardware would. It is work, not a
// hang, so it beats like work does. False once cancelled.
bool delayUnit(std::int64_t ms) {
  constexpr std::chrono::milliseconds kSlice{250};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (auto now = std::chrono::steady_clock::now(); now < deadline; now = std::chrono::steady_clock::now()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (!cancel::sleepFor(std::min(left, kSlice))) return false;
    heartbeat();
  }
  return true;
}

}  // namespace

std::string SimBackend::dimensionUnsupported(const CopyRequest& request) const {
  return dimensionProblem(model_, request);
}

SimBackend::SimBackend(SimOptions options, Mi350xModel model)
    : model_(model), options_(options), topology_(buildTopology(model_)) {}

CopyMeasurement SimBackend::measure(const CopyRequest& request) {
  CopyMeasurement result;
  if (!delayUnit(options_.delayMsPerUnit)) {
    result.status = RunStatus::Cancelled;
    return result;
  }
  if (const std::string reason = pathUnsupported(request.path, request.srcGpu, request.dstGpu); !reason.empty()) {
    result.status = RunStatus::Failed;
    result.errorCode = "unsupported";
    result.failure = reason;
    return result;
  }
  if (const std::string reason = dimensionUnsupported(request); !reason.empty()) {
    result.status = RunStatus::Failed;
    result.errorCode = "unsupported";
    result.failure = reason;
    return result;
  }
  const CopyCost cost = copyCost(model_, request);
  return drawCopy(request, cost, cost.gbps);
}

ConcurrentMeasurement SimBackend::measureConcurrent(const std::vector<CopyRequest>& requests) {
  ConcurrentMeasurement result;
  // One unit of work is the whole set: it runs at once, so it sleeps once.
  if (!delayUnit(options_.delayMsPerUnit)) {
    result.status = RunStatus::Cancelled;
    return result;
  }
  const std::vector<SharedRate> rates = sharedRates(model_, requests);
  std::size_t iters = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const CopyRequest& request = requests[i];
    // The pair draws from the stream it has alone: where nothing is shared its numbers are
    // the serial cell's, so a difference between the two modes is the sharing, not noise.
    result.pairs.push_back(drawCopy(request, copyCost(model_, request), rates[i].gbps));
    result.bytesPerIteration += request.sizeBytes;
    iters = std::max(iters, result.pairs.back().timesNs.size());
  }
  // All pairs start together at each iteration; it lasts until its slowest copy ends.
  result.windowsNs.assign(iters, 0);
  for (const CopyMeasurement& pair : result.pairs) {
    for (std::size_t k = 0; k < pair.timesNs.size(); ++k) {
      result.windowsNs[k] = std::max(result.windowsNs[k], std::round(pair.timesNs[k]));
    }
  }
  return result;
}

CopyMeasurement SimBackend::drawCopy(const CopyRequest& request, const CopyCost& cost, double gbps) const {
  CopyMeasurement result;
  const double transferNs = static_cast<double>(request.sizeBytes) / gbps;
  const std::uint64_t seed = unitSeed(options_.seed, request);
  Rng rng(seed);
  result.timesNs.reserve(static_cast<std::size_t>(request.iters));
  for (int i = 0; i < request.warmupIters + request.iters; ++i) {
    // Small copies inherit the wider jitter of launches and doorbells, large ones the
    // narrower, slow-side-only jitter of a link at its cap.
    double timeNs = cost.fixedNs * std::exp(model_.fixedJitterSigma * rng.normal()) +
                    transferNs * std::exp(model_.transferJitterSigma * std::abs(rng.normal()));
    if (rng.uniform01() < model_.outlierProbability) {
      timeNs *= 1 + rng.uniform(model_.outlierMinExtra, model_.outlierMaxExtra);
    }
    // Warmup iterations draw from the stream like real ones but are not reported.
    if (i >= request.warmupIters) result.timesNs.push_back(timeNs);
  }

  const std::size_t checkBytes =
      static_cast<std::size_t>(std::min<std::uint64_t>(request.sizeBytes, model_.validationMaxBytes));
  if (const auto problem = validateHostCopy(checkBytes, seed, request.corruptCopy)) {
    result.status = RunStatus::ValidationFailed;
    result.failure = *problem;
    return result;
  }
  result.validated = true;
  result.cus = cost.cus;
  result.engines = cost.engines;
  if (request.split > 1) {
    result.engineIds = cost.engineIds;
    result.splitOver = request.path == CopyPath::EngineDevice ? "channels" : "engines";
  }
  if (request.wavesPerCu > 0) {
    result.wavesPerCu = request.wavesPerCu;
    result.waveSize = model_.waveSize;
  }
  // Puts that rocSHMEM gave to the kernel's loads/stores (--shmem-sdma) carry no engine
  // evidence: the model says no engine moved them, which the engine label cannot match.
  if (!cost.loadStore) result.evidence = simulatedEvidence(request);
  return result;
}

MoverEvidence SimBackend::simulatedEvidence(const CopyRequest& request) {
  // The model's own answer, so the views and checks that read evidence can be exercised
  // without a GPU; --fault mislabel-after shows what a contradiction looks like.
  MoverEvidence e;
  e.source = EvidenceSource::Simulated;
  e.observed = request.mislabel ? ObservedMover::Cu : labelledMover(request.path);
  e.detail = request.mislabel ? "simulated: a CU copy kernel carried the bytes (--fault mislabel-after)"
                              : "simulated: the model carried the bytes as labelled";
  return e;
}

std::uint64_t SimBackend::timelineEventCount(const TimelineRequest& request) const {
  return simTimelineEventCount(model_, request);
}

RunStatus SimBackend::recordTimeline(const TimelineRequest& request, TimelineEvents& out) {
  return appendSimTimeline(model_, request, options_.seed, out);
}

}  // namespace sdma::sim
