
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "backends/registry.hpp"
#include "util/cancel.hpp"
#include "cli/entries.hpp"
#include "util/read_control.hpp"
#include "util/safe_file.hpp"
#include "util/child_process.hpp"
#include "profile/device_spans.hpp"
#include "profile/library_log.hpp"
#include "profile/records.hpp"
#include "profile/rocm_sources.hpp"
#include "profile/trace_collector.hpp"
#include "protocol/reporter.hpp"

namespace sdma::runmode {

namespace {

constexpr int kExitCouldNotRun = 1;
constexpr int kMaxSimDispatches = 100000;
constexpr long long kMaxSpanRecords = 1LL << 26;
// After a cancel the program gets this long to end on the forwarded signal, then SIGKILL.
constexpr std::chrono::milliseconds kCancelGrace{3000};
constexpr int kPollMs = 20;
constexpr std::chrono::milliseconds kKfdSampleEvery{100};
// The pipe's bytes one turn of the run loop reads (trace lines are ~200 bytes: some 80000
// lines), and at most what is read once the program ended: a child of the program still
// writing does not keep the run waiting.
constexpr std::size_t kDrainBytesPerTurn = 16u << 20;
constexpr std::size_t kFinalDrainBytes = 64u << 20;

struct RunOptions {
  std::string backend = "auto";
  int simDispatches = 0;
  long long traceRecords = 0;
  std::size_t spanRecords = kDefaultSpanRecords;
  bool libraryLog = false;
  std::vector<std::string> program;
};

std::int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

std::string executableDir() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string cuptiLibraryPath() {
  if (const char* p = std::getenv("SDMA_LENS_CUPTI_LIB"); p && *p) return p;
  return executableDir() + "/libsdma_lens_cupti.so";
}

// Made-up but plausible records for demos and tests of the sim backend: a fused kernel per
// step alternating over the GPUs, each with a CU-moved put to the next GPU.
void addSimulatedRecords(int count, int gpus, std::int64_t startMonoNs, TraceCollector& collector) {
  gpus = gpus > 0 ? gpus : 1;
  for (int i = 0; i < count; ++i) {
    const int gpu = i % gpus;
    const std::int64_t t = startMonoNs + 100000 + static_cast<std::int64_t>(i / gpus) * 250000;
    DispatchRecord d;
    d.name = "void fusedComputeA2a(float const*, float* const*, int, int, unsigned long)";
    d.mangled = "_Z15fusedComputeA2aPKfPKPfiim";
    d.gpu = gpu;
    d.startNs = t;
    d.endNs = t + 180000 + (i % 7) * 3000;
    d.grid = {32 * gpus, 1, 1};
    d.block = {256, 1, 1};
    d.source = "sim";
    d.correlationId = i + 1;
    d.cusSeen = std::min(32 * gpus, 304);
    collector.addDispatchMono(d);
    CopyRecord c;
    c.mover = "cu";
    c.initiator = "device";
    c.srcGpu = gpu;
    c.dstGpu = (gpu + 1) % gpus;
    c.bytes = 8u << 20;
    c.startNs = d.startNs + 2000;
    c.endNs = d.endNs - 1000;
    c.source = "sim";
    c.label = "simulated";
    collector.addCopyMono(c);
  }
}

// Trace lines streamed through the pipe while the program runs. The program writes what it
// likes: lines are split with at most kMaxTraceLineBytes held (a longer one is counted and
// skipped), and one drain reads at most a budget, so a program that never stops writing
// cannot keep the run loop from its other work (the program's end, a cancel, the heartbeat).
class TraceReader {
 public:
  TraceReader(int fd, TraceCollector& collector)
      : fd_(fd), splitter_(kMaxTraceLineBytes), onLine_([&collector](std::string_view line, bool overlong) {
          if (overlong) {
            collector.addOverlongLine();
          } else {
            collector.addLine(line);
          }
        }) {}
  // Reads what is there now, at most about maxBytes; false at end of file (or a read error).
  bool drain(std::size_t maxBytes) {
    char chunk[65536];
    std::size_t got = 0;
    while (got < maxBytes) {
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n > 0) {
        got += static_cast<std::size_t>(n);
        splitter_.feed(std::string_view(chunk, static_cast<std::size_t>(n)), onLine_);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;  // nothing more for now
      splitter_.end(onLine_);
      return false;
    }
    return true;
  }

 private:
  int fd_;
  ingest::LineSplitter splitter_;
  ingest::LineSplitter::OnLine onLine_;
};

}  // namespace

std::string runUsageText() {
  return R"(usage:
  sdma-probe run [--backend B] [--sim-dispatches N] [--trace-records N] [--span-records N] [--library-log]
                 -- PROGRAM [ARGS...]

Runs PROGRAM with the user's environment and reports its kernel dispatches and memory
copies as NDJSON records on stdout (docs/PROFILE.md). PROGRAM's stdout and stderr go to
sdma-probe's stderr unchanged; its stdin is /dev/null.

  --backend B          auto (default), sim, hip (rocprofv3), cuda (CUPTI injection)
  --sim-dispatches N   sim only: add N simulated dispatch/copy pairs (demos, tests)
  --trace-records N    device-trace records per GPU (<sdma_lens/trace.h>, default 65536)
  --span-records N     device-span records sent at most (which CU ran what, when: the
                       timeline's CU lanes), after merging spans of a CU that touch;
                       default 200000, the first N in time order; 0 sends none
  --library-log        read NCCL's / RCCL's own log (NCCL_DEBUG=INFO into private files) for
                       the path each collective call took: library-calls records. INFO
                       logging may slow the program; a NCCL_DEBUG already set is left alone

exit codes: 0 the program ran (its own exit status is in the program exit record),
            1 it could not be started, 2 bad arguments, 3 backend unavailable,
            130/143 cancelled by SIGINT/SIGTERM (the program's process group is ended)
)";
}

namespace {

class RunCommand : public cli::CommandRun {
 public:
  void flag(std::string_view name, std::string_view value) override {
    if (name == "--backend") {
      options_.backend = cli::parseBackendName(name, value);
    } else if (name == "--library-log") {
      options_.libraryLog = cli::parseOnOff(name, value);
    } else if (name == "--sim-dispatches") {
      const auto n = cli::parseWholeSigned(value);
      if (!n || *n < 0 || *n > kMaxSimDispatches) {
        throw UsageError("--sim-dispatches: '" + std::string(value) + "' is out of range (0.." +
                         std::to_string(kMaxSimDispatches) + ")");
      }
      options_.simDispatches = static_cast<int>(*n);
    } else if (name == "--trace-records") {
      const auto n = cli::parseWholeSigned(value);
      if (!n || *n < 1 || *n > (1LL << 28)) {
        throw UsageError("--trace-records: '" + std::string(value) + "' is out of range (1..268435456)");
      }
      options_.traceRecords = *n;
    } else if (name == "--span-records") {
      const auto n = cli::parseWholeSigned(value);
      if (!n || *n < 0 || *n > kMaxSpanRecords) {
        throw UsageError("--span-records: '" + std::string(value) + "' is out of range (0.." +
                         std::to_string(kMaxSpanRecords) + ")");
      }
      options_.spanRecords = static_cast<std::size_t>(*n);
    }
  }
  void words(const std::vector<std::string_view>& words) override {
    for (std::string_view word : words) options_.program.emplace_back(word);
  }
  void finish() override {
    if (options_.program.empty()) throw UsageError("run needs a program: sdma-probe run [flags] -- PROGRAM [ARGS...]");
    if (options_.simDispatches > 0 && options_.backend != "sim")
      throw UsageError("--sim-dispatches needs --backend sim");
  }
  std::string backendName() const override { return options_.backend; }
  CommandResult run(cli::Session& session) override;

 private:
  RunOptions options_;
};

CommandResult RunCommand::run(cli::Session& session) {
  Reporter& reporter = session.reporter;
  BackendChoice& choice = session.choice;
  const RunOptions& options = options_;
  std::vector<CollectorWarning> warnings;
  reporter.topology(choice.backend->topology());
  const std::string backend(choice.backend->name());
  const int gpuCount = static_cast<int>(choice.backend->topology().gpus.size());
  choice.backend.reset();

  std::string problem;
  const std::string programPath = resolveProgram(options.program[0], problem);
  if (programPath.empty()) {
    const bool notFound = problem == "not-found";
    reporter.error(
        notFound ? "program-not-found" : "program-not-executable",
        "cannot run " + options.program[0] + ": " + (notFound ? "no such program" : "not executable"),
        notFound ? "check the path, or the PATH the helper sees" : "chmod +x it, or run it through its interpreter");
    return {DoneStatus::Error, kExitCouldNotRun};
  }

  SpawnRequest request;
  request.path = programPath;
  request.argv = options.program;
  std::string rocprofDir;
  if (backend == "cuda") {
    const std::string lib = cuptiLibraryPath();
    if (access(lib.c_str(), R_OK) == 0) {
      if (const char* existing = std::getenv("CUDA_INJECTION64_PATH"); existing && *existing && lib != existing) {
        warnings.push_back({"injection-replaced", std::string("CUDA_INJECTION64_PATH was ") + existing +
                                                      "; the run replaced it with its CUPTI library"});
      }
      request.env.emplace_back("CUDA_INJECTION64_PATH", lib);
    } else {
      warnings.push_back({"cupti-missing", "the CUPTI injection library " + lib +
                                               " is not there (build with CUPTI, or set SDMA_LENS_CUPTI_LIB): "
                                               "no kernels or memory copies were collected"});
    }
  } else if (backend == "hip") {
    std::string rocprofProblem;
    const std::string rocprof = resolveProgram("rocprofv3", rocprofProblem);
    char dirTemplate[] = "/tmp/sdma-lens-rocprof-XXXXXX";
    if (!rocprof.empty() && mkdtemp(dirTemplate) != nullptr) {
      rocprofDir = dirTemplate;
      request.path = rocprof;
      request.argv = {rocprof, "--kernel-trace", "--memory-copy-trace", "--output-format", "csv", "-d", rocprofDir,
                      "--",    programPath};
      request.argv.insert(request.argv.end(), options.program.begin() + 1, options.program.end());
    } else {
      warnings.push_back({"rocprofv3-missing",
                          "rocprofv3 is not on PATH (it comes with ROCm): no kernels or host "
                          "memory copies were collected, only device-trace records"});
    }
  }
  if (options.traceRecords > 0)
    request.env.emplace_back("SDMA_LENS_TRACE_RECORDS", std::to_string(options.traceRecords));

  int tracePipe[2];
  if (pipe2(tracePipe, O_CLOEXEC) != 0) {
    reporter.error("internal", std::string("pipe: ") + std::strerror(errno));
    return {DoneStatus::Error, kExitCouldNotRun};
  }
  fcntl(tracePipe[0], F_SETFL, fcntl(tracePipe[0], F_GETFL) | O_NONBLOCK);
  // The pipe streams trace lines while the program runs. Launchers that close inherited
  // descriptors (rocprofv3, torchrun's and mpirun's workers) leave their children without it:
  // those append to a private file instead, read after the program ends.
  std::string traceDir = rocprofDir;
  if (traceDir.empty()) {
    char dirTemplate[] = "/tmp/sdma-lens-trace-XXXXXX";
    if (mkdtemp(dirTemplate) != nullptr) traceDir = dirTemplate;
  }
  const std::string traceFile = traceDir.empty() ? std::string() : traceDir + "/sdma-lens-trace.ndjson";
  if (rocprofDir.empty()) {
    struct stat st{};
    fstat(tracePipe[1], &st);
    request.inheritFd = tracePipe[1];
    request.env.emplace_back("SDMA_LENS_TRACE_FD", std::to_string(tracePipe[1]) + ":" +
                                                       std::to_string(static_cast<unsigned long long>(st.st_ino)));
  }
  if (!traceFile.empty()) request.env.emplace_back("SDMA_LENS_TRACE_FILE", traceFile);

  LibraryLogSetup libraryLog;
  if (options.libraryLog) {
    libraryLog = prepareLibraryLog(warnings);
    request.env.insert(request.env.end(), libraryLog.env.begin(), libraryLog.env.end());
  }

  const std::int64_t startMonoNs = monotonicNs();
  const SpawnResult spawned = spawnInNewGroup(request);
  close(tracePipe[1]);
  if (spawned.pid < 0 || spawned.execErrno != 0) {
    if (spawned.pid > 0) waitpid(spawned.pid, nullptr, 0);
    close(tracePipe[0]);
    if (!traceDir.empty()) removeTree(traceDir);
    if (!libraryLog.dir.empty()) removeTree(libraryLog.dir);
    reporter.error(spawned.execErrno == ENOENT ? "program-not-found" : "program-not-executable",
                   "cannot run " + request.path + ": " + std::strerror(spawned.execErrno));
    return {DoneStatus::Error, kExitCouldNotRun};
  }
  const pid_t pid = spawned.pid;
  reporter.programStart(options.program, pid);

  TraceCollector collector(startMonoNs);
  TraceReader reader(tracePipe[0], collector);
  KfdSdmaSampler kfd(pid);
  const bool sampleKfd = backend == "hip" && kfd.available();
  auto nextKfd = std::chrono::steady_clock::now();
  bool pipeOpen = true;
  int status = 0;
  bool exited = false;
  std::optional<std::chrono::steady_clock::time_point> cancelledAt;
  bool killed = false;
  while (!exited) {
    if (pipeOpen) {
      pollfd p{tracePipe[0], POLLIN, 0};
      poll(&p, 1, kPollMs);
      pipeOpen = reader.drain(kDrainBytesPerTurn);
    } else {
      poll(nullptr, 0, kPollMs);
    }
    if (sampleKfd && std::chrono::steady_clock::now() >= nextKfd) {
      kfd.sample();
      nextKfd = std::chrono::steady_clock::now() + kKfdSampleEvery;
    }
    heartbeat();  // the program is running: a long silent one is not a stuck helper
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) exited = true;
    if (w < 0 && errno != EINTR) break;
    if (cancel::requested() && !cancelledAt) {
      // The signal we got, to the whole group: what a terminal's Ctrl-C would have done.
      kill(-pid, cancel::exitCode() - 128);
      cancelledAt = std::chrono::steady_clock::now();
    }
    if (cancelledAt && !killed && std::chrono::steady_clock::now() - *cancelledAt > kCancelGrace) {
      kill(-pid, SIGKILL);
      killed = true;
    }
  }
  // Whatever the program's side flushed before it ended; children that still hold the
  // pipe open do not keep the run waiting.
  if (pipeOpen) reader.drain(kFinalDrainBytes);
  close(tracePipe[0]);
  if (cancelledAt) kill(-pid, SIGKILL);  // anything the program left behind in its group

  ProgramExit exit;
  if (WIFEXITED(status)) {
    exit.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    exit.signalName = signalName(WTERMSIG(status));
  }
  if (sampleKfd) exit.kfdSdma = kfd.totals();

  // What the program left behind is read now, stopped at once by SIGINT/SIGTERM (whether it
  // came during the program or after): a cancelled run ends promptly with what it has.
  ingest::Control control = ingest::Control::process();
  if (!traceFile.empty()) readTraceFile(traceFile, kMaxTraceFileBytes, collector, control, warnings);
  if (!rocprofDir.empty()) readRocprofDir(rocprofDir, rocprofClockToMonoNs(), collector, warnings, control);
  if (!traceDir.empty()) removeTree(traceDir);
  if (backend == "sim" && options.simDispatches > 0) {
    addSimulatedRecords(options.simDispatches, gpuCount, startMonoNs, collector);
  }
  std::vector<DispatchRecord> dispatches;
  std::vector<CopyRecord> copies;
  std::vector<DeviceSpanRecord> spans;
  collector.finish(dispatches, copies, warnings, &spans);
  forEachInStartOrder(
      dispatches, copies, [&](const DispatchRecord& d) { reporter.dispatch(d); },
      [&](const CopyRecord& c) { reporter.copy(c); });
  spans = mergeTouchingSpans(std::move(spans));
  capSpans(spans, options.spanRecords, warnings);
  for (const DeviceSpanRecord& span : spans) reporter.deviceSpan(span);
  if (!libraryLog.dir.empty()) {
    for (const LibraryCalls& c : collectLibraryLog(libraryLog.dir, warnings, control)) reporter.libraryCalls(c);
  }
  reporter.programExit(options.program, pid, exit);
  for (const CollectorWarning& w : warnings) reporter.warning(w.code, w.message);
  if (cancelledAt || control.cancelled() || cancel::requested()) return {DoneStatus::Cancelled, cancel::exitCode()};
  return {};
}

}  // namespace

std::unique_ptr<cli::CommandRun> makeRunCommand(const std::vector<std::string_view>&) {
  return std::make_unique<RunCommand>();
}

}  // namespace sdma::runmode
