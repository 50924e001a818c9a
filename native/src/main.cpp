// sdma-probe: measures (or simulates) intra-node GPU copies by CUs and SDMA engines and
// reports them as NDJSON records (docs/PROTOCOL.md). The subcommands and the start-up path
// they share: cli/commands.cpp.
#include <string_view>
#include <vector>

#include "util/cancel.hpp"
#include "cli/command.hpp"

int main(int argc, char** argv) {
  sdma::cancel::installSignalHandlers();
  sdma::cli::watchParent();
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  return sdma::cli::runCommandLine(args);
}
