// matrix: the options fitted to the node, then every ordered pair measured, one at a time or all at once.
#include "commands/matrix.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

#include "util/cancel.hpp"
#include "protocol/fault.hpp"

namespace sdma {

namespace {

std::string cellLabel(const CopyRequest& cell) {
  std::string label = std::string(pathName(cell.path)) + " " + pairName(cell.srcGpu, cell.dstGpu);
  if (!usesEngine(cell.path)) label += " (" + std::to_string(cell.cus) + " CUs)";
  return label;
}

// Path-major, then source, then destination: the order nvbandwidth prints its matrices in.
// Every ordered pair of distinct endpoints (the list holds host at most once).
std::vector<CopyRequest> cells(const Options& options) {
  std::vector<CopyRequest> out;
  for (CopyPath path : options.paths) {
    for (int src : options.gpus) {
      for (int dst : options.gpus) {
        if (src == dst) continue;
        CopyRequest cell{path,
                         src,
                         dst,
                         options.sizesBytes.front(),
                         usesEngine(path) ? 0 : options.cus.front(),
                         options.iters,
                         options.warmupIters};
        cell.mode = TimingMode::Pipelined;
        cell.targetNs = options.targetMs * 1e6;
        out.push_back(cell);
      }
    }
  }
  return out;
}

}  // namespace

Error fitMatrixToNode(Options& options, const Backend& backend) {
  const Topology& topology = backend.topology();
  const int gpuCount = static_cast<int>(topology.gpus.size());
  if (gpuCount == 0) {
    return {"no-gpu", "this node has no GPU: a matrix needs at least one GPU (and host)",
            "run on a GPU node, or use --backend sim"};
  }
  if (options.gpus.empty()) {
    // Every GPU; a one-GPU node has only host <-> GPU 0 to measure.
    if (gpuCount == 1) options.gpus.push_back(kHostEndpoint);
    for (int index = 0; index < gpuCount; ++index) options.gpus.push_back(index);
  }
  for (int index : options.gpus) {
    if (const std::string problem = endpointProblem(index, gpuCount); !problem.empty()) {
      return {"usage", "--gpus: " + problem,
              "list GPUs that `sdma-probe info` shows (and host), or leave --gpus out for all of them"};
    }
  }
  if (options.concurrent && std::find(options.gpus.begin(), options.gpus.end(), kHostEndpoint) != options.gpus.end()) {
    return {"usage", "--concurrent: host cannot be in --gpus; copies at the same time are measured between GPUs only",
            "leave host out of --gpus, or leave out --concurrent to measure host <-> GPU cells one at a time"};
  }
  int fewestCus = std::numeric_limits<int>::max();
  std::uint64_t leastMemoryBytes = std::numeric_limits<std::uint64_t>::max();
  for (int index : options.gpus) {
    if (isHost(index)) continue;  // pinned host memory: the backend checks its allocation
    const GpuInfo& gpu = topology.gpus[static_cast<std::size_t>(index)];
    fewestCus = std::min(fewestCus, gpu.cus);
    leastMemoryBytes = std::min(leastMemoryBytes, gpu.memoryBytes);
  }
  if (!options.cusGiven && fewestCus > 0) options.cus = {std::min(options.cus.front(), fewestCus)};
  if (options.cus.front() > fewestCus) {
    return {"usage",
            "--cus: CU count " + std::to_string(options.cus.front()) + " is out of range (the GPUs listed have " +
                std::to_string(fewestCus) + " CUs or more: 1.." + std::to_string(fewestCus) + ")",
            ""};
  }
  if (options.sizesBytes.front() > leastMemoryBytes) {
    return {"usage",
            "--size: " + formatSize(options.sizesBytes.front()) + " does not fit in GPU memory (" +
                std::to_string(leastMemoryBytes) + " bytes)",
            ""};
  }
  return {};
}

namespace {

// What a path's pairs left: how many failed, and whether bytes were wrong.
struct PathOutcome {
  int failed = 0;
  bool wrongBytes = false;
};

// Reports one pair of a concurrent set: a cell, or an error naming it.
PathOutcome reportPair(const CopyRequest& cell, const CopyMeasurement& measurement, Reporter& reporter) {
  PathOutcome outcome;
  if (measurement.status == RunStatus::Failed) {
    outcome.failed = 1;
    reporter.cellError(cell, measurement.errorCode.empty() ? "runtime" : measurement.errorCode,
                       cellLabel(cell) + " (all pairs at once): " + measurement.failure, measurement.hint);
  } else if (measurement.status == RunStatus::ValidationFailed) {
    outcome.failed = 1;
    outcome.wrongBytes = true;
    reporter.cellError(cell, "validation",
                       "the destination of " + cellLabel(cell) + " (all pairs at once) held wrong bytes",
                       "no bandwidth is reported for a copy that moved wrong bytes; rerun to see whether it "
                       "repeats, and check this link and the driver",
                       measurement.failure);
  } else {
    reporter.matrixCell(cell, measurement, true);
    if (const auto mismatch = moverMismatch(cell.path, measurement.evidence)) {
      outcome.failed = 1;
      outcome.wrongBytes = true;
      reporter.cellError(cell, "mover-mismatch", cellLabel(cell) + " (all pairs at once): " + *mismatch,
                         kMoverMismatchHint);
    }
  }
  return outcome;
}

// Row and column sums of the path's cells: what each GPU sent and received while all ran.
std::vector<Reporter::GpuTotal> gpuTotals(const Options& options, const std::vector<CopyRequest>& set,
                                          const ConcurrentMeasurement& measured) {
  std::map<int, Reporter::GpuTotal> byGpu;
  for (int gpu : options.gpus) byGpu[gpu].gpu = gpu;
  for (std::size_t i = 0; i < set.size(); ++i) {
    const double gbps = Reporter::cellGbps(set[i].sizeBytes, measured.pairs[i].timesNs);
    byGpu[set[i].srcGpu].sendGbps += gbps;
    byGpu[set[i].dstGpu].receiveGbps += gbps;
  }
  std::vector<Reporter::GpuTotal> out;
  for (int gpu : options.gpus) out.push_back(byGpu[gpu]);
  return out;
}

// --concurrent: each path's pairs all at once, path after path.
// The end of a matrix: ok, or one summary error after the failed cells' own records.
CommandResult endOfCells(Reporter& reporter, int failedCells, std::int64_t total, bool wrongBytes) {
  if (failedCells == 0) return {};
  reporter.error("cells-failed",
                 std::to_string(failedCells) + " of " + std::to_string(total) +
                     " cells could not be measured; the others are in this run",
                 "each failed cell has its own error record above, with what to do about it");
  return {DoneStatus::Error, wrongBytes ? kExitValidationFailed : kExitRuntimeFailure};
}

CommandResult runConcurrentMatrix(const Options& options, Backend& backend, Reporter& reporter) {
  const std::vector<CopyRequest> units = cells(options);
  const auto total = static_cast<std::int64_t>(units.size());
  const std::size_t perPath = options.gpus.size() * (options.gpus.size() - 1);
  int failedCells = 0;
  bool wrongBytes = false;
  FaultInjector faults(options.fault, reporter);
  if (!faults.onSampleCount(reporter.samplesEmitted())) return {DoneStatus::Cancelled, cancel::exitCode()};

  for (std::size_t first = 0; first < units.size(); first += perPath) {
    if (cancel::requested()) return {DoneStatus::Cancelled, cancel::exitCode()};
    std::vector<CopyRequest> set(units.begin() + static_cast<std::ptrdiff_t>(first),
                                 units.begin() + static_cast<std::ptrdiff_t>(first + perPath));
    for (std::size_t i = 0; i < set.size(); ++i) {
      // --fault corrupt-after=N damages the cell after N, counted over all paths as in serial mode.
      set[i].corruptCopy = options.fault.kind == FaultKind::CorruptAfter &&
                           static_cast<std::int64_t>(first + i) == options.fault.afterSamples;
    }
    const ConcurrentMeasurement measured = backend.measureConcurrent(set);
    if (measured.status == RunStatus::Cancelled) return {DoneStatus::Cancelled, cancel::exitCode()};
    int failedHere = 0;
    if (measured.status == RunStatus::Failed || measured.pairs.size() != set.size()) {
      // The set could not run at all: every cell of the path says why.
      for (const CopyRequest& cell : set) {
        reporter.cellError(cell, measured.errorCode.empty() ? "runtime" : measured.errorCode,
                           std::string(pathName(cell.path)) + ", all pairs at once: " + measured.failure,
                           measured.hint);
        ++failedHere;
      }
    } else {
      for (std::size_t i = 0; i < set.size(); ++i) {
        const PathOutcome outcome = reportPair(set[i], measured.pairs[i], reporter);
        failedHere += outcome.failed;
        wrongBytes = wrongBytes || outcome.wrongBytes;
        if (!faults.onSampleCount(reporter.samplesEmitted())) return {DoneStatus::Cancelled, cancel::exitCode()};
      }
      // The sums only mean something when every pair ran and moved the right bytes.
      const double windowNs = std::accumulate(measured.windowsNs.begin(), measured.windowsNs.end(), 0.0);
      if (failedHere == 0 && windowNs > 0) {
        const auto iters = static_cast<std::int64_t>(measured.windowsNs.size());
        reporter.matrixTotal(set.front(), static_cast<int>(set.size()), iters,
                             measured.bytesPerIteration * static_cast<std::uint64_t>(iters), windowNs / 1e9,
                             gpuTotals(options, set, measured));
      }
    }
    failedCells += failedHere;
    reporter.progress(static_cast<std::int64_t>(first + perPath), total,
                      std::string(pathName(set.front().path)) + ": " + std::to_string(set.size()) + " pairs at once");
  }
  return endOfCells(reporter, failedCells, total, wrongBytes);
}

}  // namespace

CommandResult runMatrix(const Options& options, Backend& backend, Reporter& reporter) {
  if (options.concurrent) return runConcurrentMatrix(options, backend, reporter);
  const std::vector<CopyRequest> units = cells(options);
  const auto total = static_cast<std::int64_t>(units.size());
  const bool corruptOne = options.fault.kind == FaultKind::CorruptAfter;
  int failedCells = 0;
  bool wrongBytes = false;
  FaultInjector faults(options.fault, reporter);
  if (!faults.onSampleCount(reporter.samplesEmitted())) return {DoneStatus::Cancelled, cancel::exitCode()};

  for (std::int64_t attempted = 0; attempted < total; ++attempted) {
    if (cancel::requested()) return {DoneStatus::Cancelled, cancel::exitCode()};
    CopyRequest cell = units[static_cast<std::size_t>(attempted)];
    if (const std::string reason = backend.pathUnsupported(cell.path, cell.srcGpu, cell.dstGpu); !reason.empty()) {
      reporter.pathUnsupported(cell.path, cell.srcGpu, cell.dstGpu, reason, 1);
      reporter.progress(attempted + 1, total, cellLabel(cell) + ": unsupported");
      continue;
    }
    // --fault corrupt-after=N damages exactly the cell after N attempted ones.
    cell.corruptCopy = corruptOne && attempted == options.fault.afterSamples;
    cell.mislabel = options.fault.kind == FaultKind::MislabelAfter && attempted >= options.fault.afterSamples &&
                    usesEngine(cell.path);
    const CopyMeasurement measurement = backend.measure(cell);
    if (measurement.status == RunStatus::Cancelled) return {DoneStatus::Cancelled, cancel::exitCode()};
    if (measurement.status == RunStatus::Failed) {
      ++failedCells;
      reporter.cellError(cell, measurement.errorCode.empty() ? "runtime" : measurement.errorCode,
                         cellLabel(cell) + ": " + measurement.failure, measurement.hint);
    } else if (measurement.status == RunStatus::ValidationFailed) {
      ++failedCells;
      wrongBytes = true;
      reporter.cellError(cell, "validation", "the destination of " + cellLabel(cell) + " held wrong bytes",
                         "no bandwidth is reported for a copy that moved wrong bytes; rerun to see whether it "
                         "repeats, and check this link and the driver",
                         measurement.failure);
    } else {
      reporter.matrixCell(cell, measurement);
      if (const auto mismatch = moverMismatch(cell.path, measurement.evidence)) {
        ++failedCells;
        wrongBytes = true;
        reporter.cellError(cell, "mover-mismatch", cellLabel(cell) + ": " + *mismatch, kMoverMismatchHint);
      }
    }
    if (!faults.onSampleCount(reporter.samplesEmitted())) return {DoneStatus::Cancelled, cancel::exitCode()};
    reporter.progress(attempted + 1, total, cellLabel(cell));
  }
  return endOfCells(reporter, failedCells, total, wrongBytes);
}

}  // namespace sdma
