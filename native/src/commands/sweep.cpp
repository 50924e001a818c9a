// sweep: the work units in order (size, path, CU count), their samples and the timeline.
#include "commands/sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/runtime_default.hpp"
#include "commands/helper_child.hpp"
#include "util/cancel.hpp"
#include "protocol/fault.hpp"
#include "protocol/timeline_file.hpp"

namespace sdma {

namespace {

// The seed's dimensions of one path (CopyRequest): the values each unit of a size, path and
// mode takes. cu/*: CU count x waves per CU. engine/host: each --engines value as a single copy
// (batch 0), then each --batch value above 0 as one batched call on one engine (a batched unit
// is never split). engine/device: channels x rocSHMEM SDMA mode x waves of the issuing kernel.
std::vector<CopyRequest> dimensionUnits(const Options& options, const CopyRequest& base) {
  const std::vector<int> waves = options.wavesPerCu.empty() ? std::vector<int>{0} : options.wavesPerCu;
  std::vector<CopyRequest> units;
  CopyRequest unit = base;
  switch (base.path) {
    case CopyPath::CuHost:
    case CopyPath::CuDevice:
      for (int cus : options.cus) {
        for (int w : waves) {
          unit.cus = cus;
          unit.wavesPerCu = w;
          units.push_back(unit);
        }
      }
      break;
    case CopyPath::EngineHost:
      if (std::find(options.batch.begin(), options.batch.end(), 0) != options.batch.end()) {
        for (int split : options.engines) {
          unit.split = split;
          unit.batch = 0;
          units.push_back(unit);
        }
      }
      for (int batch : options.batch) {
        if (batch == 0) continue;
        unit.split = 1;
        unit.batch = batch;
        units.push_back(unit);
      }
      break;
    case CopyPath::EngineDevice:
      for (int split : options.engines) {
        for (ShmemSdma mode : options.shmemSdma) {
          for (int w : waves) {
            unit.split = split;
            unit.shmemSdma = mode;
            unit.wavesPerCu = w;
            units.push_back(unit);
          }
        }
      }
      break;
  }
  return units;
}

// One pass per endpoint pair; within a pass size-major order: a run stopped part way still
// has every path, and every value of the seed's dimensions, at the small sizes.
std::vector<CopyRequest> workUnits(const Options& options) {
  std::vector<CopyRequest> units;
  for (const EndpointPair& pair : options.pairs) {
    for (std::uint64_t size : options.sizesBytes) {
      for (CopyPath path : options.paths) {
        for (TimingMode mode : options.modes) {
          CopyRequest unit{path, pair.src, pair.dst, size, 0, options.iters, options.warmupIters};
          unit.mode = mode;
          unit.targetNs = options.targetMs * 1e6;
          unit.blocksPerCu = options.blocksPerCu;
          unit.trace = options.trace;
          unit.engineId = options.engineId;
          for (const CopyRequest& u : dimensionUnits(options, unit)) units.push_back(u);
        }
      }
    }
  }
  return units;
}

// --series runtime-default: each engine/host point is a hipMemcpyAsync in this process's
// environment, labelled with the mover the runtime picks for it (runtime_default.hpp).
void labelRuntimeDefault(std::vector<CopyRequest>& units) {
  const RuntimeCopyEnv env = readRuntimeCopyEnv([](const char* name) { return std::getenv(name); });
  for (CopyRequest& unit : units) {
    const RuntimeDefaultChoice choice = runtimeDefaultChoice(unit.srcGpu, unit.dstGpu, unit.sizeBytes, env);
    unit.path = choice.path;
    unit.cus = choice.cus;
    unit.series = "runtime-default";
    unit.seriesRule = choice.why;
  }
}

std::string unitLabel(const CopyRequest& unit) {
  std::string label = (unit.series.empty() ? std::string() : unit.series + " ") + std::string(pathName(unit.path)) +
                      " " + formatSize(unit.sizeBytes);
  if (!usesEngine(unit.path)) label += " " + std::to_string(unit.cus) + " CUs";
  if (unit.wavesPerCu > 0) label += " " + std::to_string(unit.wavesPerCu) + " waves";
  if (unit.split > 1) {
    label += " " + std::to_string(unit.split) + (unit.path == CopyPath::EngineDevice ? " channels" : " engines");
  }
  if (unit.batch > 0) label += " batch of " + std::to_string(unit.batch);
  if (unit.path == CopyPath::EngineDevice && unit.shmemSdma != ShmemSdma::Forced) {
    label += " rocSHMEM SDMA " + std::string(shmemSdmaName(unit.shmemSdma));
  }
  if (unit.mode == TimingMode::OneShot) label += " one-shot";
  return label + ", " + pairName(unit.srcGpu, unit.dstGpu);
}

bool samePathAndPair(const CopyRequest& a, const CopyRequest& b) {
  return a.path == b.path && a.srcGpu == b.srcGpu && a.dstGpu == b.dstGpu;
}

// engine/device with --shmem-sdma library or off: the sample is labelled with the mover rocSHMEM
// uses for a put of its size (runtime_default.hpp rocshmemPutPath), a load/store put as cu/device
// on its one issuing CU; its evidence is judged against that label when printed. True when rocSHMEM's own
// threshold chose it (library), a prediction the evidence may overrule.
bool labelByRocshmem(CopyRequest& unit, CopyMeasurement& m) {
  if (unit.path != CopyPath::EngineDevice || unit.shmemSdma == ShmemSdma::Forced) return false;
  unit.path = rocshmemPutPath(unit.shmemSdma, unit.sizeBytes, [](const char* name) { return std::getenv(name); });
  if (unit.path == CopyPath::CuDevice) {
    unit.cus = 1;
    m.cus = 1;
    m.engines = 0;
    m.engineIds.clear();
  }
  return unit.shmemSdma == ShmemSdma::Library;
}

CommandResult cancelled() { return {DoneStatus::Cancelled, cancel::exitCode()}; }

CommandResult recordTimeline(const Options& options, const TimelineOptions& timeline, Backend& backend,
                             Reporter& reporter) {
  // The timeline records the sweep's first pair, on the paths that exist between its endpoints.
  const EndpointPair& pair = options.pairs.front();
  const TimelineRequest request{
      timelinePaths(options, backend, pair), pair.src, pair.dst, timeline.sizeBytes, timeline.cus, timeline.repeats};
  TimelineEvents events;
  const RunStatus status = backend.recordTimeline(request, events);
  if (status == RunStatus::Cancelled) return cancelled();
  if (status == RunStatus::Failed) {
    const CopyMeasurement failure = backend.lastTimelineFailure();
    reporter.error(failure.errorCode.empty() ? "runtime" : failure.errorCode, failure.failure, failure.hint);
    return {DoneStatus::Error, kExitRuntimeFailure};
  }
  const std::optional<TimelineClock> clock = backend.timelineClock();

  if (timeline.outPath.empty()) {
    reporter.timelineInline(events, timeline.sizeBytes, clock, pair.src, pair.dst);
    return {};
  }
  try {
    const std::uint64_t fileBytes = writeSdmatlFile(timeline.outPath, events);
    const std::string path = std::filesystem::absolute(timeline.outPath).string();
    reporter.timelineFile(path, events.size(), fileBytes, timeline.sizeBytes, clock, pair.src, pair.dst);
  } catch (const std::exception& e) {
    reporter.error("io", e.what());
    return {DoneStatus::Error, kExitRuntimeFailure};
  }
  return {};
}

// The runtime default series' points: one per pair, size and mode.
std::int64_t runtimeDefaultPoints(const Options& options) {
  return static_cast<std::int64_t>(options.pairs.size() * options.sizesBytes.size() * options.modes.size());
}

std::string joinSizes(const std::vector<std::uint64_t>& sizes) {
  std::string out;
  for (std::uint64_t s : sizes) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

std::string endpointWord(int e) { return isHost(e) ? "host" : std::to_string(e); }

// The child's command line: this sweep's points, engine/host only, as the series.
std::vector<std::string> runtimeDefaultArgs(const Options& options, std::string_view backend) {
  std::vector<std::string> args = {"sweep",       "--backend",       std::string(backend),
                                   "--series",    "runtime-default", "--paths",
                                   "engine/host", "--sizes",         joinSizes(options.sizesBytes)};
  std::string pairs;
  for (const EndpointPair& p : options.pairs) {
    pairs += (pairs.empty() ? "" : ",") + endpointWord(p.src) + ":" + endpointWord(p.dst);
  }
  args.insert(args.end(), {"--pairs", pairs, "--iters", std::to_string(options.iters), "--warmup",
                           std::to_string(options.warmupIters), "--seed", std::to_string(options.seed), "--target-ms",
                           std::to_string(options.targetMs)});
  const bool pipelined = std::count(options.modes.begin(), options.modes.end(), TimingMode::Pipelined) > 0;
  const bool oneShot = std::count(options.modes.begin(), options.modes.end(), TimingMode::OneShot) > 0;
  args.insert(args.end(), {"--mode", pipelined && oneShot ? "both" : (oneShot ? "one-shot" : "pipelined")});
  if (backend == "sim") {
    if (options.simGpus > 0) args.insert(args.end(), {"--sim-gpus", std::to_string(options.simGpus)});
    if (options.simDelayMs > 0) args.insert(args.end(), {"--sim-delay-ms", std::to_string(options.simDelayMs)});
    for (const SimWeakSpec& w : options.simWeak) {
      char factor[32];
      std::snprintf(factor, sizeof factor, "%.17g", w.factor);
      args.insert(args.end(), {"--sim-weak", w.what + "=" + factor + (w.host.empty() ? "" : "@" + w.host)});
    }
  }
  return args;
}

// The runtime default series, in a child sdma-probe whose environment is the user's: the
// HIP runtime reads its copy thresholds once per process, and this one has set them to 0.
CommandResult runRuntimeDefault(const Options& options, Backend& backend, Reporter& reporter,
                                const std::vector<RuntimeKnob>& knobs, std::int64_t& done, std::int64_t total) {
  if (backend.name() == "cuda") {
    reporter.warning("runtime-default-cuda",
                     "no runtime default series on NVIDIA: its engine/host series already is what cudaMemcpyAsync "
                     "does by default");
    done += runtimeDefaultPoints(options);
    return {};
  }
  HelperChildSpec spec;
  spec.args = runtimeDefaultArgs(options, backend.name());
  for (const RuntimeKnob& knob : knobs) {
    if (knob.previous) {
      spec.set.emplace_back(knob.name, *knob.previous);
    } else {
      spec.unset.push_back(knob.name);
    }
  }
  bool childError = false;
  const HelperChildResult child = runHelperChild(spec, [&](std::string_view type, const ndjson::Value& record,
                                                           const std::string& line) {
    if (type == "sample") {
      reporter.relaySample(line);
      ++done;
      reporter.progress(done, total,
                        "runtime default series, " +
                            formatSize(static_cast<std::uint64_t>(ndjson::intField(record, "sizeBytes").value_or(0))));
    } else if (type == "warning" || type == "path-unsupported" || type == "error") {
      childError = childError || type == "error";
      reporter.relay(line);
    } else if (type == "heartbeat") {
      reporter.heartbeat();
    }
  });
  if (!child.started) {
    reporter.error("runtime", "could not start the child sdma-probe of the runtime default series (errno " +
                                  std::to_string(child.startErrno) + ")");
    return {DoneStatus::Error, kExitRuntimeFailure};
  }
  if (child.overlongLines + child.unreadLines > 0) {
    reporter.warning("runtime-default-output", std::to_string(child.overlongLines + child.unreadLines) +
                                                   " lines of the runtime default series' helper were not records");
  }
  if (cancel::requested()) return cancelled();
  if (child.exitCode != 0) {
    if (!childError) {
      reporter.error("runtime", "the runtime default series' helper ended with exit code " +
                                    std::to_string(child.exitCode) + " before its points were done");
    }
    return {DoneStatus::Error, child.exitCode == kExitValidationFailed ? kExitValidationFailed : kExitRuntimeFailure};
  }
  return {};
}

}  // namespace

CommandResult runSweep(const Options& options, Backend& backend, Reporter& reporter,
                       const std::vector<RuntimeKnob>& knobs) {
  std::vector<CopyRequest> units = workUnits(options);
  if (options.series == "runtime-default") labelRuntimeDefault(units);
  const std::int64_t ownUnits = static_cast<std::int64_t>(units.size());
  const std::int64_t total = ownUnits + (options.runtimeDefault ? runtimeDefaultPoints(options) : 0);
  FaultInjector faults(options.fault, reporter);
  if (!faults.onSampleCount(reporter.samplesEmitted())) return cancelled();

  std::int64_t done = 0;
  std::vector<std::string> dimensionReasons;  // dimension-unsupported reasons already printed
  for (std::size_t index = 0; index < units.size(); ++index) {
    if (cancel::requested()) return cancelled();
    CopyRequest unit = units[index];
    if (const std::string reason = backend.pathUnsupported(unit.path, unit.srcGpu, unit.dstGpu); !reason.empty()) {
      // Once per path and pair, where its first sample would have been; it stands for all of them.
      const bool first = std::none_of(units.begin(), units.begin() + static_cast<std::ptrdiff_t>(index),
                                      [&](const CopyRequest& u) { return samePathAndPair(u, unit); });
      if (!first) continue;
      const auto points = std::count_if(units.begin() + static_cast<std::ptrdiff_t>(index), units.end(),
                                        [&](const CopyRequest& u) { return samePathAndPair(u, unit); });
      reporter.pathUnsupported(unit.path, unit.srcGpu, unit.dstGpu, reason, points);
      done += points;
      reporter.progress(done, total,
                        std::string(pathName(unit.path)) + ", " + pairName(unit.srcGpu, unit.dstGpu) + ": unsupported");
      continue;
    }
    if (const std::string reason = backend.dimensionUnsupported(unit); !reason.empty()) {
      // Once per reason: it names the value; every point it applies to is skipped and counted.
      if (std::find(dimensionReasons.begin(), dimensionReasons.end(), reason) == dimensionReasons.end()) {
        dimensionReasons.push_back(reason);
        reporter.warning("dimension-unsupported",
                         unitLabel(unit) + ": " + reason + " (skipped, with every point this applies to)");
      }
      reporter.progress(++done, total, unitLabel(unit) + ": skipped");
      continue;
    }
    unit.corruptCopy = faults.corruptNextCopy(reporter.samplesEmitted());
    unit.mislabel = faults.mislabelNextCopy(reporter.samplesEmitted(), unit.path);
    const CopyMeasurement measurement = backend.measure(unit);
    if (measurement.status == RunStatus::Cancelled) return cancelled();
    if (measurement.status == RunStatus::Failed) {
      reporter.error(measurement.errorCode.empty() ? "runtime" : measurement.errorCode,
                     unitLabel(unit) + ": " + measurement.failure, measurement.hint);
      return {DoneStatus::Error, kExitRuntimeFailure};
    }
    if (measurement.status == RunStatus::ValidationFailed) {
      reporter.error("validation", "the destination of " + unitLabel(unit) + " held wrong bytes",
                     "no bandwidth is reported for a copy that moved wrong bytes; rerun to see whether it "
                     "repeats, and check the link and driver (or drop --fault corrupt-after)",
                     measurement.failure);
      return {DoneStatus::Error, kExitValidationFailed};
    }
    CopyRequest shown = unit;
    CopyMeasurement labelled = measurement;
    // Backends without their own timing modes (the simulator) still say which was asked for.
    if (labelled.mode.empty()) labelled.mode = unit.mode == TimingMode::OneShot ? "one-shot" : "pipelined";
    const bool libraryChoice = labelByRocshmem(shown, labelled);
    reporter.sample(shown, labelled);
    // rocSHMEM's own threshold is read from the environment here; where the node's rocSHMEM
    // decides otherwise the sample's evidence says so, and the run goes on.
    if (const auto mismatch = libraryChoice ? std::nullopt : moverMismatch(shown.path, labelled.evidence)) {
      // The sample stays in the run, flagged by its evidence; nothing after it is measured.
      reporter.error("mover-mismatch", unitLabel(unit) + ": " + *mismatch, kMoverMismatchHint);
      return {DoneStatus::Error, kExitValidationFailed};
    }
    if (!faults.onSampleCount(reporter.samplesEmitted())) return cancelled();
    reporter.progress(++done, total, unitLabel(unit));
  }

  if (options.runtimeDefault) {
    if (cancel::requested()) return cancelled();
    const CommandResult series = runRuntimeDefault(options, backend, reporter, knobs, done, total);
    if (series.status != DoneStatus::Ok) return series;
  }
  if (options.timeline) {
    if (cancel::requested()) return cancelled();
    return recordTimeline(options, *options.timeline, backend, reporter);
  }
  return {};
}

}  // namespace sdma
