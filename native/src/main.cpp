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
#include "collective/collective_command.hpp"
#include "matrix.hpp"
#include "reporter.hpp"
#include "run/import_mode.hpp"
#include "run/run_mode.hpp"
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

// A node with a GPU backend but no GPU: `info` describes it (no GPUs, a no-gpu warning), the
// commands that copy answer a no-gpu error.
Topology emptyNode(std::string_view backend) {
  Topology topology;
  const bool amd = backend == "hip";
  topology.node = {"this machine", amd ? "amd" : "nvidia", amd ? "no AMD GPU visible" : "no NVIDIA GPU visible", false};
  return topology;
}

int noGpu(Reporter& reporter, const std::string& message, const std::string& hint) {
  reporter.error("no-gpu", message, hint);
  reporter.done(DoneStatus::Error);
  std::fprintf(stderr, "sdma-probe: %s\n", message.c_str());
  return kExitRuntimeFailure;
}

int run(const ParsedArgs& parsed, Reporter& reporter) {
  Options options = parsed.options;
  std::optional<std::string_view> command;
  if (parsed.command) command = commandName(*parsed.command);
  if (!parsed.usageError.empty()) {
    // Nothing is opened for arguments that do not parse: hello names what was asked for.
    const std::string_view asked = options.backend == "auto" ? "sim" : std::string_view(options.backend);
    reporter.hello(command, asked, asked == "sim", builtBackendNames());
    return usageFailure(reporter, parsed.usageError);
  }

  // hello names the backend that answers: auto resolves before it is printed.
  BackendChoice choice =
      openBackend(options.backend, BackendSettings{options.seed, options.simDelayMs, options.simGpus});
  const std::string_view helloBackend = choice.backend ? choice.backend->name() : std::string_view(options.backend);
  reporter.hello(command, helloBackend, choice.backend ? choice.backend->simulated() : false, builtBackendNames());
  if (!choice.backend && choice.unavailableCode == "no-gpu") {
    if (*parsed.command != Command::Info) return noGpu(reporter, choice.unavailableReason, choice.unavailableHint);
    reporter.topology(emptyNode(options.backend));
    reporter.warning("no-gpu", choice.unavailableReason + (choice.unavailableHint.empty() ? "" : "; " + choice.unavailableHint));
    reporter.done(DoneStatus::Ok);
    return 0;
  }
  if (!choice.backend) {
    reporter.error(choice.unavailableCode.empty() ? "backend-unavailable" : choice.unavailableCode,
                   choice.unavailableReason, choice.unavailableHint);
    reporter.done(DoneStatus::Error);
    std::fprintf(stderr, "sdma-probe: %s\n", choice.unavailableReason.c_str());
    return kExitBackendUnavailable;
  }
  if (choice.autoFellBackToSim) {
    const std::string why = choice.fallbackReasons.empty() ? "no GPU backend is built into this sdma-probe"
                                                           : "no GPU was found (" + choice.fallbackReasons + ")";
    reporter.warning("simulated", why + ": numbers come from the simulated MI350X node, not from hardware");
  }
  if (choice.simGpusIgnored) {
    reporter.warning("sim-gpus-ignored", "--sim-gpus applies to the simulator only; this run measures the " +
                                             std::to_string(choice.backend->topology().gpus.size()) +
                                             " GPUs this node has");
  }
  const int gpuCount = static_cast<int>(choice.backend->topology().gpus.size());
  if (*parsed.command == Command::Info) {
    // Describing the node checks no endpoint: it works on any GPU count.
    reporter.topology(choice.backend->topology());
    if (gpuCount == 0) reporter.warning("no-gpu", "the " + std::string(helloBackend) + " backend sees no GPU on this node");
    reporter.done(DoneStatus::Ok);
    return 0;
  }
  if (gpuCount == 0) {
    return noGpu(reporter, "the " + std::string(helloBackend) + " backend sees no GPU on this node: nothing to copy",
                 "run on a GPU node, or use --backend sim");
  }
  if (*parsed.command == Command::Matrix) {
    const MatrixProblem problem = fitMatrixToNode(options, *choice.backend);
    if (!problem.code.empty()) {
      reporter.error(problem.code, problem.message, problem.hint);
      reporter.done(DoneStatus::Error);
      std::fprintf(stderr, "sdma-probe: %s\n", problem.message.c_str());
      return problem.code == "usage" ? kExitUsage : kExitRuntimeFailure;
    }
  } else {
    if (const std::string problem = resolveEndpoints(options, gpuCount); !problem.empty()) {
      return usageFailure(reporter, problem);
    }
    fitDefaultCusToNode(options, *choice.backend);
    if (const std::string problem = checkOptionsForBackend(options, *choice.backend); !problem.empty()) {
      return usageFailure(reporter, problem);
    }
  }

  reporter.topology(choice.backend->topology());
  CommandResult result;
  if (*parsed.command == Command::Sweep) result = runSweep(options, *choice.backend, reporter);
  if (*parsed.command == Command::Matrix) result = runMatrix(options, *choice.backend, reporter);
  reporter.done(result.status);
  return result.exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  cancel::installSignalHandlers();
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  if (!args.empty() && sdma::collective::isCollectiveCommand(args[0])) {
    return sdma::collective::runCollectiveCommand(args);
  }
  // run: everything after its flags belongs to the user's program, --help included.
  if (!args.empty() && args[0] == "run") {
    if (args.size() > 1 && (args[1] == "--help" || args[1] == "-h")) {
      std::fputs(std::string(sdma::runmode::runUsageText()).c_str(), stdout);
      return 0;
    }
    Reporter reporter(stdout);
    return sdma::runmode::runMain(args, reporter);
  }
  if (!args.empty() && args[0] == "import") {
    if (args.size() > 1 && (args[1] == "--help" || args[1] == "-h")) {
      std::fputs(std::string(sdma::runmode::importUsageText()).c_str(), stdout);
      return 0;
    }
    Reporter reporter(stdout);
    return sdma::runmode::importMain(args, reporter);
  }
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
