#include "matrix.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "cancel.hpp"
#include "fault.hpp"

namespace sdma {

namespace {

constexpr int kExitRuntimeFailure = 1;
constexpr int kExitValidationFailed = 4;

std::string cellLabel(const CopyRequest& cell) {
  std::string label = std::string(pathName(cell.path)) + " GPU " + std::to_string(cell.srcGpu) + " -> GPU " +
                      std::to_string(cell.dstGpu);
  if (!usesEngine(cell.path)) label += " (" + std::to_string(cell.cus) + " CUs)";
  return label;
}

// Path-major, then source, then destination: the order nvbandwidth prints its matrices in.
std::vector<CopyRequest> cells(const Options& options) {
  std::vector<CopyRequest> out;
  for (CopyPath path : options.paths) {
    for (int src : options.gpus) {
      for (int dst : options.gpus) {
        if (src == dst) continue;
        CopyRequest cell{path, src, dst, options.sizesBytes.front(), usesEngine(path) ? 0 : options.cus.front(),
                         options.iters, options.warmupIters};
        cell.mode = TimingMode::Pipelined;
        cell.targetNs = options.targetMs * 1e6;
        out.push_back(cell);
      }
    }
  }
  return out;
}

}  // namespace

MatrixProblem fitMatrixToNode(Options& options, const Backend& backend) {
  const Topology& topology = backend.topology();
  const int gpuCount = static_cast<int>(topology.gpus.size());
  if (options.gpus.empty()) {
    if (gpuCount < 2) {
      return {"one-gpu", "this node has " + std::to_string(gpuCount) + " GPU" + (gpuCount == 1 ? "" : "s") +
                             "; a GPU x GPU matrix needs two or more",
              "run on a node with two or more GPUs, or use --backend sim"};
    }
    for (int index = 0; index < gpuCount; ++index) options.gpus.push_back(index);
  }
  for (int index : options.gpus) {
    if (index >= gpuCount) {
      return {"usage",
              "--gpus: GPU " + std::to_string(index) + " is out of range (this node has " + std::to_string(gpuCount) +
                  " GPUs: 0.." + std::to_string(gpuCount - 1) + ")",
              "list GPUs that `sdma-probe info` shows, or leave --gpus out for all of them"};
    }
  }
  int fewestCus = std::numeric_limits<int>::max();
  std::uint64_t leastMemoryBytes = std::numeric_limits<std::uint64_t>::max();
  for (int index : options.gpus) {
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

CommandResult runMatrix(const Options& options, Backend& backend, Reporter& reporter) {
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
    // --fault corrupt-after=N damages exactly the cell after N attempted ones.
    cell.corruptCopy = corruptOne && attempted == options.fault.afterSamples;
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
    }
    if (!faults.onSampleCount(reporter.samplesEmitted())) return {DoneStatus::Cancelled, cancel::exitCode()};
    reporter.progress(attempted + 1, total, cellLabel(cell));
  }
  if (failedCells > 0) {
    reporter.error("cells-failed", std::to_string(failedCells) + " of " + std::to_string(total) +
                                       " cells could not be measured; the others are in this run",
                   "each failed cell has its own error record above, with what to do about it");
    return {DoneStatus::Error, wrongBytes ? kExitValidationFailed : kExitRuntimeFailure};
  }
  return {};
}

}  // namespace sdma
