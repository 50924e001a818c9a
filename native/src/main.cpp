// sdma-probe: measures (or simulates) intra-node GPU copies by CUs and SDMA engines and
// reports them as NDJSON records (docs/PROTOCOL.md).
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "backend_registry.hpp"
#include "cancel.hpp"
#include "reporter.hpp"
#include "sweep.hpp"
#include "version.hpp"

namespace {

using namespace sdma;

constexpr int kExitRuntimeFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitBackendUnavailable = 3;

std::string versionLine() {
  std::string backends;
  for (const std::string& name : builtBackendNames()) backends += (backends.empty() ? "" : ", ") + name;
  return std::string(kHelperName) + " " + kHelperVersion + " (protocol " + std::to_string(kProtocolVersion) +
         "; backends: " + backends + ")";
}

int usageFailure(Reporter& reporter, const std::string& message) {
  reporter.error("usage", message);
  reporter.done(DoneStatus::Error);
  std::fprintf(stderr, "sdma-probe: %s\n\n%s", message.c_str(), usageText().c_str());
  return kExitUsage;
}

int run(const ParsedArgs& parsed, Reporter& reporter) {
  const Options& options = parsed.options;
  // hello names the backend asked for; auto resolves to sim in a build without hardware backends.
  const std::string_view helloBackend = options.backend == "auto" ? "sim" : std::string_view(options.backend);
  std::optional<std::string_view> command;
  if (parsed.command) command = commandName(*parsed.command);
  reporter.hello(command, helloBackend, helloBackend == "sim", builtBackendNames());
  if (!parsed.usageError.empty()) return usageFailure(reporter, parsed.usageError);

  BackendChoice choice = openBackend(options.backend, BackendSettings{options.seed, options.simDelayMs});
  if (!choice.backend) {
    reporter.error("backend-unavailable", choice.unavailableReason);
    reporter.done(DoneStatus::Error);
    std::fprintf(stderr, "sdma-probe: %s\n", choice.unavailableReason.c_str());
    return kExitBackendUnavailable;
  }
  if (choice.autoFellBackToSim) {
    reporter.warning("simulated", "no GPU backend is built into this sdma-probe: numbers come from the simulated "
                                  "MI350X node, not from hardware");
  }
  if (const std::string problem = checkOptionsForBackend(options, *choice.backend); !problem.empty()) {
    return usageFailure(reporter, problem);
  }

  reporter.topology(choice.backend->topology());
  CommandResult result;
  if (*parsed.command == Command::Sweep) result = runSweep(options, *choice.backend, reporter);
  reporter.done(result.status);
  return result.exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  cancel::installSignalHandlers();
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const ParsedArgs parsed = parseArgs(args);
  if (parsed.action == Action::PrintHelp) {
    std::fputs(usageText().c_str(), stdout);
    return 0;
  }
  if (parsed.action == Action::PrintVersion) {
    std::printf("%s\n", versionLine().c_str());
    return 0;
  }

  Reporter reporter(stdout);
  try {
    return run(parsed, reporter);
  } catch (const std::exception& e) {
    reporter.error("internal", e.what());
    reporter.done(DoneStatus::Error);
    std::fprintf(stderr, "sdma-probe: internal error: %s\n", e.what());
    return kExitRuntimeFailure;
  }
}
