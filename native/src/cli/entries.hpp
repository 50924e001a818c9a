#pragma once

// The subcommands' entries, each in its module; cli/commands.cpp puts them in its table.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.hpp"

namespace sdma {

// info, sweep, matrix (probe_commands.cpp); usage: args.cpp.
std::unique_ptr<cli::CommandRun> makeInfoCommand(const std::vector<std::string_view>& args);
std::unique_ptr<cli::CommandRun> makeSweepCommand(const std::vector<std::string_view>& args);
std::unique_ptr<cli::CommandRun> makeMatrixCommand(const std::vector<std::string_view>& args);
std::string usageText();

namespace collective {
std::unique_ptr<cli::CommandRun> makeCollectiveCommand(const std::vector<std::string_view>& args);
std::unique_ptr<cli::CommandRun> makeOverlapCommand(const std::vector<std::string_view>& args);
std::string collectiveUsageText();
}  // namespace collective

namespace runmode {
std::unique_ptr<cli::CommandRun> makeRunCommand(const std::vector<std::string_view>& args);
std::unique_ptr<cli::CommandRun> makeImportCommand(const std::vector<std::string_view>& args);
std::string runUsageText();
std::string importUsageText();
}  // namespace runmode

}  // namespace sdma
