// info, sweep and matrix: the probe's subcommands, on the start-up path of cli/commands.cpp.
#include <memory>
#include <string>

#include "cli/args.hpp"
#include "cli/entries.hpp"
#include "commands/matrix.hpp"
#include "commands/sweep.hpp"

namespace sdma {

namespace {

class ProbeCommand : public cli::CommandRun {
 public:
  explicit ProbeCommand(Command command) : command_(command), options_(defaultOptions(command)) {}

  void* flagTarget() override { return &options_; }
  void finish() override { finishOptions(command_, options_); }
  std::string backendName() const override { return options_.backend; }
  bool keepsUserEnvironment() const override { return !options_.series.empty(); }
  BackendSettings backendSettings() const override {
    return BackendSettings{options_.seed, options_.simDelayMs, options_.simGpus, options_.simWeak};
  }

  CommandResult run(cli::Session& session) override {
    Reporter& reporter = session.reporter;
    Backend& backend = *session.choice.backend;
    const int gpuCount = static_cast<int>(backend.topology().gpus.size());
    if (command_ == Command::Info) {
      // Describing the node checks no endpoint: it works on any GPU count.
      reporter.topology(backend.topology());
      if (gpuCount == 0)
        reporter.warning("no-gpu", "the " + std::string(backend.name()) + " backend sees no GPU on this node");
      return {};
    }
    if (command_ == Command::Matrix) {
      if (const Error problem = fitMatrixToNode(options_, backend)) {
        return session.fail(problem.code, problem.message, problem.hint,
                            problem.code == "usage" ? kExitUsage : kExitRuntimeFailure);
      }
    } else {
      if (const Error problem = resolveEndpoints(options_, gpuCount)) return usageWithText(session, problem.message);
      fitDefaultCusToNode(options_, backend);
      if (const Error problem = checkOptionsForBackend(options_, backend)) {
        return usageWithText(session, problem.message);
      }
    }
    reporter.topology(backend.topology());
    return command_ == Command::Sweep ? runSweep(options_, backend, reporter, session.knobs)
                                      : runMatrix(options_, backend, reporter);
  }

 private:
  // A bad argument the node shows: the usage text follows the message, as for one that does not parse.
  static CommandResult usageWithText(cli::Session& session, const std::string& message) {
    session.reporter.error("usage", message);
    std::fprintf(stderr, "sdma-probe: %s\n\n%s", message.c_str(), usageText().c_str());
    return {DoneStatus::Error, kExitUsage};
  }

  Command command_;
  Options options_;
};

}  // namespace

std::unique_ptr<cli::CommandRun> makeInfoCommand(const std::vector<std::string_view>&) {
  return std::make_unique<ProbeCommand>(Command::Info);
}
std::unique_ptr<cli::CommandRun> makeSweepCommand(const std::vector<std::string_view>&) {
  return std::make_unique<ProbeCommand>(Command::Sweep);
}
std::unique_ptr<cli::CommandRun> makeMatrixCommand(const std::vector<std::string_view>&) {
  return std::make_unique<ProbeCommand>(Command::Matrix);
}

}  // namespace sdma
