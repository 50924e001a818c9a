#pragma once

// The GPU backend (HIP-first; CUDA through gpu_compat.hpp): the class and the members small
// enough to read in place. Its parts, each in its own file, follow in gpu_backend_impl.hpp.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend.hpp"
#include "gpu/gpu_backend.hpp"
#include "gpu/gpu_pair.hpp"
#include "gpu/timing_plan.hpp"

namespace sdma::gpu {
namespace {

class GpuBackend final : public Backend {
 public:
  GpuBackend(const GpuOptions& options, int deviceCount);
  ~GpuBackend() override {
    if (sharedGateHost_ != nullptr) (void)hipHostFree(const_cast<std::uint32_t*>(sharedGateHost_));
    for (auto& [key, pair] : pairs_) {
      (void)key;
      freeRegions(pair);
    }
  }

  std::string_view name() const override { return SDMA_BACKEND_NAME; }
  bool simulated() const override { return false; }
  const Topology& topology() const override { return topology_; }

#if defined(SDMA_GPU_NVIDIA)
  // NVIDIA's engine/device is a host proxy thread submitting peer copies a kernel asks for:
  // the reasons differ from the default's GPU-initiated SDMA.
  std::string pathUnsupported(CopyPath path, int src, int dst) const override {
    if (path != CopyPath::EngineDevice) return {};
    if (isHost(src) || isHost(dst)) {
      return "engine/device needs two GPUs: on NVIDIA it is a kernel handing peer copies to a host proxy thread "
             "(no public device API drives the copy engine); with host memory at one end that is the CPU's own "
             "copy, engine/host";
    }
    if (src == dst) return "engine/device needs two GPUs: a GPU-local copy has no peer to hand a copy to (engine/host measures it)";
    return {};
  }
#endif

  CopyMeasurement measure(const CopyRequest& request) override;

  ConcurrentMeasurement measureConcurrent(const std::vector<CopyRequest>& requests) override;

  std::uint64_t timelineEventCount(const TimelineRequest& request) const override;

  RunStatus recordTimeline(const TimelineRequest& request, TimelineEvents& out) override;

  std::optional<TimelineClock> timelineClock() const override;
  CopyMeasurement lastTimelineFailure() const override { return timelineFailure_; }

 private:
  // ---- topology ----
  void buildTopology(int deviceCount);

  // Host <-> GPU: NVML's maximum link generation and width for this device in this system
  // (NVIDIA), else sysfs; 0 when neither says.
  double hostLinkGbps(const GpuInfo& gpu);

  PeerLink peerLink(int s, int d);

  // ---- per-pair resources ----
  Pair& ensurePair(int src, int dst);

  // Streams, events and scratch on the GPU that runs the pair's copies (the current device).
  void createPairStreams(Pair& pair);

  // The NUMA node a pair's host buffer goes on: the one nearest its GPU, -1 unknown.
  int numaNodeOf(int gpu) const {
    return topology_.gpus[static_cast<std::size_t>(gpu)].numaNode.value_or(-1);
  }

  // One endpoint's region: device memory on its GPU, or pinned host memory near the pair's GPU.
  void allocEndpoint(Pair& pair, bool source, std::uint64_t bytes);

  static void freeEndpoint(Pair& pair, bool source);

  // Both regions of a pair; on a failure neither is left allocated.
  void allocRegions(Pair& pair, std::uint64_t regionBytes);

  DeviceScratch& ensureScratch(int device);

  static void freeRegions(Pair& pair);

  // One pair holds buffers at a time: a matrix visits all N x (N-1) pairs, and keeping each
  // pair's rotation regions (2 x LLC or more per side) would leave 2 (N-1) of them on every GPU.
  void ensureRegions(Pair& pair, std::uint64_t regionBytes);

  // Streams whose kernels may only use the first `cus` CUs. On NVIDIA there are no CU
  // masks: the copy kernel reserves so much shared memory that blocksPerCu blocks fill an
  // SM, and the trace reports the SMs that actually ran.
  hipStream_t streamFor(Pair& pair, int cus) { return streamForRange(pair, 0, cus); }

  // AMD: the k-th copy leaving a GPU runs on CUs [k x cus, (k+1) x cus), wrapping around the
  // GPU's CUs when the copies ask for more than it has (those CUs are then shared). NVIDIA has
  // no CU masks: the blocks of all copies go to whichever SMs are free.
  hipStream_t streamForRange(Pair& pair, int firstCu, int cus);

  int sharedBytesForBlocksPerCu(int device, int blocksPerCu) const;

  // 1024 threads per CU in total: the copy kernels use up to 64 registers a thread.
  static int threadsFor(int blocksPerCu) { return std::max(64, 1024 / blocksPerCu / 32 * 32); }

  // ---- one measurement ----
  // The larger last-level cache of the pair's GPUs (host memory: the GPU's L2 caches it too).
  std::uint64_t llcOf(const Pair& pair) const;

  // Pattern in the whole source region (written by the pair's GPU, through the mapping for
  // host memory), poison in the whole destination region, guard gaps included.
  void preparePair(Pair& pair, const RotationPlan& plan, std::uint64_t seed);

  RunResult runPath(const CopyRequest& request, bool trace, bool corrupt, CopyMeasurement& m);

  // ---- all pairs at once (matrix --concurrent, docs/MATRIX.md) ----
  // Every pair's copies are queued on its own stream behind one gate in host memory that all
  // GPUs read; one host write opens it for all of them, so the pairs start together.
  struct ConcurrentPair {
    Pair* pair = nullptr;
    RotationPlan plan;
    std::uint64_t seed = 0;
    hipStream_t stream{};
    std::uint64_t op = 0;
  };

  void* sharedGate();

  // Source and destination regions of every pair at the same time: N (N-1) pairs, so each GPU
  // holds 2 (N-1) regions. Checked against free memory first, so a node that cannot hold them
  // gets one clear error instead of a failure half way through the allocations.
  void ensureConcurrentRegions(std::vector<ConcurrentPair>& set);


  void runConcurrent(const std::vector<CopyRequest>& requests, ConcurrentMeasurement& out);

  // engine/host on one named SDMA engine (AMD, ROCm >= 5.7). Timed on the host clock from
  // the first submission to the completion signal: ROCr gives no device timestamps here.
  void runOnEngine(Pair& pair, const RotationPlan& plan, const CopyRequest& request, int depth, RunResult& run,
                   CopyMeasurement& m);

  // The fault damages the destination wherever it is: a GPU's memory or the host buffer.
  void corruptOneByte(Pair& pair, const RotationPlan& plan, std::uint64_t sizeBytes, std::uint64_t seed);

  std::optional<std::string> checkCopy(Pair& pair, DeviceScratch& s, const RotationPlan& plan, std::uint64_t sizeBytes,
                                       std::uint64_t seed, std::uint64_t slotsUsed);

  /** The last traced iteration of a load/store copy: each block's CU (and XCC) and span. */
  void readBlockTrace(const DeviceScratch& s, int blocks, RunResult& run) const;

  double ticksToNs(unsigned long long ticks) const {
#if defined(SDMA_GPU_NVIDIA)
    return static_cast<double>(ticks);
#else
    return static_cast<double>(ticks) * 10.0;  // s_memrealtime runs at 100 MHz on CDNA
#endif
  }
  std::uint64_t timeoutTicks() const;

  // Persistent kernels keep per-iteration times on the device: warm-up and timed iterations
  // of one launch share kMaxItersPerLaunch slots.
  int timedIters(const CopyRequest& request, double estimateNs, int warmIters) const;

  // Blocking memsets and pageable copies may still be in flight when they return; the
  // non-blocking streams the copies run on do not wait for them.
  void settle(int device);

  // cu/host and engine/host: the stream waits on a gate in host memory while
  // event/op.../event is queued behind it, so the time excludes the CPU's enqueue cost.
  void runHostInitiated(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
                        bool trace, RunResult& run);

  // Waits for a persistent kernel, giving up (and telling it to stop) after a timeout.
  void waitForKernel(hipStream_t stream, DeviceScratch& s, const char* what);

  void resetIterationScratch(DeviceScratch& s, int iters);

  std::vector<double> iterationTimes(DeviceScratch& s, int iters, int skip, int depth);

  // cu/device: one cooperative launch runs warm-up and timed iterations; the host only says go.
  void runCuDevice(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
                   bool trace, RunResult& run);

  // engine/device. On NVIDIA no public device API drives the copy engine, so a host proxy
  // thread does (label "proxy-initiated"). On AMD a kernel drives SDMA through rocSHMEM's
  // device API (rocshmem_pe.hip, started by rocshmem_launcher.cpp; label "rocshmem-sdma"),
  // where sdma-probe was built with a usable rocSHMEM.
  void runEngineDevice(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
                       bool trace, RunResult& run, CopyMeasurement& m);

  // Host clock -> device clock, by the shortest of kClockPingRounds ping-pongs.
  void alignClock(Pair& pair);

  void appendEvents(const TimelineRequest& request, int pairGpu,
                    const std::vector<std::pair<CopyPath, IterationTrace>>& traces, TimelineEvents& out);

  GpuOptions options_;
  Topology topology_;
  std::vector<std::uint64_t> l2Bytes_;
  std::vector<int> smemPerCu_, smemOptin_;
  std::map<int, Pair> pairs_;
  std::map<int, DeviceScratch> scratch_;
  ClockAlignment clock_;
  CopyMeasurement timelineFailure_;
  bool gateWorks_ = true;
  std::set<int> warnedPlacement_;  // GPUs whose unplaced host buffers were already reported
  volatile std::uint32_t* sharedGateHost_ = nullptr;  // matrix --concurrent: the one gate of all pairs
  void* sharedGateDev_ = nullptr;
#if defined(SDMA_HAVE_HSA)
  std::vector<hsa_agent_t> agents_;
  std::optional<hsa_agent_t> cpuAgent_;
#endif
};

}  // namespace
}  // namespace sdma::gpu
