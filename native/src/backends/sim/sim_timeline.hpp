#pragma once

#include <cstdint>

#include "backend/backend.hpp"
#include "backends/sim/mi350x_model.hpp"
#include "backend/timeline.hpp"

namespace sdma::sim {

// Number of events appendSimTimeline() adds for `request`.
std::uint64_t simTimelineEventCount(const Mi350xModel& model, const TimelineRequest& request);

// Lays out one iteration per requested path at request.sizeBytes, one path after another
// from t = 0, `repeats` times, with the phases of copyCost(). Deterministic for a seed.
// engine/device is drawn as a real AMD GPU draws it: its doorbell and packet inferred, on the
// unknown-engine lane (kEngineUnknown), since rocSHMEM reports neither.
// Returns RunStatus::Cancelled if cancellation was requested part way.
RunStatus appendSimTimeline(const Mi350xModel& model, const TimelineRequest& request, std::uint64_t seed,
                            TimelineEvents& out);

}  // namespace sdma::sim
