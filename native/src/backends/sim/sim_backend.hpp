#pragma once

#include <cstdint>

#include "backend/backend.hpp"
#include "backends/sim/copy_model.hpp"
#include "backends/sim/mi350x_model.hpp"

namespace sdma::sim {

struct SimOptions {
  std::uint64_t seed = 1;
  int delayMsPerUnit = 0;  // --sim-delay-ms
};

// A simulated node of 1..8 MI350X GPUs (Mi350xModel::gpuCount, --sim-gpus) and its host:
// copy times come from copyCost() plus seeded noise, so the whole product can be used and
// tested without a GPU.
class SimBackend final : public Backend {
 public:
  explicit SimBackend(SimOptions options, Mi350xModel model = {});

  std::string_view name() const override { return "sim"; }
  bool simulated() const override { return true; }
  const Topology& topology() const override { return topology_; }
  CopyMeasurement measure(const CopyRequest& request) override;
  // --engines beyond the route's engines or rocSHMEM's channels (copy_model's dimensionProblem).
  std::string dimensionUnsupported(const CopyRequest& request) const override;
  // Every pair at once; rates from sharedRates() (docs/SIMULATOR.md, "Copies at the same time").
  ConcurrentMeasurement measureConcurrent(const std::vector<CopyRequest>& requests) override;
  std::uint64_t timelineEventCount(const TimelineRequest& request) const override;
  RunStatus recordTimeline(const TimelineRequest& request, TimelineEvents& out) override;

 private:
  // One copy's timed iterations at `gbps`, with the noise and validation of its own unit.
  CopyMeasurement drawCopy(const CopyRequest& request, const CopyCost& cost, double gbps) const;
  // What moved the bytes, as the model says (source "simulated").
  static MoverEvidence simulatedEvidence(const CopyRequest& request);

  Mi350xModel model_;
  SimOptions options_;
  Topology topology_;
};

}  // namespace sdma::sim
