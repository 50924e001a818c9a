#pragma once

// --sim-weak WHAT=FACTOR[@HOST]: one node of a simulated fleet made measurably weak, the way a
// real node with a slow copy engine or a weak link is, so fleet outlier detection can be
// rehearsed without hardware (docs/SIMULATOR.md, "A weak node"). The flag is read here; the
// model applies the result (sim::SimWeakness in backends/sim/weakness.hpp).
#include <string>
#include <string_view>
#include <vector>

#include "backends/sim/weakness.hpp"

namespace sdma {

struct SimWeakSpec {
  std::string what;   // a name of native/src/limits.json's simWeakKinds: engine, cu, link, pcie
  double factor = 1;  // in (0, simWeakFactorMax]: the rate of the copies WHAT covers is multiplied by it
  std::string host;   // empty: every host; otherwise the short host name it applies on
};

// One --sim-weak value: "WHAT=FACTOR[@HOST]" or a comma list of them. Throws UsageError
// naming `flag`, the offending item and the accepted form.
std::vector<SimWeakSpec> parseSimWeakList(std::string_view flag, std::string_view text);

// "WHAT=FACTOR[@HOST] (WHAT: engine, cu, link or pcie; ...)": the form the messages name.
std::string simWeakForm();

// The factors that apply on the host whose short name is `shortHost` (specs without a host
// and those naming it); factors of the same WHAT multiply.
sim::SimWeakness weaknessOnHost(const std::vector<SimWeakSpec>& specs, std::string_view shortHost);

// The `sim-weak` warning's message: what is weakened, by what factor, on which host.
std::string describeWeakness(const sim::SimWeakness& weakness, std::string_view shortHost);

}  // namespace sdma
