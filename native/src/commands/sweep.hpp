#pragma once

// sweep: every size, path and CU count measured in turn, then the timeline if one was asked for.
#include "cli/args.hpp"
#include "backend/backend.hpp"
#include "cli/command.hpp"
#include "protocol/reporter.hpp"

namespace sdma {

// Runs every work unit (for each size, for each path, for each CU count), then the timeline
// if one was asked for. Prints progress, samples, timeline and any error; not hello or done.
CommandResult runSweep(const Options& options, Backend& backend, Reporter& reporter);

}  // namespace sdma
