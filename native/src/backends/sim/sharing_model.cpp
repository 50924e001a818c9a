#include "backends/sim/sharing_model.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "backends/sim/copy_model.hpp"

namespace sdma::sim {

namespace {

// A cut smaller than this is rounding, not sharing: it is neither applied nor named.
constexpr double kNoCut = 1 - 1e-12;

void cut(SharedRate& rate, double factor, const char* what) {
  if (factor >= kNoCut) return;
  rate.gbps *= factor;
  rate.sharedBy.emplace_back(what);
}

}  // namespace

std::vector<SharedRate> sharedRates(const Mi350xModel& model, const std::vector<CopyRequest>& requests) {
  std::vector<SharedRate> rates(requests.size());

  // 1. The source GPU's CUs: every cu/* copy asks for its --cus, every engine/device copy for
  //    the one CU that writes its packets. Over the budget, each gets the same share of what
  //    it asked for (workgroups of all copies are dealt over the CUs as they free up).
  std::map<int, double> cuDemand;
  for (const CopyRequest& r : requests) {
    if (!usesEngine(r.path)) cuDemand[r.srcGpu] += r.cus;
    if (r.path == CopyPath::EngineDevice) cuDemand[r.srcGpu] += 1;
  }
  // 2. SDMA engines: copies that land on the same engine of the same GPU split its rate.
  std::map<std::pair<int, int>, int> engineUsers;
  for (const CopyRequest& r : requests) {
    if (usesEngine(r.path)) ++engineUsers[{r.srcGpu, xgmiEngineId(model, r.srcGpu, r.dstGpu, 0)}];
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const CopyRequest& r = requests[i];
    SharedRate& rate = rates[i];
    rate.aloneGbps = copyCost(model, r.path, r.sizeBytes, r.cus).gbps;
    rate.gbps = rate.aloneGbps;
    if (!usesEngine(r.path)) {
      const double share = std::min(1.0, model.cusPerGpu / cuDemand[r.srcGpu]);
      rate.effectiveCus = r.cus * share;
      cut(rate, cuCopyGbps(model, rate.effectiveCus) / rate.aloneGbps, "cus");
    } else {
      cut(rate, 1.0 / engineUsers[{r.srcGpu, xgmiEngineId(model, r.srcGpu, r.dstGpu, 0)}], "engine");
    }
  }
  // 3. One xGMI link per peer and direction: copies on the same ordered pair split it (a weak
  //    link, --sim-weak link=F, carries F of it).
  std::map<std::pair<int, int>, double> onLink;
  for (std::size_t i = 0; i < requests.size(); ++i) onLink[{requests[i].srcGpu, requests[i].dstGpu}] += rates[i].gbps;
  const double linkGbps = model.linkGbpsPerDirection() * model.weakness.link;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const double load = onLink[{requests[i].srcGpu, requests[i].dstGpu}];
    cut(rates[i], std::min(1.0, linkGbps / load), "link");
  }
  // 4. The GPU's fabric: everything it sends, and everything it receives, over all its links.
  //    Each copy is cut by the tighter of its source's and its destination's factor, from the
  //    loads after step 3 (one pass: simple, and never more than the fabric allows).
  std::map<int, double> out, in;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    out[requests[i].srcGpu] += rates[i].gbps;
    in[requests[i].dstGpu] += rates[i].gbps;
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const double outFactor = std::min(1.0, model.fabricGbpsPerGpu / out[requests[i].srcGpu]);
    const double inFactor = std::min(1.0, model.fabricGbpsPerGpu / in[requests[i].dstGpu]);
    if (outFactor <= inFactor) {
      cut(rates[i], outFactor, "fabric-out");
    } else {
      cut(rates[i], inFactor, "fabric-in");
    }
  }
  return rates;
}

}  // namespace sdma::sim
