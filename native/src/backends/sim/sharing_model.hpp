#pragma once

#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backends/sim/mi350x_model.hpp"

// Which resources of the simulated node copies running at the same time share, and the rate
// each copy keeps (matrix --concurrent; docs/SIMULATOR.md, "Copies at the same time").
namespace sdma::sim {

struct SharedRate {
  double gbps = 0;          // the copy's rate while every request runs
  double aloneGbps = 0;     // the same copy's rate alone (copyCost)
  double effectiveCus = 0;  // cu/*: CUs of the source GPU's budget it gets (0 for engine/*)
  // What cut the rate below aloneGbps, in the order applied: "cus", "engine", "link",
  // "fabric-out", "fabric-in" (empty when nothing did).
  std::vector<std::string> sharedBy;
};

// One rate per request, in request order. Deterministic: no noise is drawn here.
std::vector<SharedRate> sharedRates(const Mi350xModel& model, const std::vector<CopyRequest>& requests);

}  // namespace sdma::sim
