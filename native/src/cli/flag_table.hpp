#pragma once

// The flags of each subcommand, one declarative table each (cli/flag_table.cpp): what
// cli/parser.cpp walks, and what the tests read to see that every limit the extension reads
// from limits.json bounds a flag.
#include <vector>

#include "cli/parser.hpp"

namespace sdma::cli {

const std::vector<FlagSpec>& infoFlags();
const std::vector<FlagSpec>& sweepFlags();
const std::vector<FlagSpec>& matrixFlags();
const std::vector<FlagSpec>& runFlags();
const std::vector<FlagSpec>& importFlags();
const std::vector<FlagSpec>& collectiveFlags();
const std::vector<FlagSpec>& overlapFlags();

}  // namespace sdma::cli
