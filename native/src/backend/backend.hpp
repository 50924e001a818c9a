#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/copy_path.hpp"
#include "backend/mover_evidence.hpp"
#include "backend/timeline.hpp"

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
  // Optional facts of real GPUs (not printed when unset):
  std::string pciBusId;
  std::uint64_t l2Bytes = 0;
  int xccs = 0;                 // AMD: accelerator complex dies (XCDs) the CUs are spread over
  std::optional<int> numaNode;  // host NUMA node nearest the GPU (its pinned host buffers); -1 unknown
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
  std::string hostname;  // gethostname() of the machine the helper ran on (not printed when empty)
};

// The host side of host <-> GPU copies (printed when set).
struct HostInfo {
  int numaNodes = 0;
};

struct Topology {
  NodeInfo node;
  std::optional<HostInfo> host;
  std::vector<GpuInfo> gpus;
  std::vector<LinkInfo> links;  // GPU <-> GPU, and host <-> GPU (src or dst kHostEndpoint, kind "pcie")
  std::vector<LibraryInfo> libraries;
};

// one-shot: each timed iteration is a single copy (latency); pipelined: a timed iteration
// queues several copies back to back and reports the time per copy (bandwidth).
enum class TimingMode { OneShot, Pipelined };

// An endpoint of a copy is a GPU index or pinned host memory (kHostEndpoint). src == dst (both
// GPUs) is a GPU-local copy. In records an endpoint is printed as the same integer: -1 = host.
inline constexpr int kHostEndpoint = -1;
inline bool isHost(int endpoint) { return endpoint == kHostEndpoint; }

// engine/device on rocSHMEM: which puts may take an SDMA engine (CopyRequest::shmemSdma).
enum class ShmemSdma : std::uint8_t { Forced, Library, Off };

inline std::string_view shmemSdmaName(ShmemSdma s) {
  switch (s) {
    case ShmemSdma::Forced:
      return "forced";
    case ShmemSdma::Library:
      return "library";
    case ShmemSdma::Off:
      return "off";
  }
  return "?";
}

inline std::optional<ShmemSdma> parseShmemSdma(std::string_view name) {
  for (ShmemSdma s : {ShmemSdma::Forced, ShmemSdma::Library, ShmemSdma::Off}) {
    if (shmemSdmaName(s) == name) return s;
  }
  return std::nullopt;
}

// One work unit of a sweep: one path x size x CU count between two endpoints.
struct CopyRequest {
  CopyPath path = CopyPath::CuHost;
  int srcGpu = 0;
  int dstGpu = 1;
  std::uint64_t sizeBytes = 0;
  int cus = 0;  // used by cu/* paths only
  int iters = 0;
  int warmupIters = 0;
  // What the GPU backends add (the simulator ignores all but corruptCopy):
  TimingMode mode = TimingMode::Pipelined;
  double targetNs = 0;       // iterations sized by time: at least `iters`, more up to this total
  int blocksPerCu = 1;       // workgroups (blocks) per CU for cu/* paths
  bool trace = false;        // per-block device-clock spans during the timed iterations
  bool corruptCopy = false;  // --fault corrupt-after: damage one byte before the check
  // --fault mislabel-after: an engine point's bytes are carried by a CU copy kernel while the
  // sample keeps its engine label, proving the mover evidence catches it. Backends do it.
  bool mislabel = false;
  // sweep --series runtime-default: what the runtime does by default with the user's own
  // environment (docs/MEASUREMENT.md); printed as the sample's `series`. Empty: the helper's
  // own series.
  std::string series{};
  std::string seriesRule{};  // the runtime's rule that labelled the point (printed as runtimeRule)
  int engineId = -1;         // engine/host on one named SDMA engine (AMD); -1: the runtime's choice
  // The seed's dimensions (docs/SEED-EXPERIMENTS.md). Each default is the series of before, and
  // a sample prints the field only when it is not the default, so runs saved before read as it.
  // --waves-per-cu: cu/* copies run this many wavefronts (AMD wave64; NVIDIA warps of 32) on each
  // CU, split over blocksPerCu workgroups; engine/device: the waves of the kernel that issues the
  // puts (1: the wave-level put, more: the workgroup put). 0: the backend's default (cu/*: 1024
  // threads per CU; engine/device: one thread's put in a one-wave kernel).
  int wavesPerCu = 0;
  // --engines: one copy split over this many engines (AMD engine/host: distinct SDMA engine ids),
  // streams (NVIDIA engine/host: the driver picks the engines) or rocSHMEM SDMA channels
  // (engine/device). 1: one copy, as before.
  int split = 1;
  // --batch: engine/host as one batched call (cudaMemcpyBatchAsync / hipMemcpyBatchAsync) of this
  // many equal pieces. 0: the single-copy API, as before.
  int batch = 0;
  // --shmem-sdma (engine/device on rocSHMEM): whether its puts may take SDMA. Forced: every put
  // on SDMA (ROCSHMEM_SDMA_THRESHOLD=0, as before); Library: rocSHMEM's own threshold (the
  // variable left as the user has it); Off: SDMA disabled (ROCSHMEM_SDMA_ENABLED=0, load/store).
  ShmemSdma shmemSdma = ShmemSdma::Forced;
};

enum class RunStatus { Ok, Cancelled, ValidationFailed, Failed };

struct CopyMeasurement {
  RunStatus status = RunStatus::Ok;
  std::vector<double> timesNs;  // one per timed iteration
  int cus = 0;                  // CUs that carried or issued the copy
  int engines = 0;              // engines used (0 for cu/*)
  bool validated = false;       // the destination was checked after the copy
  std::string failure;          // why, when status is ValidationFailed or Failed
  std::string errorCode;        // the error record's code, when status is Failed
  std::string hint;             // what the user can do about it, when status is Failed
  // Optional protocol fields (empty / unset: not printed):
  std::string mode;                // "one-shot" or "pipelined"
  int opsPerIter = 0;              // operations inside one timed iteration (pipelined)
  std::string label;               // e.g. "proxy-initiated"
  std::vector<int> engineIds;      // engines named by id, where the API exposes them
  std::optional<bool> traced;      // the timed iterations carried per-block tracing
  std::optional<int> cusSeen;      // distinct CUs/SMs the trace saw carrying the copy
  std::optional<double> medianNs;  // set by backends that measure; the reporter fills the rest
  // What moved the bytes as the platform saw it (unset: the backend gathers none).
  std::optional<MoverEvidence> evidence;
  // The seed's dimensions as they ran (the reporter prints them with the request's split, batch
  // and shmemSdma when not the default): the waves per CU and the threads of one wave (64 on
  // AMD, 32 on NVIDIA), set when the request named wavesPerCu; what `split` counted.
  int wavesPerCu = 0;
  int waveSize = 0;
  std::string splitOver;  // "engines", "streams" or "channels"
};

// Copies of several GPU pairs started together (matrix --concurrent, docs/MATRIX.md).
// `pairs` holds one measurement per request, in request order; each pair's timesNs are its
// own time per copy while the others ran. windowsNs has one entry per timed iteration: from
// the earliest start to the latest end of that iteration over all pairs, in which every
// pair moved `bytesPerIteration / pairs` bytes. When the whole set could not run (an
// unsupported path, too little memory, a runtime failure before any copy), `status` is
// Failed with the error's code, message and hint, and `pairs` is empty.
struct ConcurrentMeasurement {
  RunStatus status = RunStatus::Ok;
  std::vector<CopyMeasurement> pairs;
  std::vector<double> windowsNs;
  std::uint64_t bytesPerIteration = 0;
  std::string failure;
  std::string errorCode;
  std::string hint;
};

// How device timestamps in a timeline relate to the host clock.
struct TimelineClock {
  std::string source;             // e.g. "globaltimer", "s_memrealtime"
  double alignUncertaintyNs = 0;  // host<->device alignment, +- this much
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

// What every backend (sim, hip, cuda) provides. Backends poll
// cancel::requested() at their own work boundaries and return RunStatus::Cancelled.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual bool simulated() const = 0;
  virtual const Topology& topology() const = 0;
  virtual CopyMeasurement measure(const CopyRequest& request) = 0;
  // Why `path` cannot exist between these endpoints on this backend (printed as the reason of
  // a `path-unsupported` record), or empty when it can. The default: the device-initiated
  // engine path (GPU-initiated SDMA / a proxied copy-engine put) needs two distinct GPUs.
  virtual std::string pathUnsupported(CopyPath path, int src, int dst) const {
    if (path == CopyPath::EngineDevice && (isHost(src) || isHost(dst))) {
      return "engine/device needs two GPUs: GPU-initiated SDMA is a put between GPUs (rocSHMEM PEs), and host memory "
             "is not a PE";
    }
    if (path == CopyPath::EngineDevice && src == dst) {
      return "engine/device needs two GPUs: a GPU-local copy has no peer to put to";
    }
    return {};
  }
  // Why this backend cannot run one value of the seed's dimensions (CopyRequest::wavesPerCu,
  // split, batch, shmemSdma) on the request's path and endpoints, or empty when it can. The
  // sweep prints the reason once as a `warning` with code `dimension-unsupported` and skips
  // the point (counted as done). The default: every value can run.
  virtual std::string dimensionUnsupported(const CopyRequest& request) const {
    (void)request;
    return {};
  }
  // Runs every request at the same time (all of one path, src != dst each) and measures each
  // pair while the others run. A backend that cannot answers Failed with code "unsupported".
  virtual ConcurrentMeasurement measureConcurrent(const std::vector<CopyRequest>& requests) {
    (void)requests;
    ConcurrentMeasurement m;
    m.status = RunStatus::Failed;
    m.errorCode = "unsupported";
    m.failure = "this backend cannot run copies of several GPU pairs at the same time";
    m.hint = "leave out --concurrent to measure each pair alone";
    return m;
  }
  // Exact number of events recordTimeline() would add, so oversized requests are refused early.
  virtual std::uint64_t timelineEventCount(const TimelineRequest& request) const = 0;
  virtual RunStatus recordTimeline(const TimelineRequest& request, TimelineEvents& out) = 0;
  // Set by backends whose timeline comes from real clocks.
  virtual std::optional<TimelineClock> timelineClock() const { return std::nullopt; }
  // Why the last recordTimeline() failed (code, message, hint), when it did.
  virtual CopyMeasurement lastTimelineFailure() const { return {}; }
};

}  // namespace sdma
