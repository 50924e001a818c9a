#pragma once

#include <string_view>
#include <vector>

namespace sdma::collective {

// `collective` and `overlap` parse their own flags (nccl-tests' -b/-e/-f among them), so
// they are dispatched before the sweep's argument parser sees them.
bool isCollectiveCommand(std::string_view name);

// args[0] is the subcommand. Prints hello, topology, the records and done; returns the
// exit code (the same codes as sweep).
int runCollectiveCommand(const std::vector<std::string_view>& args);

}  // namespace sdma::collective
