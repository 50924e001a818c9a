// --sim-weak (docs/SIMULATOR.md, "A weak node"): the spec's parser, which host a spec applies
// on, and what a weakness does to the model: the rates of the copies it covers times its
// factor, everything else (fixed costs, noise, other paths and routes) as the model has it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "util/parse.hpp"
#include "backends/sim/copy_model.hpp"
#include "backends/sim/sharing_model.hpp"
#include "backends/sim/sim_backend.hpp"
#include "backends/sim/sim_weak.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma;
using namespace sdma::sim;
using namespace sdma::testing;

bool refused(const std::string& text) {
  try {
    parseSimWeakList("--sim-weak", text);
  } catch (const UsageError& e) {
    // The message names the flag and the accepted form.
    const std::string message = e.what();
    return message.find("--sim-weak: ") == 0 && message.find("WHAT=FACTOR[@HOST]") != std::string::npos;
  }
  return false;
}

TEST_CASE("specsParse") {
  const std::vector<SimWeakSpec> two = parseSimWeakList("--sim-weak", "engine=0.6@n2,link=0.5@n3");
  CHECK_MESSAGE((two.size() == 2 && two[0].what == "engine" && two[0].factor == 0.6 && two[0].host == "n2" &&
                 two[1].what == "link" && two[1].factor == 0.5 && two[1].host == "n3"),
                ("engine=0.6@n2,link=0.5@n3: two specs, each with its host"));
  const std::vector<SimWeakSpec> any = parseSimWeakList("--sim-weak", "pcie=.25");
  CHECK_MESSAGE((any.size() == 1 && any[0].factor == 0.25 && any[0].host.empty()), ("pcie=.25: no host, every host"));
  CHECK_MESSAGE((parseSimWeakList("--sim-weak", "cu=4")[0].factor == 4), ("cu=4: the largest factor is taken"));
  CHECK_MESSAGE((parseSimWeakList("--sim-weak", "cu=0.000001")[0].factor == 0.000001),
                ("cu=0.000001: small factors are exact"));
  for (const char* bad : {"",
                          "engine",
                          "engine=",
                          "engine=0",
                          "engine=0.0",
                          "engine=4.01",
                          "engine=-0.5",
                          "engine=1e-1",
                          "engine=0,5",
                          "engine=0.5,",
                          "gpu=0.5",
                          "ENGINE=0.5",
                          "engine=0.5@",
                          "engine=0.5@n2.cluster",
                          "engine=0.5@n 2",
                          "engine=0.5@n2@n3",
                          "engine=nan",
                          "engine=inf",
                          "=0.5",
                          "engine=0.5x"}) {
    CHECK_MESSAGE((refused(bad)), (std::string("refused with the accepted form: '") + bad + "'"));
  }
}

TEST_CASE("hostsDecide") {
  const std::vector<SimWeakSpec> specs =
      parseSimWeakList("--sim-weak", "engine=0.6@n2,engine=0.5@n2,link=0.5@n3,pcie=0.8");
  const SimWeakness n2 = weaknessOnHost(specs, "n2");
  CHECK_MESSAGE((std::abs(n2.engine - 0.3) < 1e-15 && n2.link == 1 && n2.pcie == 0.8 && n2.cu == 1),
                ("on n2: the two engine factors multiply (0.3), the host-less pcie applies, n3's link does not"));
  const SimWeakness n3 = weaknessOnHost(specs, "n3");
  CHECK_MESSAGE((n3.engine == 1 && n3.link == 0.5 && n3.pcie == 0.8), ("on n3: its link and the host-less pcie"));
  const SimWeakness other = weaknessOnHost(parseSimWeakList("--sim-weak", "engine=0.5@n2"), "n22");
  CHECK_MESSAGE((!other.any()), ("on n22 a spec for n2 changes nothing (whole names, not prefixes)"));
  const std::string message = describeWeakness(n2, "n2");
  CHECK_MESSAGE((message.find("host n2") != std::string::npos && message.find("engine copies") != std::string::npos &&
                 message.find("0.3x") != std::string::npos && message.find("0.8x") != std::string::npos &&
                 message.find("CU copies") == std::string::npos),
                ("the warning names the host, what is weakened and by what factor, and only that: " + message));
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

TEST_CASE("ratesFollowTheWeakness") {
  const Mi350xModel plain;
  Mi350xModel engine;
  engine.weakness.engine = 0.5;
  Mi350xModel link;
  link.weakness.link = 0.5;
  Mi350xModel pcie;
  pcie.weakness.pcie = 0.25;
  bool engineOk = true, linkOk = true, pcieOk = true;
  for (Route route : {Route::Peer, Route::HostToGpu, Route::GpuToHost, Route::Local}) {
    const bool peer = route == Route::Peer;
    const bool host = route == Route::HostToGpu || route == Route::GpuToHost;
    for (int cus : {1, 16, 256}) {
      engineOk = engineOk && near(engineCopyGbps(engine, 1, route), 0.5 * engineCopyGbps(plain, 1, route)) &&
                 cuCopyGbps(engine, cus, route) == cuCopyGbps(plain, cus, route);
      const double linkFactor = peer ? 0.5 : 1;
      linkOk = linkOk && near(engineCopyGbps(link, 1, route), linkFactor * engineCopyGbps(plain, 1, route)) &&
               near(cuCopyGbps(link, cus, route), linkFactor * cuCopyGbps(plain, cus, route));
      const double pcieFactor = host ? 0.25 : 1;
      pcieOk = pcieOk && near(engineCopyGbps(pcie, 1, route), pcieFactor * engineCopyGbps(plain, 1, route)) &&
               near(cuCopyGbps(pcie, cus, route), pcieFactor * cuCopyGbps(plain, cus, route));
    }
  }
  CHECK_MESSAGE((engineOk), ("engine=0.5: engine copies at half rate on every route, CU copies as the model has them"));
  CHECK_MESSAGE((linkOk), ("link=0.5: every path between GPUs at half rate; host and GPU-local copies untouched"));
  CHECK_MESSAGE((pcieOk), ("pcie=0.25: every path to or from host at a quarter; GPU <-> GPU and local untouched"));
  Mi350xModel cu;
  cu.weakness.cu = 0.5;
  cu.weakness.link = 0.5;
  CHECK_MESSAGE((near(cuCopyGbps(cu, 64), 0.25 * cuCopyGbps(plain, 64)) &&
                 near(engineCopyGbps(cu, 1, Route::Peer), 0.5 * engineCopyGbps(plain, 1, Route::Peer))),
                ("cu=0.5 with link=0.5: CU copies between GPUs at a quarter, engine copies at half"));
  const CopyCost weakCost = copyCost(engine, CopyPath::EngineHost, GiB, 0);
  const CopyCost plainCost = copyCost(plain, CopyPath::EngineHost, GiB, 0);
  CHECK_MESSAGE((weakCost.fixedNs == plainCost.fixedNs && near(weakCost.gbps, 0.5 * plainCost.gbps)),
                ("the fixed costs stay the model's; only the rate is cut"));
}

CopyMeasurement measureOn(const Mi350xModel& model, CopyPath path) {
  SimBackend backend(SimOptions{1, 0}, model);
  return backend.measure(CopyRequest{path, 0, 1, GiB, usesEngine(path) ? 0 : 64, 20, 3});
}

TEST_CASE("measuredTimesStretchByTheFactor") {
  const Mi350xModel plain;
  Mi350xModel engine;
  engine.weakness.engine = 0.5;
  // The same seed draws the same noise: each iteration's transfer takes twice as long, its
  // fixed part (64.5 us with ROCr's 257 packets, of about 17.6 ms at 1 GiB) the same, so the
  // ratio sits just under 2.
  const CopyMeasurement a = measureOn(plain, CopyPath::EngineHost);
  const CopyMeasurement b = measureOn(engine, CopyPath::EngineHost);
  bool doubled = a.timesNs.size() == b.timesNs.size() && !a.timesNs.empty();
  for (std::size_t i = 0; doubled && i < a.timesNs.size(); ++i) {
    const double ratio = b.timesNs[i] / a.timesNs[i];
    doubled = ratio < 2 && ratio > 2 * (1 - 0.005);
  }
  CHECK_MESSAGE((doubled), ("engine=0.5: every engine/host iteration at 1 GiB takes 2x (within the 0.4 % fixed part)"));
  CHECK_MESSAGE((measureOn(plain, CopyPath::CuHost).timesNs == measureOn(engine, CopyPath::CuHost).timesNs),
                ("engine=0.5: cu/host iterations identical to the model's"));
  CHECK_MESSAGE((measureOn(Mi350xModel{}, CopyPath::CuDevice).timesNs == measureOn(plain, CopyPath::CuDevice).timesNs),
                ("no weakness: the same times as the model"));
}

TEST_CASE("timelineStretchesToo") {
  Mi350xModel engine;
  engine.weakness.engine = 0.5;
  const auto lastEnd = [](const Mi350xModel& model) {
    SimBackend backend(SimOptions{1, 0}, model);
    TimelineEvents events;
    backend.recordTimeline(TimelineRequest{{CopyPath::EngineHost}, 0, 1, GiB, 64, 1}, events);
    return *std::max_element(events.endNs.begin(), events.endNs.end());
  };
  const double nominal = copyCost(engine, CopyPath::EngineHost, GiB, 0).nominalNs(GiB) - engine.engineHostCompletionNs;
  CHECK_MESSAGE((std::abs(lastEnd(engine) - nominal) < 2.0),
                ("the timeline of a weak engine spans the weak cost model"));
}

TEST_CASE("sharingStartsFromTheWeakRates") {
  std::vector<CopyRequest> pairs;
  for (int s = 0; s < 8; ++s) {
    for (int d = 0; d < 8; ++d) {
      if (s != d) pairs.push_back({CopyPath::EngineHost, s, d, 256 * MiB, 0, 5, 1});
    }
  }
  Mi350xModel link;
  link.weakness.link = 0.5;
  // 7 engines at 30.5 GB/s want 213.5 of the fabric's 400: nothing is cut any more.
  const std::vector<SharedRate> rates = sharedRates(link, pairs);
  const auto weakAndUnshared = [](const SharedRate& r) { return near(r.gbps, 30.5) && r.sharedBy.empty(); };
  CHECK_MESSAGE((std::all_of(rates.begin(), rates.end(), weakAndUnshared)),
                ("link=0.5, 8 GPUs at once: each engine/host pair keeps its weak 30.5 GB/s, unshared"));
}

}  // namespace
