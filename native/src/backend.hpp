#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "copy_path.hpp"
#include "timeline.hpp"

namespace sdma {

struct EngineInfo {
  int id = 0;
  std::string kind;  // "xgmi", "pcie" or "copy"
  std::optional<double> maxGbps;
};

struct GpuInfo {
  int index = 0;
  std::string name;
  std::string arch;
  int cus = 0;
  std::uint64_t memoryBytes = 0;
  std::vector<EngineInfo> engines;
};

struct LinkInfo {
  int src = 0;
  int dst = 0;
  std::string kind;  // "xgmi", "nvlink" or "pcie"
  int count = 0;
  double gbpsPerDirection = 0;
};

struct LibraryInfo {
  std::string name;
  std::string version;
};

struct NodeInfo {
  std::string name;
  std::string vendor;  // "amd" or "nvidia"
  std::string model;
  bool simulated = false;
};

struct Topology {
  NodeInfo node;
  std::vector<GpuInfo> gpus;
  std::vector<LinkInfo> links;
  std::vector<LibraryInfo> libraries;
};

// One work unit of a sweep: one path x size x CU count between two GPUs.
struct CopyRequest {
  CopyPath path = CopyPath::CuHost;
  int srcGpu = 0;
  int dstGpu = 1;
  std::uint64_t sizeBytes = 0;
  int cus = 0;  // used by cu/* paths only
  int iters = 0;
  int warmupIters = 0;
};

enum class RunStatus { Ok, Cancelled, ValidationFailed };

struct CopyMeasurement {
  RunStatus status = RunStatus::Ok;
  std::vector<double> timesNs;  // one per timed iteration
  int cus = 0;                  // CUs that carried or issued the copy
  int engines = 0;              // engines used (0 for cu/*)
  bool validated = false;       // the destination was checked after the copy
  std::string failure;          // why, when status is ValidationFailed
};

// One iteration per path at one size, laid out one after another, `repeats` times.
struct TimelineRequest {
  std::vector<CopyPath> paths;
  int srcGpu = 0;
  int dstGpu = 1;
  std::uint64_t sizeBytes = 0;
  int cus = 0;
  int repeats = 1;
};

// What every backend (sim today; hip and cuda later) provides. Backends poll
// cancel::requested() at their own work boundaries and return RunStatus::Cancelled.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual bool simulated() const = 0;
  virtual const Topology& topology() const = 0;
  virtual CopyMeasurement measure(const CopyRequest& request) = 0;
  // Exact number of events recordTimeline() would add, so oversized requests are refused early.
  virtual std::uint64_t timelineEventCount(const TimelineRequest& request) const = 0;
  virtual RunStatus recordTimeline(const TimelineRequest& request, TimelineEvents& out) = 0;
};

}  // namespace sdma
