// The shape the simulated MI350X node must keep (docs/SIMULATOR.md, "Required shape"):
// the extension's charts, crossover and advice are tested against it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <tuple>

#include "backends/sim/copy_model.hpp"
#include "backends/sim/sharing_model.hpp"
#include "backends/sim/sim_backend.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma;
using namespace sdma::sim;

using namespace sdma::testing;

// Mean bandwidth the simulator reports for one work unit (seed 1, 20 iterations).
double measuredGbps(CopyPath path, std::uint64_t bytes, int cus) {
  SimBackend backend(SimOptions{1, 0});
  const CopyMeasurement m = backend.measure(CopyRequest{path, 0, 1, bytes, usesEngine(path) ? 0 : cus, 20, 3});
  const double meanNs = std::accumulate(m.timesNs.begin(), m.timesNs.end(), 0.0) / m.timesNs.size();
  return static_cast<double>(bytes) / meanNs;
}

TEST_CASE("smallCopiesFavourCus") {
  for (int cus : {1, 8, 64}) {
    const std::string tag = " at 4 KiB, " + std::to_string(cus) + " CUs";
    CHECK_MESSAGE((measuredGbps(CopyPath::CuHost, 4 * KiB, cus) > measuredGbps(CopyPath::EngineHost, 4 * KiB, 0)),
                  ("cu/host beats engine/host" + tag));
    CHECK_MESSAGE((measuredGbps(CopyPath::CuDevice, 4 * KiB, cus) > measuredGbps(CopyPath::EngineDevice, 4 * KiB, 0)),
                  ("cu/device beats engine/device" + tag));
  }
}

TEST_CASE("largeCopiesFavourEngines") {
  const double engine = measuredGbps(CopyPath::EngineHost, GiB, 0);
  const double oneCu = measuredGbps(CopyPath::CuHost, GiB, 1);
  const double manyCus = measuredGbps(CopyPath::CuHost, GiB, 64);
  // One CU at its default 16 waves moves 39 GB/s (the H200 one-SM figure); with one wave it
  // moves about a third of a saturated CU (waveSaturation, measured on an H200).
  SimBackend backend(SimOptions{1, 0});
  CopyRequest oneWave{CopyPath::CuHost, 0, 1, GiB, 1, 20, 3};
  oneWave.wavesPerCu = 1;
  const CopyMeasurement m = backend.measure(oneWave);
  const double oneWaveGbps =
      static_cast<double>(GiB) / (std::accumulate(m.timesNs.begin(), m.timesNs.end(), 0.0) / m.timesNs.size());
  CHECK_MESSAGE((engine > 1.4 * oneCu), ("1 GiB: engine/host is ahead of cu/host on 1 CU"));
  CHECK_MESSAGE((engine > 3 * oneWaveGbps), ("1 GiB: engine/host is far ahead of cu/host on 1 CU with 1 wave"));
  CHECK_MESSAGE((engine >= manyCus && engine < 1.15 * manyCus),
                ("1 GiB: engine/host is slightly ahead of cu/host on 64 CUs"));
}

TEST_CASE("hostCrossoverAtOneCu") {
  CHECK_MESSAGE((measuredGbps(CopyPath::CuHost, 128 * KiB, 1) > measuredGbps(CopyPath::EngineHost, 128 * KiB, 0)),
                ("128 KiB: cu/host (1 CU) still beats engine/host"));
  CHECK_MESSAGE((measuredGbps(CopyPath::EngineHost, 2 * MiB, 0) > measuredGbps(CopyPath::CuHost, 2 * MiB, 1)),
                ("2 MiB: engine/host beats cu/host (1 CU)"));
}

TEST_CASE("bandwidthStaysUnderTheCaps") {
  const Mi350xModel model;
  bool underPathCap = true;
  bool underLink = true;
  for (CopyPath path : kAllCopyPaths) {
    for (std::uint64_t bytes = 4 * KiB; bytes <= GiB; bytes *= 2) {
      for (int cus : {1, 8, 64, 256}) {
        SimBackend backend(SimOptions{7, 0});
        const CopyMeasurement m = backend.measure(CopyRequest{path, 0, 1, bytes, cus, 20, 0});
        const double fastestGbps = static_cast<double>(bytes) / *std::min_element(m.timesNs.begin(), m.timesNs.end());
        const double capGbps = copyCost(model, path, bytes, cus).gbps;
        underPathCap = underPathCap && fastestGbps <= capGbps;
        underLink = underLink && capGbps < model.linkGbpsPerDirection();
      }
    }
  }
  CHECK_MESSAGE((underPathCap), ("no iteration beats its path's rate cap (CU cap 55.14, engine 61 GB/s)"));
  CHECK_MESSAGE((underLink), ("no path's rate cap reaches the xGMI link (76.8 GB/s per direction)"));
}

TEST_CASE("seedsAreDeterministic") {
  const CopyRequest request{CopyPath::CuHost, 0, 1, MiB, 8, 20, 3};
  SimBackend first(SimOptions{42, 0});
  SimBackend again(SimOptions{42, 0});
  SimBackend other(SimOptions{43, 0});
  CHECK_MESSAGE((first.measure(request).timesNs == again.measure(request).timesNs),
                ("the same seed gives the same times"));
  CHECK_MESSAGE((first.measure(request).timesNs != other.measure(request).timesNs), ("another seed gives other times"));
}

TEST_CASE("timelineMatchesTheCostModel") {
  const Mi350xModel model;
  for (CopyPath path : {CopyPath::EngineHost, CopyPath::EngineDevice}) {
    SimBackend backend(SimOptions{1, 0});
    TimelineEvents events;
    backend.recordTimeline(TimelineRequest{{path}, 0, 1, GiB, 64, 1}, events);
    const double lastPacketEndNs = *std::max_element(events.endNs.begin(), events.endNs.end());
    const double tailNs = path == CopyPath::EngineHost ? model.engineHostCompletionNs : 0;
    const double nominalNs = copyCost(model, path, GiB, 0).nominalNs(GiB);
    const bool agrees = std::abs(lastPacketEndNs + tailNs - nominalNs) < 2.0;
    const auto packets =
        std::count(events.kind.begin(), events.kind.end(), static_cast<std::uint8_t>(EventKind::Packet));
    // engine/device is drawn as a real AMD GPU shows it: one inferred packet spanning the copy.
    // engine/host: ROCr's packets of at most 0x3fffff bytes, 257 for 1 GiB.
    const long expected = path == CopyPath::EngineHost ? 257 : 1;
    CHECK_MESSAGE(
        (agrees && packets == expected),
        (std::string(pathName(path)) + " timeline: " + std::to_string(expected) + " packet(s), span = cost model"));
  }
}

TEST_CASE("timelineEventCountIsExact") {
  SimBackend backend(SimOptions{1, 0});
  bool exact = true;
  for (std::uint64_t bytes : {std::uint64_t{3}, 4 * KiB, 200 * MiB, GiB}) {
    const TimelineRequest request{{kAllCopyPaths.begin(), kAllCopyPaths.end()}, 2, 5, bytes, 64, 3};
    TimelineEvents events;
    backend.recordTimeline(request, events);
    exact = exact && events.size() == backend.timelineEventCount(request);
  }
  CHECK_MESSAGE((exact), ("timelineEventCount() predicts the events recorded"));
}

// Every ordered pair of the first `gpus` GPUs on one path, as matrix --concurrent asks.
std::vector<CopyRequest> allPairs(CopyPath path, int gpus, int cus) {
  std::vector<CopyRequest> out;
  for (int s = 0; s < gpus; ++s) {
    for (int d = 0; d < gpus; ++d) {
      if (s != d) out.push_back({path, s, d, 256 * MiB, cus, 5, 1});
    }
  }
  return out;
}

bool allNear(const std::vector<SharedRate>& rates, double gbps) {
  return std::all_of(rates.begin(), rates.end(), [&](const SharedRate& r) { return std::abs(r.gbps - gbps) < 1e-6; });
}

TEST_CASE("copiesAtTheSameTimeShareTheFabric") {
  const Mi350xModel model;
  // 7 engines at 61 GB/s want 427 of a GPU's 400 GB/s: each keeps 400 / 7.
  const auto engines = sharedRates(model, allPairs(CopyPath::EngineHost, 8, 0));
  CHECK_MESSAGE((allNear(engines, 400.0 / 7)),
                ("8 GPUs at once: engine/host pairs share the 400 GB/s fabric (57.14 each)"));
  CHECK_MESSAGE((engines[0].sharedBy == std::vector<std::string>{"fabric-out"}), ("the cut is named: fabric-out"));
  // 3 peers: 183 GB/s fits; nothing is shared.
  const auto few = sharedRates(model, allPairs(CopyPath::EngineHost, 4, 0));
  CHECK_MESSAGE((allNear(few, 61) && few[0].sharedBy.empty()), ("4 GPUs at once: engine/host pairs keep 61 GB/s"));
  // 64 CUs x 7 = 448 > 256: each gets 36.6 CUs, still at the load/store cap (55.14 GB/s, fitted
  // to TransferBench's all-to-all): 7 x 55.14 = 386 GB/s fits the fabric; nothing is cut.
  const auto cus64 = sharedRates(model, allPairs(CopyPath::CuHost, 8, 64));
  CHECK_MESSAGE((std::abs(cus64[0].effectiveCus - 64 * 256.0 / 448) < 1e-9),
                ("448 CUs asked of 256: each copy gets 36.6"));
  CHECK_MESSAGE((allNear(cus64, cuCopyGbps(model, 64.0)) && cus64[0].sharedBy.empty()),
                ("8 GPUs, 64 CUs a pair: still the load/store cap, unshared"));
  // 16 CUs a pair: 7 x 55.14 = 386 GB/s, TransferBench's a2a point: nothing shared.
  const auto cus16 = sharedRates(model, allPairs(CopyPath::CuHost, 8, 16));
  CHECK_MESSAGE((allNear(cus16, cuCopyGbps(model, 16.0)) && cus16[0].sharedBy.empty()),
                ("16 CUs a pair: 55.14 GB/s, unshared"));
  CHECK_MESSAGE((std::abs(7 * cuCopyGbps(model, 16.0) - 386) < 0.5), ("7 pairs of 16 CUs: TransferBench's 386 GB/s"));
}

// Mean bandwidth of one unit between any two endpoints (seed 1, 20 iterations).
double pairGbps(CopyPath path, int src, int dst, std::uint64_t bytes, int cus, int simGpus = 1) {
  Mi350xModel model;
  model.gpuCount = simGpus;
  SimBackend backend(SimOptions{1, 0}, model);
  const CopyMeasurement m = backend.measure(CopyRequest{path, src, dst, bytes, usesEngine(path) ? 0 : cus, 20, 3});
  if (m.status != RunStatus::Ok || m.timesNs.empty()) return -1;
  const double meanNs = std::accumulate(m.timesNs.begin(), m.timesNs.end(), 0.0) / m.timesNs.size();
  return static_cast<double>(bytes) / meanNs;
}

bool within(double value, double low, double high) { return value >= low && value <= high; }

// docs/SIMULATOR.md, "Host and GPU-local copies": the documented ranges at 1 GiB.
TEST_CASE("hostAndLocalCopiesStayInTheirRanges") {
  const int host = kHostEndpoint;
  for (const auto& [src, dst, name] : {std::tuple{host, 0, "host -> GPU 0"}, std::tuple{0, host, "GPU 0 -> host"}}) {
    const double engine = pairGbps(CopyPath::EngineHost, src, dst, GiB, 0);
    CHECK_MESSAGE((within(engine, 50, 56)),
                  (std::string(name) + ": engine/host at 1 GiB in 50..56 GB/s (" + std::to_string(engine) + ")"));
    const double cus256 = pairGbps(CopyPath::CuHost, src, dst, GiB, 256);
    CHECK_MESSAGE(
        (within(cus256, 40, engine)),
        (std::string(name) + ": cu/host 256 CUs at 1 GiB in 40 GB/s..engine/host (" + std::to_string(cus256) + ")"));
    CHECK_MESSAGE((pairGbps(CopyPath::CuDevice, src, dst, GiB, 256) < 64),
                  (std::string(name) + ": cu/device under PCIe's 64 GB/s"));
    CHECK_MESSAGE((pairGbps(CopyPath::EngineDevice, src, dst, GiB, 0) < 0),
                  (std::string(name) + ": engine/device refused"));
  }
  const double local = pairGbps(CopyPath::CuHost, 0, 0, GiB, 256);
  CHECK_MESSAGE((within(local, 2000, 4000)),
                ("GPU 0 -> GPU 0: cu/host 256 CUs at 1 GiB in 2..4 TB/s, under HBM/2 (" + std::to_string(local) + ")"));
  CHECK_MESSAGE((pairGbps(CopyPath::CuDevice, 0, 0, GiB, 256) > 2000),
                ("GPU 0 -> GPU 0: cu/device 256 CUs above 2 TB/s"));
  const double localEngine = pairGbps(CopyPath::EngineHost, 0, 0, GiB, 0);
  CHECK_MESSAGE((within(localEngine, 55, 62)),
                ("GPU 0 -> GPU 0: engine/host at the engine's own 61 GB/s (" + std::to_string(localEngine) + ")"));
  CHECK_MESSAGE((pairGbps(CopyPath::EngineDevice, 0, 0, GiB, 0) < 0), ("GPU 0 -> GPU 0: engine/device refused"));
  CHECK_MESSAGE(
      (pairGbps(CopyPath::CuHost, 4, host, 4 * KiB, 8, 8) > pairGbps(CopyPath::EngineHost, 4, host, 4 * KiB, 0, 8)),
      ("GPU 4 -> host at 4 KiB: CUs beat the engine, as between GPUs"));
}

TEST_CASE("topologyFollowsTheGpuCount") {
  for (int gpus : {1, 2, 8}) {
    Mi350xModel model;
    model.gpuCount = gpus;
    const Topology topology = SimBackend(SimOptions{1, 0}, model).topology();
    const auto pcie = std::count_if(topology.links.begin(), topology.links.end(), [](const LinkInfo& l) {
      return l.kind == "pcie" && (isHost(l.src) || isHost(l.dst));
    });
    const auto xgmi =
        std::count_if(topology.links.begin(), topology.links.end(), [](const LinkInfo& l) { return l.kind == "xgmi"; });
    const std::string tag = std::to_string(gpus) + " GPUs: ";
    CHECK_MESSAGE((static_cast<int>(topology.gpus.size()) == gpus), (tag + "that many GPUs"));
    CHECK_MESSAGE((pcie == 2 * gpus && xgmi == gpus * (gpus - 1)),
                  (tag + "a PCIe link each way per GPU, xGMI between all pairs"));
    CHECK_MESSAGE((topology.host && topology.host->numaNodes == 2), (tag + "host with 2 NUMA nodes"));
    CHECK_MESSAGE((topology.gpus.back().numaNode == (gpus > 4 ? 1 : 0)),
                  (tag + "GPUs 0-3 on NUMA node 0, 4-7 on node 1"));
  }
}

}  // namespace
