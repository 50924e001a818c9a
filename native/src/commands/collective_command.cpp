// sdma-probe collective and overlap: their flags, the engine that runs them (the simulator's
// model or NCCL/RCCL and the GPU), and the records made of what the engine hands its sink.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

#include "cli/args.hpp"
#include "cli/entries.hpp"
#include "sdma_limits.hpp"
#include "backends/registry.hpp"
#include "util/cancel.hpp"
#include "backend/collective_types.hpp"
#include "backend/gpu_engines.hpp"
#include "backend/endpoints.hpp"
#include "util/safe_file.hpp"
#include "util/ndjson_reader.hpp"
#include "util/process.hpp"
#include "commands/helper_child.hpp"
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
};

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
      if (item != "default" && item != "ce" && item != "gin-sdma") {
        throw UsageError("--variants: unknown variant '" + std::string(item) + "' (default, ce, gin-sdma, all)");
      }
      o.variants.emplace_back(item);
    }
  } else if (flag == "--gpus") {
    o.gpus.clear();
    for (std::string_view item : splitOn(value, ','))
      o.gpus.push_back(parseInt(flag, item, 0, static_cast<int>(limits::gpuIndexMax)));
    if (o.gpus.size() < 2) throw UsageError("--gpus: a collective needs at least two GPUs");
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
  } else {
    throw UsageError("unknown flag " + std::string(flag) + " for collective");
  }
}

void applyOverlapFlag(std::string_view flag, std::string_view value, Parsed& p) {
  OverlapOptions& o = p.overlapOptions;
  if (flag == "--compute") {
    o.computes.clear();
    for (std::string_view item : splitOn(value, ',')) {
      if (item != "gemm" && item != "fma") throw UsageError("--compute: '" + std::string(item) + "' (gemm, fma)");
      o.computes.emplace_back(item);
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
    o.copySizeBytes = parseSizeBytes(flag, value);
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
    if (p_.simGpus > 0 && (p_.backend == "hip" || p_.backend == "cuda")) {
      throw UsageError("--sim-gpus sets the simulated node's GPU count; --backend " + p_.backend +
                       " measures the GPUs this node has (leave --sim-gpus out, or use --backend sim)");
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
    if (!p_.overlap && gpuCount < 2) {
      return session.fail(
          "too-few-gpus", "this node has " + std::to_string(gpuCount) + " GPU; a collective needs two or more",
          "run the collective on a node with two or more GPUs; on this one, `sdma-probe sweep` measures "
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
        CollectiveSink sink;
        sink.progress = progress;
        sink.warning = warning;
        sink.variant = [&](const VariantReport& v) { reporter.collectiveVariant(v, simulated); };
        sink.point = [&](const PointReport& p) {
          if (p.wrong > 0) anyWrong = true;
          reporter.collectivePoint(p, simulated);
        };
        if (simulated) {
          failure = sim::runSimCollective(p_.collective, gpuCount, sink);
        } else {
#if defined(SDMA_PROBE_HAVE_CUDA) || defined(SDMA_PROBE_HAVE_HIP)
          std::vector<std::string> variants = p_.collective.variants;
          if (variants.empty()) variants = {"default", topology.node.vendor == "amd" ? "gin-sdma" : "ce"};
          if (p_.variantChild || variants.size() == 1) {
            p_.collective.variants = variants;
            failure = runGpuCollective(p_.collective, sink);
          } else {
            session.choice.backend.reset();
            for (const std::string& variant : variants) {
              if (cancel::requested()) break;
              const ChildResult child = runVariantChild(args_, variant, reporter);
              if (!child.started) {
                failure = {"runtime", "could not start the child process for variant " + variant, ""};
                break;
              }
              if (child.exitCode == kExitValidationFailed) anyWrong = true;
            }
          }
#else
          failure = {"backend-unavailable", "this sdma-probe was built without a GPU backend", ""};
#endif
        }
      } else {
        OverlapOptions& o = p_.overlapOptions;
        if (!p_.cusGiven) {
          o.cus.erase(std::remove_if(o.cus.begin(), o.cus.end(), [&](int c) { return c >= cusPerGpu; }), o.cus.end());
        }
        // A path that cannot exist between the endpoints says so once (standing for its beside
        // phase of every compute) and is left out of the phases.
        std::vector<std::string> paths;
        for (const std::string& name : o.paths) {
          const std::optional<CopyPath> path = parseCopyPath(name);
          const std::string reason =
              path ? session.choice.backend->pathUnsupported(*path, o.srcGpu, o.dstGpu) : std::string();
          if (reason.empty()) {
            paths.push_back(name);
          } else {
            reporter.pathUnsupported(*path, o.srcGpu, o.dstGpu, reason, static_cast<std::int64_t>(o.computes.size()));
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
  std::vector<std::string_view> args_;
  Parsed p_;
};

}  // namespace

std::string collectiveUsageText() {
  return R"(usage:
  sdma-probe collective [--backend B] [--ops LIST] [--variants LIST] [--gpus LIST]
                        [-b SIZE] [-e SIZE] [-f F | -i STEP] [-n N] [-w N] [-c 0|1]
                        [--in-place both|on|off] [--dtype T] [--nccl-lib PATH]
                        [--transport-log on|off] [--repeats N] [--seed N]
  sdma-probe overlap    [--backend B] [--compute LIST] [--paths LIST] [--cus LIST]
                        [--size SIZE] [--phase-ms N] [--gemm-n N] [--src E] [--dst E]
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

overlap: a compute kernel alone, beside each copy path, then alone again.
  --compute LIST       gemm (vendor BLAS, bf16), fma (FMA-bound kernel) (default both)
  --paths LIST         cu/host, engine/host, engine/device (default all three)
  --cus LIST           CUs/SMs of the cu/host copy (default 8,16,32)
  --size SIZE          bytes per copy (default 256M)
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
