// The table of sdma-probe's subcommands (each with its flag table, cli/flag_table.cpp) and the
// one start-up/exit path they all take: parse the flags, open the backend, print hello, answer a backend that cannot
// serve, run, print done, choose the exit code.
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <optional>

#include "util/cancel.hpp"
#include "cli/entries.hpp"
#include "cli/flag_table.hpp"
#include "util/host_name.hpp"
#include "backend/runtime_knobs.hpp"
#include "util/version.hpp"

namespace sdma::cli {

namespace {

const std::vector<Subcommand> kSubcommands = {
    {"info", usageText, infoFlags(), {}, NoGpu::Describe, false, {}, makeInfoCommand},
    {"sweep", usageText, sweepFlags(), {}, NoGpu::Fail, false, {}, makeSweepCommand, EngineKnobs::Set},
    {"matrix", usageText, matrixFlags(), {}, NoGpu::Fail, false, {}, makeMatrixCommand, EngineKnobs::Set},
    {"run",
     runmode::runUsageText,
     runFlags(),
     {},
     NoGpu::Unavailable,
     true,
     " (put the program after --)",
     runmode::makeRunCommand},
    {"import", runmode::importUsageText, importFlags(), "hip", NoGpu::Fail, false,
     " (--rocpd FILE.db or --rocprofv3-csv DIR)", runmode::makeImportCommand},
    {"collective",
     collective::collectiveUsageText,
     collectiveFlags(),
     {},
     NoGpu::Fail,
     false,
     {},
     collective::makeCollectiveCommand},
    {"overlap",
     collective::collectiveUsageText,
     overlapFlags(),
     {},
     NoGpu::Fail,
     false,
     {},
     collective::makeOverlapCommand,
     EngineKnobs::Set},
};

const std::vector<std::string_view>& allFlagNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all;
    for (const Subcommand& sub : kSubcommands) {
      for (const FlagSpec& flag : sub.flags) {
        if (std::find(all.begin(), all.end(), flag.name) == all.end()) all.push_back(flag.name);
      }
    }
    return all;
  }();
  return names;
}

std::string subcommandList() {
  std::string list;
  for (std::size_t i = 0; i < kSubcommands.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == kSubcommands.size() ? " or " : ", ") + std::string(kSubcommands[i].name);
  }
  return list;
}

std::string versionLine() {
  std::string backends;
  for (const std::string& name : builtBackendNames()) backends += (backends.empty() ? "" : ", ") + name;
  return std::string(kHelperName) + " " + kHelperVersion + " (protocol " + std::to_string(kProtocolVersion) +
         "; backends: " + backends + ")";
}

bool isHelp(std::string_view arg) { return arg == "--help" || arg == "-h"; }

// Nothing is opened for arguments that do not parse: hello names what was asked for.
int usageFailure(Reporter& reporter, std::optional<std::string_view> command, std::string_view asked,
                 const std::string& message, const std::string& usage) {
  const std::string_view backend = asked == "auto" ? std::string_view("sim") : asked;
  reporter.hello(command, backend, backend == "sim", builtBackendNames());
  reporter.error("usage", message);
  reporter.done(DoneStatus::Error);
  std::fprintf(stderr, "sdma-probe: %s\n\n%s", message.c_str(), usage.c_str());
  return kExitUsage;
}

// A node with a GPU backend but no GPU, as `info` describes it.
Topology emptyNode(std::string_view backend) {
  Topology topology;
  const bool amd = backend == "hip";
  topology.node = {"this machine", amd ? "amd" : "nvidia", amd ? "no AMD GPU visible" : "no NVIDIA GPU visible", false,
                   hostName()};
  return topology;
}

// Hello is out; the backend cannot serve, or serves without a GPU where one is needed.
std::optional<CommandResult> answerMissingBackend(const Subcommand& sub, CommandRun& work, Session& session,
                                                  const std::string& asked) {
  Reporter& reporter = session.reporter;
  BackendChoice& choice = session.choice;
  if (!choice.backend) {
    if (choice.unavailableCode == "no-gpu" && sub.noGpu == NoGpu::Describe) {
      reporter.topology(emptyNode(asked));
      reporter.warning(
          "no-gpu", choice.unavailableReason + (choice.unavailableHint.empty() ? "" : "; " + choice.unavailableHint));
      return CommandResult{};
    }
    const bool noGpu = choice.unavailableCode == "no-gpu" && sub.noGpu == NoGpu::Fail;
    if (noGpu) work.beforeNoGpu(session);
    return session.fail(choice.unavailableCode.empty() ? "backend-unavailable" : choice.unavailableCode,
                        choice.unavailableReason, choice.unavailableHint,
                        noGpu ? kExitRuntimeFailure : kExitBackendUnavailable);
  }
  if (choice.autoFellBackToSim) {
    const std::string why = choice.fallbackReasons.empty() ? "no GPU backend is built into this sdma-probe"
                                                           : "no GPU was found (" + choice.fallbackReasons + ")";
    reporter.warning("simulated",
                     why + (sub.takesProgram ? ": the program runs, but only simulated records can be shown"
                                             : ": numbers come from the simulated MI350X node, not from hardware"));
  }
  if (choice.simGpusIgnored) {
    reporter.warning("sim-gpus-ignored", "--sim-gpus applies to the simulator only; this run measures the " +
                                             std::to_string(choice.backend->topology().gpus.size()) +
                                             " GPUs this node has");
  }
  if (choice.simWeakIgnored) {
    const std::size_t gpus = choice.backend->topology().gpus.size();
    reporter.warning("sim-weak-ignored", "--sim-weak shapes only the simulated node; this run measures the " +
                                             std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") +
                                             " this node has, as they are");
  }
  if (!choice.simWeakApplied.empty()) reporter.warning("sim-weak", choice.simWeakApplied);
  if (sub.noGpu == NoGpu::Fail && choice.backend->topology().gpus.empty()) {
    work.beforeNoGpu(session);
    return session.fail(
        "no-gpu", "the " + std::string(choice.backend->name()) + " backend sees no GPU on this node: nothing to copy",
        "run on a GPU node, or use --backend sim", kExitRuntimeFailure);
  }
  return std::nullopt;
}

int runSubcommand(const Subcommand& sub, const std::vector<std::string_view>& args) {
  if (sub.takesProgram ? args.size() > 1 && isHelp(args[1]) : std::any_of(args.begin(), args.end(), isHelp)) {
    std::fputs(sub.usage().c_str(), stdout);
    return kExitOk;
  }
  Reporter reporter(stdout);
  const std::unique_ptr<CommandRun> work = sub.make(args);
  try {
    const FlagRules rules{sub.name, &sub.flags, &allFlagNames(), sub.unknownFlagHint, sub.takesProgram};
    const std::vector<std::string_view> words =
        parseFlags(args, 1, rules, work->flagTarget(),
                   [&](std::string_view name, std::string_view value) { work->flag(name, value); });
    work->words(words);
    work->finish();
  } catch (const UsageError& e) {
    return usageFailure(reporter, sub.name, sub.fixedBackend.empty() ? work->backendName() : sub.fixedBackend, e.what(),
                        sub.usage());
  }
  Session session{reporter, sub.name, {}};
  try {
    const std::string asked = work->backendName();
    std::optional<CommandResult> result;
    if (sub.fixedBackend.empty()) {
      // Engine copies on AMD are SDMA at every size only with these set before the HIP
      // runtime initialises, and opening the backend is the helper's first HIP call
      // (docs/MEASUREMENT.md, "Engine copies are SDMA at every size").
      std::vector<RuntimeKnob> knobs;
      if (sub.engineKnobs == EngineKnobs::Set && asked != "cuda" && !work->keepsUserEnvironment()) {
        knobs = setEngineKnobs();
      }
      session.choice = openBackend(asked, work->backendSettings());
      const BackendChoice& choice = session.choice;
      const std::string_view backend = choice.backend ? choice.backend->name() : std::string_view(asked);
      // The hip backend and the simulated MI350X keep and name them; on NVIDIA they mean
      // nothing and the environment goes back to what it was.
      if (backend != "hip" && backend != "sim") {
        restoreKnobs(knobs);
        knobs.clear();
      }
      reporter.hello(sub.name, backend, choice.backend ? choice.backend->simulated() : false, builtBackendNames(),
                     knobs);
      session.knobs = knobs;
      result = answerMissingBackend(sub, *work, session, asked);
    } else {
      reporter.hello(sub.name, sub.fixedBackend, false, builtBackendNames());
    }
    if (!result) result = work->run(session);
    reporter.done(result->status);
    return result->exitCode;
  } catch (const std::exception& e) {
    reporter.error("internal", e.what());
    reporter.done(DoneStatus::Error);
    std::fprintf(stderr, "sdma-probe: internal error: %s\n", e.what());
    return kExitRuntimeFailure;
  }
}

}  // namespace

CommandResult Session::fail(std::string_view code, const std::string& message, std::string_view hint, int exitCode) {
  reporter.error(code, message, hint);
  std::fprintf(stderr, "sdma-probe: %s\n", message.c_str());
  return {DoneStatus::Error, exitCode};
}

CommandResult Session::usage(const std::string& message) { return fail("usage", message, {}, kExitUsage); }

const std::vector<Subcommand>& subcommands() { return kSubcommands; }

int runCommandLine(const std::vector<std::string_view>& args) {
  const auto sub = args.empty() ? kSubcommands.end()
                                : std::find_if(kSubcommands.begin(), kSubcommands.end(),
                                               [&](const Subcommand& s) { return s.name == args[0]; });
  if (sub != kSubcommands.end()) return runSubcommand(*sub, args);
  if (std::any_of(args.begin(), args.end(), isHelp)) {
    std::fputs(usageText().c_str(), stdout);
    return kExitOk;
  }
  if (!args.empty() && args[0] == "--version") {
    std::printf("%s\n", versionLine().c_str());
    return kExitOk;
  }
  Reporter reporter(stdout);
  std::string message = "missing subcommand (" + subcommandList() + ")";
  if (!args.empty() && args[0].substr(0, 2) == "--") {
    message += " before " + std::string(args[0]);
  } else if (!args.empty()) {
    message = "unknown subcommand " + quoted(args[0]) + " (" + subcommandList() + ")";
  }
  return usageFailure(reporter, std::nullopt, "auto", message, usageText());
}

void watchParent() {
  // The extension starts the helper in its own process group; should the extension host die
  // without cancelling, the kernel sends SIGTERM and the usual cancel path runs (done
  // cancelled, children ended). A parent gone before the request took effect counts the same.
#if defined(__linux__)
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) std::raise(SIGTERM);
#endif
}

}  // namespace sdma::cli
