#pragma once

// sweep: every size, path and CU count measured in turn, then the timeline if one was asked for.
#include "cli/args.hpp"
#include "backend/backend.hpp"
#include "cli/command.hpp"
#include "backend/runtime_knobs.hpp"
#include "protocol/reporter.hpp"

namespace sdma {

// Runs every work unit (for each size, for each path, for each CU count and value of the seed's
// dimensions: waves per CU, engines, batch, rocSHMEM SDMA mode), then the timeline
// if one was asked for. Prints progress, samples, timeline and any error; not hello or done.
// With --runtime-default, the runtime default series follows the sweep's own units: a child
// sdma-probe measures it in the user's environment, `knobs` put back as they were.
CommandResult runSweep(const Options& options, Backend& backend, Reporter& reporter,
                       const std::vector<RuntimeKnob>& knobs = {});

}  // namespace sdma
