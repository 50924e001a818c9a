#pragma once

#include <cstdint>

#include "backend.hpp"
#include "sim/mi350x_model.hpp"

namespace sdma::sim {

struct SimOptions {
  std::uint64_t seed = 1;
  int delayMsPerUnit = 0;  // --sim-delay-ms
};

// A simulated 8x MI350X node: copy times come from copyCost() plus seeded noise, so the
// whole product can be used and tested without a GPU.
class SimBackend final : public Backend {
 public:
  explicit SimBackend(SimOptions options, Mi350xModel model = {});

  std::string_view name() const override { return "sim"; }
  bool simulated() const override { return true; }
  const Topology& topology() const override { return topology_; }
  CopyMeasurement measure(const CopyRequest& request) override;
  std::uint64_t timelineEventCount(const TimelineRequest& request) const override;
  RunStatus recordTimeline(const TimelineRequest& request, TimelineEvents& out) override;

 private:
  Mi350xModel model_;
  SimOptions options_;
  Topology topology_;
};

}  // namespace sdma::sim
