// sdma-probe collective and overlap: their flags, the engine that runs them (the simulator's
// model or NCCL/RCCL and the GPU), and the records made of what the engine hands its sink.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <csignal>
#include <thread>
#include <unistd.h>
#include <utility>

#include "cli/args.hpp"
#include "cli/entries.hpp"
#include "sdma_limits.hpp"
#include "backends/registry.hpp"
#include "util/cancel.hpp"
#include "backend/collective_types.hpp"
#include "backend/collective_variants.hpp"
#include "backend/gpu_engines.hpp"
#include "backend/endpoints.hpp"
#include "util/safe_file.hpp"
#include "util/ndjson_reader.hpp"
#include "util/process.hpp"
#include "commands/helper_child.hpp"
#include "commands/rank_bootstrap.hpp"
#include "commands/rank_launcher.hpp"
#include "protocol/reporter.hpp"
#include "backends/sim/collective_model.hpp"

namespace sdma::collective {

namespace {

constexpr int kExitInterrupted = 130;

using cli::splitOn;

int parseInt(std::string_view flag, std::string_view text, int min, int max) {
  return static_cast<int>(cli::parseIntInRange(flag, text, min, max));
}

bool parseOnOff(std::string_view flag, std::string_view text) { return cli::parseOnOff(flag, text, true); }

struct Parsed {
  bool overlap = false;
  std::string backend = "auto";
  CollectiveOptions collective;
  OverlapOptions overlapOptions;
  std::uint64_t minBytes = std::uint64_t{1} << 10;
  std::uint64_t maxBytes = std::uint64_t{256} << 20;
  std::uint64_t stepFactor = 2;
  std::uint64_t stepBytes = std::uint64_t{1} << 20;
  bool cusGiven = false;
  bool srcGiven = false;
  bool dstGiven = false;
  int simGpus = 0;            // --sim-gpus
  bool variantChild = false;  // started by the parent for one variant: env read fresh at init
  std::string bootstrapDir;   // --bootstrap-dir: ranks started by srun/mpirun meet here
  int rankTimeoutS = 300;     // --rank-timeout: a rank silent this long is taken as hung
  int rankChild = -1;         // --rank-child R: this process is rank R of --world N, one variant
  int world = 0;
  // --rank-fault KIND:R@K (simulated node only, for tests): rank R exits (exit), kills itself
  // (kill) or stops without a word (hang) after its K-th point.
  bool renamedVariant = false;  // --variants named gin-sdma, gin-sdma-lib's old name
  std::string launcherOfRank;   // --launcher-of-rank: who started the rank this child serves
  std::string rankFaultKind;
  int rankFaultRank = -1;
  int rankFaultAfter = 0;
};

// --rank-fault exit:1@2
void parseRankFault(std::string_view value, Parsed& p) {
  const std::size_t colon = value.find(':');
  const std::size_t at = value.find('@');
  const std::string_view kind = value.substr(0, colon);
  if (colon == std::string_view::npos || at == std::string_view::npos || at < colon ||
      (kind != "exit" && kind != "kill" && kind != "hang")) {
    throw UsageError("--rank-fault: '" + std::string(value) + "' is not exit|kill|hang:RANK@POINTS");
  }
  p.rankFaultKind = std::string(kind);
  p.rankFaultRank = parseInt("--rank-fault", value.substr(colon + 1, at - colon - 1), 0, 4095);
  p.rankFaultAfter = parseInt("--rank-fault", value.substr(at + 1), 0, 1000000);
}

void applyCollectiveFlag(std::string_view flag, std::string_view value, Parsed& p) {
  CollectiveOptions& o = p.collective;
  if (flag == "--ops") {
    o.ops.clear();
    for (std::string_view item : splitOn(value, ',')) {
      const std::optional<Op> op = parseOp(item);
      if (!op) throw UsageError("--ops: unknown operation '" + std::string(item) + "' (allgather, alltoall)");
      if (std::find(o.ops.begin(), o.ops.end(), *op) == o.ops.end()) o.ops.push_back(*op);
    }
  } else if (flag == "--variants") {
    o.variants.clear();
    for (std::string_view item : splitOn(value, ',')) {
      if (item == "all") {
        o.variants.clear();
        return;
      }
      const std::optional<std::string> name = canonicalVariant(item);
      if (!name) {
        throw UsageError("--variants: unknown variant '" + std::string(item) + "' (default, ce, gin-sdma-lib, all)");
      }
      if (*name != item) p.renamedVariant = true;
      o.variants.push_back(*name);
    }
  } else if (flag == "--gpus") {
    o.gpus.clear();
    for (std::string_view item : splitOn(value, ','))
      o.gpus.push_back(parseInt(flag, item, 0, static_cast<int>(limits::gpuIndexMax)));
  } else if (flag == "--min-bytes") {
    p.minBytes = parseSizeBytes(flag, value);
  } else if (flag == "--max-bytes") {
    p.maxBytes = parseSizeBytes(flag, value);
  } else if (flag == "--step-factor") {
    p.stepFactor = static_cast<std::uint64_t>(parseInt(flag, value, 1, 1024));
  } else if (flag == "--step-bytes") {
    p.stepBytes = parseSizeBytes(flag, value);
  } else if (flag == "--iters") {
    o.iters = parseInt(flag, value, 1, static_cast<int>(limits::itersMax));
  } else if (flag == "--warmup") {
    o.warmupIters = parseInt(flag, value, 0, static_cast<int>(limits::warmupMax));
  } else if (flag == "--repeats") {
    o.repeats = parseInt(flag, value, 1, static_cast<int>(limits::collectiveRepeatsMax));
  } else if (flag == "--check") {
    o.check = parseOnOff(flag, value);
  } else if (flag == "--in-place") {
    if (value == "both") {
      o.inPlace = o.outOfPlace = true;
    } else if (value == "on" || value == "only") {
      o.inPlace = true;
      o.outOfPlace = false;
    } else if (value == "off") {
      o.inPlace = false;
      o.outOfPlace = true;
    } else {
      throw UsageError("--in-place: '" + std::string(value) + "' is not both, on or off");
    }
  } else if (flag == "--dtype") {
    if (value != "float" && value != "bf16" && value != "uint8") {
      throw UsageError("--dtype: '" + std::string(value) + "' is not float, bf16 or uint8");
    }
    o.dtype = std::string(value);
  } else if (flag == "--nccl-lib") {
    o.ncclLib = std::string(value);
  } else if (flag == "--transport-log") {
    o.transportLog = parseOnOff(flag, value);
  } else if (flag == "--mode") {
    if (value == "rank-per-process") {
      o.mode = RankMode::RankPerProcess;
    } else if (value == "single-process") {
      o.mode = RankMode::SingleProcess;
    } else {
      throw UsageError("--mode: '" + std::string(value) + "' is not rank-per-process or single-process");
    }
  } else if (flag == "--bootstrap-dir") {
    if (value.empty() || value.size() > 4096) throw UsageError("--bootstrap-dir: name a folder");
    p.bootstrapDir = std::string(value);
  } else if (flag == "--rank-timeout") {
    p.rankTimeoutS = parseInt(flag, value, 1, 86400);
  } else if (flag == "--rank-child") {
    p.rankChild = parseInt(flag, value, 0, 4095);
  } else if (flag == "--world") {
    p.world = parseInt(flag, value, 1, 4096);
  } else if (flag == "--rank-fault") {
    parseRankFault(value, p);
  } else if (flag == "--launcher-of-rank") {
    if (value != "srun" && value != "mpirun") throw UsageError("--launcher-of-rank: srun or mpirun");
    p.launcherOfRank = std::string(value);
  } else {
    throw UsageError("unknown flag " + std::string(flag) + " for collective");
  }
}

void applyOverlapFlag(std::string_view flag, std::string_view value, Parsed& p) {
  OverlapOptions& o = p.overlapOptions;
  if (flag == "--compute") {
    o.computes.clear();
    o.computesGiven = true;
    for (std::string_view item : splitOn(value, ',')) {
      if (item != "gemm" && item != "fma" && item != "triad") {
        throw UsageError("--compute: '" + std::string(item) + "' is not gemm, fma or triad");
      }
      if (std::find(o.computes.begin(), o.computes.end(), item) == o.computes.end()) o.computes.emplace_back(item);
    }
  } else if (flag == "--paths") {
    o.paths.clear();
    for (CopyPath path : parsePathList(flag, value)) {
      if (path == CopyPath::CuDevice) {
        throw UsageError(
            "--paths: cu/device is not an overlap path (its persistent kernel would hold its SMs "
            "for the whole phase); use cu/host with --cus");
      }
      o.paths.emplace_back(pathName(path));
    }
  } else if (flag == "--cus") {
    o.cus = parseCuList(flag, value);
    p.cusGiven = true;
  } else if (flag == "--size") {
    o.copySizesBytes.clear();
    for (std::uint64_t size : parseSizeList(flag, value)) {
      if (size < 16) throw UsageError("--size: " + std::to_string(size) + " bytes is below one 16-byte copy vector");
      if (std::find(o.copySizesBytes.begin(), o.copySizesBytes.end(), size) == o.copySizesBytes.end()) {
        o.copySizesBytes.push_back(size);
      }
    }
  } else if (flag == "--phase-ms") {
    o.phaseMs = parseInt(flag, value, 50, 60000);
  } else if (flag == "--gemm-n") {
    o.gemmN = parseInt(flag, value, 256, 32768);
  } else if (flag == "--src") {
    o.srcGpu = parseEndpoint(flag, value);
    p.srcGiven = true;
  } else if (flag == "--dst") {
    o.dstGpu = parseEndpoint(flag, value);
    p.dstGiven = true;
  } else {
    throw UsageError("unknown flag " + std::string(flag) + " for overlap");
  }
}

#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
// NCCL caches some environment settings for the life of the process, so on hardware every
// variant runs in a child sdma-probe of its own with that variant's environment; the parent
// forwards the child's records and drops its hello/topology/done.
struct ChildResult {
  bool started = false;
  int exitCode = 0;
};

ChildResult runVariantChild(const std::vector<std::string_view>& args, const std::string& variant, Reporter& reporter) {
  HelperChildSpec spec;
  for (std::string_view a : args) spec.args.emplace_back(a);
  spec.args.insert(spec.args.end(), {"--variants", variant, "--variant-child", "1"});
  const HelperChildResult child =
      runHelperChild(spec, [&](std::string_view type, const ndjson::Value& record, const std::string& line) {
        if (type == "collective" || type == "collective-variant" || type == "warning" || type == "progress") {
          reporter.relay(line);
        } else if (type == "heartbeat") {
          reporter.heartbeat();  // the child is moving: so is this run (written only after a silence)
        } else if (type == "error") {
          reporter.warning("variant-failed",
                           "variant " + variant + ": " + ndjson::stringField(record, "message").value_or(""));
        }
      });
  if (child.overlongLines > 0) {
    reporter.warning("variant-record-overlong", "variant " + variant + ": " + std::to_string(child.overlongLines) +
                                                    " lines of its output were longer than " +
                                                    std::to_string(kMaxChildLineBytes >> 20) + " MiB and were dropped");
  }
  return {child.started, child.exitCode};
}
#endif

class CollectiveCommand : public cli::CommandRun {
 public:
  CollectiveCommand(const std::vector<std::string_view>& args, bool overlap) : args_(args) { p_.overlap = overlap; }

  void flag(std::string_view name, std::string_view value) override {
    if (name == "--backend") {
      p_.backend = cli::parseBackendName(name, value);
    } else if (name == "--sim-gpus") {
      p_.simGpus = parseInt(name, value, 1, static_cast<int>(limits::simGpusMax));
    } else if (name == "--variant-child") {
      p_.variantChild = value == "1";
    } else if (name == "--seed") {
      const int seed = parseInt(name, value, 0, 2147483647);
      p_.collective.seed = p_.overlapOptions.seed = static_cast<std::uint64_t>(seed);
    } else if (p_.overlap) {
      applyOverlapFlag(name, value, p_);
    } else {
      applyCollectiveFlag(name, value, p_);
    }
  }

  void finish() override {
    if (!p_.overlap) {
      p_.collective.sizesBytes = sweepSizes(p_.minBytes, p_.maxBytes, p_.stepFactor, p_.stepBytes);
      if (p_.collective.sizesBytes.empty()) throw UsageError("-b/-e: the minimum size is above the maximum");
    } else if (isHost(p_.overlapOptions.srcGpu) && isHost(p_.overlapOptions.dstGpu)) {
      throw UsageError("--src and --dst are both host: one end of a copy must be a GPU");
    }
    if (!p_.overlap) finishRanks();
    if (p_.simGpus > 0 && (p_.backend == "hip" || p_.backend == "cuda")) {
      throw UsageError("--sim-gpus sets the simulated node's GPU count; --backend " + p_.backend +
                       " measures the GPUs this node has (leave --sim-gpus out, or use --backend sim)");
    }
  }

  // How this process takes part in a rank-per-process run; a rank of srun/mpirun other than
  // 0 writes no records (the launcher merges every rank's stdout).
  void finishRanks() {
    if (!p_.launcherOfRank.empty()) launcher_ = p_.launcherOfRank == "srun" ? Launcher::Srun : Launcher::Mpirun;
    if (p_.rankChild >= 0) {
      if (p_.world < 1 || p_.rankChild >= p_.world) throw UsageError("--rank-child must be below --world");
      return;
    }
    if (!p_.rankFaultKind.empty() && p_.backend != "sim") {
      throw UsageError("--rank-fault runs on the simulated node only (--backend sim)");
    }
    if (p_.bootstrapDir.empty()) return;
    if (p_.collective.mode != RankMode::RankPerProcess) {
      throw UsageError("--bootstrap-dir is for ranks started by srun or mpirun (--mode rank-per-process)");
    }
    std::string problem;
    external_ = detectExternalRank(
        [](const char* name) -> std::optional<std::string> {
          const char* v = std::getenv(name);
          return v != nullptr ? std::optional<std::string>(v) : std::nullopt;
        },
        problem);
    if (!external_) {
      throw UsageError("--bootstrap-dir: " +
                       (problem.empty() ? std::string("no srun or mpirun rank in the environment "
                                                      "(SLURM_PROCID with SLURM_STEP_ID, "
                                                      "OMPI_COMM_WORLD_RANK, PMI_RANK)")
                                        : problem) +
                       "; without a launcher leave --bootstrap-dir out and the helper starts the ranks itself");
    }
    launcher_ = external_->launcher;
    if (external_->rank != 0) {
      const int devNull = open("/dev/null", O_WRONLY | O_CLOEXEC);
      if (devNull >= 0) {
        std::fflush(stdout);
        dup2(devNull, STDOUT_FILENO);
        close(devNull);
      }
    }
  }

  std::string backendName() const override { return p_.backend; }
  BackendSettings backendSettings() const override { return BackendSettings{p_.collective.seed, 0, p_.simGpus, {}}; }

  // Stopped for want of a GPU, the collective still names the library it would load.
  void beforeNoGpu(cli::Session& session) override {
#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
#if defined(SDMA_PROBE_HAVE_HIP)
    if (p_.backend != "hip") return;
#else
    if (p_.backend != "cuda") return;
#endif
    std::string description;
    if (describeCollectiveLibrary(p_.collective.ncclLib, description)) {
      session.reporter.warning("collective-library", description + " (loaded; not used: no GPU to run on)");
    } else {
      session.reporter.warning("collective-library-unavailable", description + "; install it or pass --nccl-lib PATH");
    }
#else
    (void)session;
#endif
  }

  CommandResult run(cli::Session& session) override {
    Reporter& reporter = session.reporter;
    const Topology& topology = session.choice.backend->topology();
    const int gpuCount = static_cast<int>(topology.gpus.size());
    const bool oneRankAllowed = p_.collective.mode == RankMode::RankPerProcess;
    if (!p_.overlap && (gpuCount < 1 || (gpuCount < 2 && !oneRankAllowed))) {
      return session.fail(
          "too-few-gpus", "this node has " + std::to_string(gpuCount) + " GPU; a collective needs two or more",
          "run the collective on a node with two or more GPUs (or one rank: --mode rank-per-process); on this one, "
          "`sdma-probe sweep` measures "
          "host <-> GPU and GPU-local copies, and --backend sim --sim-gpus 8 shows a collective on a "
          "simulated node",
          kExitRuntimeFailure);
    }
    OverlapOptions& endpoints = p_.overlapOptions;
    if (p_.overlap && gpuCount == 1) {
      // One GPU: the default copy is host -> GPU 0; a missing end of a given one is GPU 0.
      if (!p_.srcGiven) endpoints.srcGpu = p_.dstGiven ? 0 : kHostEndpoint;
      if (!p_.dstGiven) endpoints.dstGpu = 0;
      if (isHost(endpoints.srcGpu) && isHost(endpoints.dstGpu)) {
        return session.usage("--src and --dst are both host: one end of a copy must be a GPU");
      }
    }
    for (int gpu : p_.collective.gpus) {
      if (const std::string problem = endpointProblem(gpu, gpuCount); !problem.empty()) {
        return session.usage("--gpus: " + problem);
      }
    }
    if (!p_.overlap && p_.collective.mode == RankMode::SingleProcess && p_.collective.gpus.size() == 1) {
      return session.usage(
          "--gpus: one process drives at least two GPUs (--mode single-process); one rank runs "
          "with --mode rank-per-process");
    }
    if (p_.overlap) {
      for (const auto& [flag, endpoint] :
           {std::pair{"--src", endpoints.srcGpu}, std::pair{"--dst", endpoints.dstGpu}}) {
        if (const std::string problem = endpointProblem(endpoint, gpuCount); !problem.empty()) {
          return session.usage(std::string(flag) + ": " + problem +
                               "; name a GPU that `sdma-probe info` shows, or host");
        }
      }
    }
    const bool simulated = session.choice.backend->simulated();
    const int workingGpuIndex = p_.overlap ? workingGpu(endpoints.srcGpu, endpoints.dstGpu) : 0;
    const int cusPerGpu = topology.gpus[static_cast<std::size_t>(workingGpuIndex)].cus;
    if (p_.overlap && std::any_of(p_.overlapOptions.cus.begin(), p_.overlapOptions.cus.end(),
                                  [&](int c) { return c >= cusPerGpu; })) {
      return session.usage("--cus: a copy must leave CUs for the compute (this GPU has " + std::to_string(cusPerGpu) +
                           ")");
    }
    reporter.topology(topology);

    const auto progress = [&](std::int64_t done, std::int64_t total, const std::string& message) {
      reporter.progress(done, total, message);
    };
    const auto warning = [&](const std::string& code, const std::string& message) { reporter.warning(code, message); };
    Error failure;  // empty: the engine ran to the end or stopped for a cancel
    bool anyWrong = false;

    try {
      if (!p_.overlap) {
        failure = runCollective(session, anyWrong);
      } else {
        OverlapOptions& o = p_.overlapOptions;
        if (!p_.cusGiven) {
          o.cus.erase(std::remove_if(o.cus.begin(), o.cus.end(), [&](int c) { return c >= cusPerGpu; }), o.cus.end());
        }
        // A path that cannot exist between the endpoints, or that this build cannot run beside
        // the compute, says so once (standing for its beside phase of every compute and size)
        // and is left out of the phases.
        std::vector<std::string> paths;
        const auto refusedPoints = static_cast<std::int64_t>(o.computes.size() * o.copySizesBytes.size());
        for (const std::string& name : o.paths) {
          const std::optional<CopyPath> path = parseCopyPath(name);
          std::string reason =
              path ? session.choice.backend->pathUnsupported(*path, o.srcGpu, o.dstGpu) : std::string();
#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
          if (path && reason.empty() && !simulated) reason = overlapPathUnsupported(*path, o.srcGpu, o.dstGpu);
#endif
          if (reason.empty()) {
            paths.push_back(name);
          } else {
            reporter.pathUnsupported(*path, o.srcGpu, o.dstGpu, reason, refusedPoints);
          }
        }
        o.paths = paths;
        OverlapSink sink;
        sink.progress = progress;
        sink.warning = warning;
        sink.point = [&](const OverlapReport& r) { reporter.overlap(r, simulated); };
        if (simulated) {
          failure = sim::runSimOverlap(o, cusPerGpu, sink, {}, sim::routeOf(o.srcGpu, o.dstGpu));
        } else {
          session.choice.backend.reset();  // the overlap owns the GPUs' streams from here
#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
          failure = runGpuOverlap(o, sink);
#else
          failure = {"backend-unavailable", "this sdma-probe was built without a GPU backend", ""};
#endif
        }
      }
    } catch (const Failure& f) {
      failure = f.error();
    }

    if (cancel::requested()) return {DoneStatus::Cancelled, kExitInterrupted};
    if (failure) {
      reporter.error(failure.code, failure.message, failure.hint);
      return {DoneStatus::Error, failure.code == "usage" ? kExitUsage : kExitRuntimeFailure};
    }
    if (anyWrong) {
      reporter.error("validation", "a collective delivered wrong data (see the points whose wrong > 0)");
      return {DoneStatus::Error, kExitValidationFailed};
    }
    return {};
  }

 private:
  // ---- collective: the three ways its ranks are laid out ----

  // Every variant's report says how its ranks ran.
  VariantReport stamped(VariantReport v, Launcher launcher) const {
    v.mode = p_.collective.mode;
    v.launcher = launcher;
    return v;
  }

  std::vector<int> rankDevices(int gpuCount) const {
    std::vector<int> devices = p_.collective.gpus;
    if (devices.empty()) {
      for (int d = 0; d < gpuCount; ++d) devices.push_back(d);
    }
    return devices;
  }

  std::vector<std::string> variantList(const Topology& topology) const {
    std::vector<std::string> variants = p_.collective.variants;
    if (variants.empty()) variants = vendorVariants(topology.node.vendor == "amd" ? "rccl" : "nccl");
    return variants;
  }

  Error runCollective(cli::Session& session, bool& anyWrong) {
    Reporter& reporter = session.reporter;
    if (p_.renamedVariant && p_.rankChild < 0) {
      reporter.warning("variant-renamed",
                       "gin-sdma is now called gin-sdma-lib (librccl's in-library AlltoAll "
                       "GIN-SDMA path); it ran under its new name");
    }
    if (p_.rankChild >= 0) return runRankChild(session, anyWrong);
    if (p_.collective.mode == RankMode::SingleProcess) return runSingleProcess(session, anyWrong);
    if (!p_.bootstrapDir.empty()) {
      const Error failure = runExternalRank(session, anyWrong);
      // A rank other than 0 writes no records; its stderr is where the launcher shows why.
      if (failure && external_->rank != 0) {
        std::fprintf(stderr, "sdma-probe: rank %d: %s (%s)\n", external_->rank, failure.message.c_str(),
                     failure.hint.c_str());
      }
      return failure;
    }
    return runHelperRanks(session, anyWrong);
  }

  // One process drives every GPU (ncclCommInitAll); on hardware each variant in a child.
  Error runSingleProcess(cli::Session& session, bool& anyWrong) {
    Reporter& reporter = session.reporter;
    const bool simulated = session.choice.backend->simulated();
    const Topology& topology = session.choice.backend->topology();
    CollectiveSink sink = printingSink(reporter, simulated, Launcher::Helper, anyWrong);
    if (simulated) return sim::runSimCollective(p_.collective, static_cast<int>(topology.gpus.size()), sink);
#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
    const std::vector<std::string> variants = variantList(topology);
    if (p_.variantChild || variants.size() == 1) {
      p_.collective.variants = variants;
      return runGpuCollective(p_.collective, sink);
    }
    session.choice.backend.reset();
    for (const std::string& variant : variants) {
      if (cancel::requested()) break;
      const ChildResult child = runVariantChild(args_, variant, reporter);
      if (!child.started) return {"runtime", "could not start the child process for variant " + variant, ""};
      if (child.exitCode == kExitValidationFailed) anyWrong = true;
    }
    return {};
#else
    return {"backend-unavailable", "this sdma-probe was built without a GPU backend", ""};
#endif
  }

  CollectiveSink printingSink(Reporter& reporter, bool simulated, Launcher launcher, bool& anyWrong) const {
    CollectiveSink sink;
    sink.progress = [&reporter](std::int64_t done, std::int64_t total, const std::string& message) {
      reporter.progress(done, total, message);
    };
    sink.warning = [&reporter](const std::string& code, const std::string& message) {
      reporter.warning(code, message);
    };
    sink.variant = [this, &reporter, simulated, launcher](const VariantReport& v) {
      reporter.collectiveVariant(stamped(v, launcher), simulated);
    };
    sink.point = [&reporter, &anyWrong, simulated](const PointReport& p) {
      if (p.wrong > 0) anyWrong = true;
      reporter.collectivePoint(p, simulated);
    };
    return sink;
  }

  // The bootstrap id of one variant's communicator: ncclGetUniqueId on hardware (this
  // process keeps its listener open until the ranks are done), random bytes on the
  // simulated node.
  bool bootstrapId(bool simulated, std::string& id, std::string& why) const {
    if (simulated) {
      id = randomId();
      return id.size() == kBootstrapIdBytes;
    }
#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
    return collectiveUniqueId(p_.collective.ncclLib, id, why);
#else
    why = "this sdma-probe was built without a GPU backend";
    return false;
#endif
  }

  // Rank-per-process, started here: for each variant one child per rank, each handed the
  // variant's bootstrap id on stdin. Rank 0's records are passed on, each point only once
  // every rank has finished it; one rank that fails or hangs stops them all.
  Error runHelperRanks(cli::Session& session, bool& anyWrong) {
    Reporter& reporter = session.reporter;
    const bool simulated = session.choice.backend->simulated();
    const Topology& topology = session.choice.backend->topology();
    const std::vector<int> devices = rankDevices(static_cast<int>(topology.gpus.size()));
    const std::vector<std::string> variants = variantList(topology);
    if (!simulated) session.choice.backend.reset();  // the ranks own the GPUs from here
    for (const std::string& variant : variants) {
      if (cancel::requested()) return {};
      std::string id, why;
      if (!bootstrapId(simulated, id, why)) {
        return {"library-unavailable", "cannot make the bootstrap id of the ranks: " + why,
                "install NCCL/RCCL or pass --nccl-lib PATH"};
      }
      const int world = static_cast<int>(devices.size());
      RankLaunchSpec spec;
      spec.ranks = world;
      spec.args = [&](int rank) {
        std::vector<std::string> a;
        for (std::string_view arg : args_) a.emplace_back(arg);
        a.insert(a.end(), {"--variants", variant, "--rank-child", std::to_string(rank), "--world",
                           std::to_string(world), "--gpus", std::to_string(devices[static_cast<std::size_t>(rank)])});
        return a;
      };
      spec.stdinLine = "sdma-lens-bootstrap " + toHex(id) + "\n";
      spec.silenceTimeout = std::chrono::seconds(p_.rankTimeoutS);
      spec.answerCodes = {kExitValidationFailed};
      const std::string label =
          "variant " + std::to_string(&variant - variants.data() + 1) + " of " + std::to_string(variants.size()) + ": ";
      const Error failure = relayRanks(reporter, spec, variant, label, anyWrong);
      if (failure || cancel::requested()) return failure;
    }
    return {};
  }

  // Passes rank 0's records on as the ranks advance; turns a rank's end into the run's error.
  // Each variant's ranks count their own points: `label` ("variant 2 of 3: ") goes before
  // rank 0's progress messages.
  Error relayRanks(Reporter& reporter, const RankLaunchSpec& spec, const std::string& variant, const std::string& label,
                   bool& anyWrong) {
    std::vector<std::int64_t> steps(static_cast<std::size_t>(spec.ranks), 0);
    // Rank 0's points and progress, each with the steps every rank must have reached first.
    struct Held {
      std::int64_t need = 0;  // rank-steps every rank must have reached
      std::string line;       // a point, as rank 0 printed it
      bool progress = false;
      std::int64_t done = 0, total = 0;
      std::string message;
    };
    std::vector<Held> held;
    std::size_t released = 0;
    std::int64_t rank0Points = 0;
    struct RankError {
      int rank = -1;
      std::string code, message, hint;
    } firstError;
    const auto release = [&] {
      const std::int64_t reached = *std::min_element(steps.begin(), steps.end());
      while (released < held.size() && held[released].need <= reached) {
        Held& h = held[released];
        if (h.progress) {
          reporter.progress(h.done, h.total, label + h.message);
        } else {
          reporter.relay(h.line);
        }
        h = Held{};
        ++released;
      }
    };
    const RankLaunchResult result =
        runRanks(spec, [&](int rank, std::string_view type, const ndjson::Value& record, const std::string& line) {
          if (type == "heartbeat") {
            reporter.heartbeat();
          } else if (type == "rank-step") {
            const std::optional<double> points = ndjson::numberField(record, "points");
            if (points && *points >= 0 && *points <= 1e9) {
              steps[static_cast<std::size_t>(rank)] = static_cast<std::int64_t>(*points);
              release();
            }
          } else if (type == "error") {
            if (firstError.rank < 0) {
              firstError = {rank, ndjson::stringField(record, "code").value_or("runtime"),
                            ndjson::stringField(record, "message").value_or(""),
                            ndjson::stringField(record, "hint").value_or("")};
            }
          } else if (rank == 0) {
            if (type == "collective" && held.size() < 1000000) {
              held.push_back({++rank0Points, line, false, 0, 0, ""});
              release();
            } else if (type == "progress" && held.size() < 1000000) {
              const auto count = [&](std::string_view key) {
                const std::optional<double> v = ndjson::numberField(record, key);
                return v && *v >= 0 && *v <= 1e12 ? static_cast<std::int64_t>(*v) : std::int64_t{0};
              };
              std::string message = ndjson::stringField(record, "message").value_or("");
              if (message.size() > 200) message.resize(200);
              held.push_back({rank0Points, "", true, count("done"), count("total"), message});
              release();
            } else if (type == "collective-variant" || type == "warning") {
              reporter.relay(line);
            }
          }
        });
    if (result.droppedLines > 0) {
      reporter.warning("rank-record-dropped", "variant " + variant + ": " + std::to_string(result.droppedLines) +
                                                  " lines of the ranks' output were not records or were too long");
    }
    for (int code : result.exitCodes) {
      if (code == kExitValidationFailed) anyWrong = true;
    }
    const std::string stopped = "; every rank of variant " + variant + " was stopped";
    const auto lastLine = [](const std::string& tail) {
      std::string t = tail;
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
      const std::size_t nl = t.rfind('\n');
      t = nl == std::string::npos ? t : t.substr(nl + 1);
      if (t.size() > 300) t.resize(300);
      return t;
    };
    switch (result.end) {
      case RankEnd::Finished:
      case RankEnd::Cancelled:
        return {};
      case RankEnd::StartFailed:
        return {"runtime",
                "could not start rank " + std::to_string(result.rank) + ": " + std::strerror(result.startErrno), ""};
      case RankEnd::RankStalled:
        return {"rank-stalled",
                "rank " + std::to_string(result.rank) + " printed nothing for " + std::to_string(p_.rankTimeoutS) +
                    " s (a rank stuck in the library waiting for a peer that died, a deadlock or a GPU that "
                    "stopped)" +
                    stopped,
                "run with NCCL_DEBUG=WARN to see the library's own report; raise --rank-timeout only if one point "
                "really takes longer"};
      case RankEnd::RankFailed:
        break;
    }
    if (firstError.rank >= 0) {
      return {firstError.code == "usage" ? "rank-failed" : firstError.code,
              "rank " + std::to_string(firstError.rank) + ": " + firstError.message + stopped, firstError.hint};
    }
    std::string message = result.rank >= 0 ? describeRankExit(result.rank, result.exitCode) : "a rank's output failed";
    const std::string tail = lastLine(result.stderrTail);
    if (!tail.empty()) message += " (its last words: " + tail + ")";
    return {"rank-failed", message + stopped,
            "the other ranks would have waited for it forever; run again, or with NCCL_DEBUG=WARN for the "
            "library's report"};
  }

  // One rank of one variant: reads its bootstrap id, runs the points and prints a rank-step
  // after each; rank 0 also prints the records. A rank outlives its parent never.
  Error runRankChild(cli::Session& session, bool& anyWrong) {
#if defined(__linux__)
    const pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // blocked in a collective, a rank hears no SIGTERM
    if (getppid() != parent) std::raise(SIGKILL);
#endif
    Reporter& reporter = session.reporter;
    const bool simulated = session.choice.backend->simulated();
    const int rank = p_.rankChild;
    const int world = std::max(p_.world, 1);
    if (rank >= world) return {"usage", "--rank-child must be below --world", ""};
    std::string line;
    std::getline(std::cin, line);
    const std::string prefix = "sdma-lens-bootstrap ";
    const std::optional<std::string> id =
        line.rfind(prefix, 0) == 0 ? idFromHex(std::string_view(line).substr(prefix.size())) : std::nullopt;
    if (!id) return {"runtime", "rank " + std::to_string(rank) + " got no bootstrap id on its standard input", ""};

    std::int64_t points = 0;
    const Launcher launcher = launcher_;
    CollectiveSink sink;
    sink.progress = [&](std::int64_t done, std::int64_t total, const std::string& message) {
      if (rank == 0) reporter.progress(done, total, message);
    };
    sink.warning = [&](const std::string& code, const std::string& message) {
      if (rank == 0) reporter.warning(code, message);
    };
    sink.variant = [&](const VariantReport& v) {
      if (rank == 0) reporter.collectiveVariant(stamped(v, launcher), simulated);
    };
    sink.point = [&](const PointReport& p) {
      if (p.wrong > 0) anyWrong = true;
      if (rank == 0) reporter.collectivePoint(p, simulated);
      reporter.rankStep(rank, ++points);
      if (rank == p_.rankFaultRank && points == p_.rankFaultAfter && simulated) injectRankFault();
    };
    if (simulated) {
      if (p_.rankFaultRank == rank && p_.rankFaultAfter == 0) injectRankFault();
      // The simulated ranks share one model: each computes every point, rank 0 prints it.
      CollectiveOptions o = p_.collective;
      o.gpus.clear();
      return sim::runSimCollective(o, world, sink);
    }
#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
    RankContext ctx;
    ctx.rank = rank;
    ctx.world = world;
    ctx.device = p_.collective.gpus.empty() ? rank : p_.collective.gpus.front();
    ctx.id = *id;
    session.choice.backend.reset();
    return runGpuCollectiveRank(p_.collective, ctx, sink);
#else
    return {"backend-unavailable", "this sdma-probe was built without a GPU backend", ""};
#endif
  }

  [[noreturn]] void injectRankFault() const {
    std::fflush(stdout);
    if (p_.rankFaultKind == "kill") std::raise(SIGKILL);
    if (p_.rankFaultKind == "hang") {
      std::signal(SIGTERM, SIG_IGN);
      while (true) pause();
    }
    std::fprintf(stderr, "sdma-probe: rank %d: injected fault after point %d\n", p_.rankFaultRank, p_.rankFaultAfter);
    std::_Exit(3);
  }

  // Rank-per-process under srun or mpirun: this process is one rank. Rank 0 makes each
  // variant's bootstrap id and writes it to the bootstrap folder; every rank runs the variant
  // in a rank child of its own (NCCL reads its environment once per process). Only rank 0
  // prints records: the others' stdout is the launcher's, shared.
  Error runExternalRank(cli::Session& session, bool& anyWrong) {
    Reporter& reporter = session.reporter;
    const bool simulated = session.choice.backend->simulated();
    const Topology& topology = session.choice.backend->topology();
    const ExternalRank& me = *external_;
    const std::vector<std::string> variants = variantList(topology);
    int device = me.localRank;
    if (!p_.collective.gpus.empty()) {
      if (me.localRank >= static_cast<int>(p_.collective.gpus.size())) {
        return {"usage",
                "--gpus names " + std::to_string(p_.collective.gpus.size()) + " GPUs but this is local rank " +
                    std::to_string(me.localRank),
                "name one GPU per rank of the node"};
      }
      device = p_.collective.gpus[static_cast<std::size_t>(me.localRank)];
    }
    if (!simulated) session.choice.backend.reset();
    for (const std::string& variant : variants) {
      if (cancel::requested()) return {};
      const std::string path = bootstrapFile(p_.bootstrapDir, me.jobKey, variant);
      std::string id, why;
      if (me.rank == 0) {
        if (!bootstrapId(simulated, id, why) || !writeBootstrapId(path, id, why)) {
          return {"runtime", "rank 0 could not publish the bootstrap id: " + why,
                  "--bootstrap-dir must be a folder every rank can reach (shared between nodes) and write"};
        }
      } else if (!readBootstrapId(path, std::chrono::seconds(p_.rankTimeoutS), id, why) ||
                 !acknowledgeBootstrapId(path, me.rank, why)) {
        if (cancel::requested()) return {};
        return {"runtime", why, "start every rank with the same --bootstrap-dir; rank 0 writes the id there"};
      }
      RankLaunchSpec spec;
      spec.ranks = 1;
      spec.args = [&](int) {
        std::vector<std::string> a;
        for (std::string_view arg : args_) a.emplace_back(arg);
        a.insert(a.end(),
                 {"--variants", variant, "--rank-child", std::to_string(me.rank), "--world", std::to_string(me.world),
                  "--gpus", std::to_string(device), "--launcher-of-rank", launcherName(me.launcher)});
        return a;
      };
      spec.stdinLine = "sdma-lens-bootstrap " + toHex(id) + "\n";
      spec.silenceTimeout = std::chrono::seconds(p_.rankTimeoutS);
      spec.answerCodes = {kExitValidationFailed};
      // This process's child is rank 0 of the spec: its records are passed on on rank 0 only.
      Error failure;
      if (me.rank == 0) {
        failure = relayRanks(reporter, spec, variant, "", anyWrong);
        if (!retireBootstrapId(path, me.world, std::chrono::seconds(p_.rankTimeoutS)) && !failure) {
          reporter.warning("rank-bootstrap-unread", "not every rank read the bootstrap id of variant " + variant +
                                                        " within " + std::to_string(p_.rankTimeoutS) + " s");
        }
      } else {
        const RankLaunchResult r =
            runRanks(spec, [](int, std::string_view, const ndjson::Value&, const std::string&) {});
        if (r.end == RankEnd::RankFailed || r.end == RankEnd::RankStalled) {
          failure = {"rank-failed", describeRankExit(me.rank, r.exitCode), ""};
        }
        for (int code : r.exitCodes) {
          if (code == kExitValidationFailed) anyWrong = true;
        }
      }
      if (failure || cancel::requested()) return failure;
    }
    return {};
  }

  std::vector<std::string_view> args_;
  Parsed p_;
  Launcher launcher_ = Launcher::Helper;  // rank children: who started the ranks
  std::optional<ExternalRank> external_;  // --bootstrap-dir: the rank srun/mpirun made this process
};

}  // namespace

std::string collectiveUsageText() {
  return R"(usage:
  sdma-probe collective [--backend B] [--ops LIST] [--variants LIST] [--gpus LIST]
                        [-b SIZE] [-e SIZE] [-f F | -i STEP] [-n N] [-w N] [-c 0|1]
                        [--in-place both|on|off] [--dtype T] [--nccl-lib PATH]
                        [--transport-log on|off] [--repeats N] [--seed N]
  sdma-probe overlap    [--backend B] [--compute LIST] [--paths LIST] [--cus LIST]
                        [--size LIST] [--phase-ms N] [--gemm-n N] [--src E] [--dst E]
  (both also take --sim-gpus N: GPUs of the simulated node, 1..8, sim only)

collective: AllGather/AlltoAll over the node's GPUs with NCCL/RCCL loaded at run time;
sizes, algbw and busbw as nccl-tests defines them (docs/COLLECTIVES.md).
  --ops LIST           allgather, alltoall (default both)
  --variants LIST      default, ce (NVIDIA copy-engine collectives), gin-sdma (AMD), all
                       (default: default plus the vendor's engine variant); gin-sdma is
                       librccl's AlltoAll GIN-SDMA path forced to SDMA at every size and
                       runs AlltoAll only (librccl has no in-library GIN-SDMA AllGather)
  --gpus LIST          GPU indices taking part (default all)
  -b, -e SIZE          smallest and largest size: bytes each rank receives (default 1K, 256M)
  -f F                 multiply the size by F each step (default 2); -f 1 adds -i STEP
  -n N, -w N           timed and warm-up calls per point (default 20, 5)
  --repeats N          time each point N times (1..100, default 5), each a loop of -n calls
                       after one warm-up; the point's time is their median, each is listed
  -c 0|1               check the received data (default 1)
  --in-place MODE      both (default), on, off; AlltoAll has no in-place form
  --dtype T            float (default), bf16, uint8
  --nccl-lib PATH      the library file to load (default libnccl.so.2 / librccl.so.1)
  --transport-log M    on (default): read the library's INFO log for the path each call took
  --seed N             salt of the data check; the simulator's noise (same seed, same numbers)

overlap: each copy alone once, then a compute kernel alone, beside each copy, alone again;
what the compute and the copy kept, the CUs the copy held and what moved its bytes.
  --compute LIST       gemm (vendor BLAS, bf16), fma (FMA-bound kernel), triad (STREAM
                       triad, memory-bound) (default all three)
  --paths LIST         cu/host, engine/host, engine/device (default all three)
  --cus LIST           CUs/SMs of the cu/host copy (default 8,16,32)
  --size LIST          bytes per copy, a comma list (default 256M)
  --phase-ms N         length of each phase (default 1500)
  --gemm-n N           GEMM M=N=K (default 8192)
  --src E, --dst E     the copy's endpoints: a GPU index or host (default 0 and 1;
                       host and 0 on a one-GPU node); the compute runs on the copy's GPU
)";
}

std::unique_ptr<cli::CommandRun> makeCollectiveCommand(const std::vector<std::string_view>& args) {
  return std::make_unique<CollectiveCommand>(args, false);
}

std::unique_ptr<cli::CommandRun> makeOverlapCommand(const std::vector<std::string_view>& args) {
  return std::make_unique<CollectiveCommand>(args, true);
}

}  // namespace sdma::collective
