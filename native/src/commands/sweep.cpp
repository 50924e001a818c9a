// sweep: the work units in order (size, path, CU count), their samples and the timeline.
#include "commands/sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/cancel.hpp"
#include "protocol/fault.hpp"
#include "protocol/timeline_file.hpp"

namespace sdma {

namespace {

// One pass per endpoint pair; within a pass size-major order: a run stopped part way still
// has every path at the small sizes.
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
          if (usesEngine(path)) {
            units.push_back(unit);  // the engine carries the bytes: CU counts do not apply
            continue;
          }
          for (int cus : options.cus) {
            unit.cus = cus;
            units.push_back(unit);
          }
        }
      }
    }
  }
  return units;
}

std::string unitLabel(const CopyRequest& unit) {
  std::string label = std::string(pathName(unit.path)) + " " + formatSize(unit.sizeBytes);
  if (!usesEngine(unit.path)) label += " " + std::to_string(unit.cus) + " CUs";
  if (unit.mode == TimingMode::OneShot) label += " one-shot";
  return label + ", " + pairName(unit.srcGpu, unit.dstGpu);
}

bool samePathAndPair(const CopyRequest& a, const CopyRequest& b) {
  return a.path == b.path && a.srcGpu == b.srcGpu && a.dstGpu == b.dstGpu;
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

}  // namespace

CommandResult runSweep(const Options& options, Backend& backend, Reporter& reporter) {
  const std::vector<CopyRequest> units = workUnits(options);
  const auto total = static_cast<std::int64_t>(units.size());
  FaultInjector faults(options.fault, reporter);
  if (!faults.onSampleCount(reporter.samplesEmitted())) return cancelled();

  std::int64_t done = 0;
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
    if (measurement.mode.empty()) {
      // Backends without their own timing modes (the simulator) still say which was asked for.
      CopyMeasurement labelled = measurement;
      labelled.mode = unit.mode == TimingMode::OneShot ? "one-shot" : "pipelined";
      reporter.sample(unit, labelled);
    } else {
      reporter.sample(unit, measurement);
    }
    if (const auto mismatch = moverMismatch(unit.path, measurement.evidence)) {
      // The sample stays in the run, flagged by its evidence; nothing after it is measured.
      reporter.error("mover-mismatch", unitLabel(unit) + ": " + *mismatch, kMoverMismatchHint);
      return {DoneStatus::Error, kExitValidationFailed};
    }
    if (!faults.onSampleCount(reporter.samplesEmitted())) return cancelled();
    reporter.progress(++done, total, unitLabel(unit));
  }

  if (options.timeline) {
    if (cancel::requested()) return cancelled();
    return recordTimeline(options, *options.timeline, backend, reporter);
  }
  return {};
}

}  // namespace sdma
