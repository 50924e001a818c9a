#pragma once

#include <string_view>
#include <vector>

#include "reporter.hpp"

namespace sdma::runmode {

// `sdma-probe import --rocpd FILE.db | --rocprofv3-csv DIR` (docs/RUN-MODE.md, "Importing a
// profile"): reads a rocprofv3 profile made elsewhere, runs nothing, and prints hello, the
// dispatch/copy records run mode would print for it, warnings and done. `args` starts with
// "import". Returns the helper's exit code.
int importMain(const std::vector<std::string_view>& args, Reporter& reporter);

std::string_view importUsageText();

}  // namespace sdma::runmode
