#pragma once

// One subcommand of sdma-probe, as the start-up path in cli/commands.cpp sees it: the flags
// it reads, whether it opens a backend and needs a GPU, and the work it does once hello and
// the backend are settled. Each subcommand's module provides a CommandRun.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/runtime_knobs.hpp"
#include "backends/registry.hpp"
#include "cli/parser.hpp"
#include "protocol/reporter.hpp"

namespace sdma {

// The exit codes every subcommand shares (docs/PROTOCOL.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitBackendUnavailable = 3;
inline constexpr int kExitValidationFailed = 4;

// What a subcommand's work ended with: done's status and the exit code.
struct CommandResult {
  DoneStatus status = DoneStatus::Ok;
  int exitCode = kExitOk;
};

namespace cli {

// What the work of a subcommand gets: the reporter (hello is out) and the opened backend.
struct Session {
  Reporter& reporter;
  std::string_view command;
  BackendChoice choice;
  // The runtime settings the helper put into its environment before the backend opened
  // (runtime_knobs.hpp), with what the user's environment held before.
  std::vector<RuntimeKnob> knobs = {};

  // An error record, the message on stderr, and the result that ends the run with it.
  CommandResult fail(std::string_view code, const std::string& message, std::string_view hint, int exitCode);
  // A bad argument found once the node is known (hello is out): error usage, exit 2.
  CommandResult usage(const std::string& message);
};

class CommandRun {
 public:
  virtual ~CommandRun() = default;
  // The object the flag table's setters write into (info, sweep, matrix: their Options);
  // null when every flag comes through flag().
  virtual void* flagTarget() { return nullptr; }
  // One flag without a setter in the table, by its canonical name, after the row's check;
  // throws UsageError.
  virtual void flag(std::string_view name, std::string_view value) {
    (void)name;
    (void)value;
  }
  // The words after the flags (subcommands that take a program); throws UsageError.
  virtual void words(const std::vector<std::string_view>& words) { (void)words; }
  // Checks that need every flag; throws UsageError.
  virtual void finish() {}
  // The backend asked for (auto, sim, hip, cuda) and its settings.
  virtual std::string backendName() const { return "auto"; }
  virtual BackendSettings backendSettings() const { return {}; }
  // True where the run must measure the user's environment as it is, so the engine knobs are
  // not set (sweep --series runtime-default).
  virtual bool keepsUserEnvironment() const { return false; }
  // Said before the run stops for want of a GPU (collective: the library it would load).
  virtual void beforeNoGpu(Session& session) { (void)session; }
  virtual CommandResult run(Session& session) = 0;
};

// How a subcommand answers a hardware backend that is built but finds no GPU.
enum class NoGpu {
  Describe,     // info: an empty node and a no-gpu warning, exit 0
  Fail,         // an error no-gpu, exit 1 (also when the backend opens but lists no GPU)
  Unavailable,  // run: an error, exit 3, like any backend that cannot open
};

// Whether a subcommand sets the HIP runtime's SDMA thresholds before its backend opens
// (runtime_knobs.hpp): the ones that measure engine copies do.
enum class EngineKnobs { Leave, Set };

struct Subcommand {
  std::string_view name;
  std::string (*usage)();
  std::vector<FlagSpec> flags;
  // Empty: the subcommand opens the backend it is asked for. Otherwise it opens none and
  // hello names this one (import: rocprofv3 profiles come from AMD GPUs).
  std::string_view fixedBackend;
  NoGpu noGpu = NoGpu::Fail;
  // run: flags end at "--" or the first word; --help counts only right after the name.
  bool takesProgram = false;
  std::string_view unknownFlagHint = {};
  // `args` is the whole command line after argv[0] (collective re-runs itself with it).
  std::unique_ptr<CommandRun> (*make)(const std::vector<std::string_view>& args);
  // sweep, matrix, overlap: Set. Not run (the user's program keeps its own environment), nor
  // collective (each variant sets its own).
  EngineKnobs engineKnobs = EngineKnobs::Leave;
};

// The subcommands, in the order usage lists them.
const std::vector<Subcommand>& subcommands();

// The whole helper after argv[0]: hello, the subcommand's records, done; the exit code.
int runCommandLine(const std::vector<std::string_view>& args);

// Linux: SIGTERM when the process that started the helper dies (the cancel path then runs).
void watchParent();

}  // namespace cli
}  // namespace sdma
