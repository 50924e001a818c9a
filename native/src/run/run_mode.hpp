#pragma once

#include <string_view>
#include <vector>

#include "reporter.hpp"

namespace sdma::runmode {

// `sdma-probe run [--backend B] [--sim-dispatches N] [--trace-records N] -- PROGRAM [ARGS...]`
// (docs/RUN-MODE.md): prints hello, topology, program start, dispatch/copy records, program
// exit, warnings and done. `args` starts with "run". Returns the helper's exit code.
int runMain(const std::vector<std::string_view>& args, Reporter& reporter);

std::string_view runUsageText();

}  // namespace sdma::runmode
