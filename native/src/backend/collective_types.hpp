#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/collective_math.hpp"
#include "util/error.hpp"

namespace sdma::collective {

// How the ranks of a collective are laid out in processes. RankPerProcess (the default): one
// process per GPU, each with one communicator made by ncclCommInitRank from a shared unique
// id, as AMD and NVIDIA run their comparisons (mpirun -n 8 -g 1). SingleProcess: one process
// drives every GPU (ncclCommInitAll), nccl-tests' -g N.
enum class RankMode { RankPerProcess, SingleProcess };
inline const char* rankModeName(RankMode m) {
  return m == RankMode::RankPerProcess ? "rank-per-process" : "single-process";
}
// Who started the rank processes: the helper itself, or srun / mpirun around it.
enum class Launcher { Helper, Srun, Mpirun };
inline const char* launcherName(Launcher l) {
  return l == Launcher::Helper ? "helper" : l == Launcher::Srun ? "srun" : "mpirun";
}

struct CollectiveOptions {
  std::vector<Op> ops = {Op::AllGather, Op::AlltoAll};
  std::vector<std::string> variants;  // empty: every variant of the vendor
  std::vector<int> gpus;              // empty: every GPU of the node
  std::vector<std::uint64_t> sizesBytes;
  int iters = 20;
  int warmupIters = 5;
  int repeats = 5;  // --repeats: timed loops of `iters` calls per point; the point reports their median
  bool check = true;
  bool inPlace = true;  // run the in-place form where the operation defines one
  bool outOfPlace = true;
  std::string dtype = "float";
  std::string ncclLib;                       // --nccl-lib: an explicit library path
  RankMode mode = RankMode::RankPerProcess;  // --mode
  bool transportLog = true;                  // read the library's own per-call record of the path
  std::uint64_t seed = 1;
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// One condition a variant needs, as checked before it runs: what it needs and what was found.
struct VariantCondition {
  std::string name;   // e.g. "hipMemcpyBatchAsync", "NCCL_LOCAL_REGISTER"
  std::string want;   // e.g. ">= 7.1", "0"
  std::string found;  // what this node has ("" unknown)
  bool ok = false;
};

// The CUs (SMs) one rank's library kernels used for a call: one CTA per channel, each on a
// CU of its own. From the library's log (its per-call channel range or channel count), 0 for a
// zero-CTA copy-engine path the log or a graph capture confirmed, the model's figure on the
// simulated node; count unset: nothing said.
struct CusUsed {
  std::optional<int> count;
  std::string source;    // "log", "zero-cta", "model", "" (unknown)
  std::string evidence;  // the line it came from, or what the model assumes
};

struct VariantReport {
  std::string name;  // default, ce, gin-sdma-lib
  bool supported = true;
  std::string reason;  // why not, when unsupported
  std::string hint;
  EnvList env;             // what the variant set before its communicator was created
  bool symmetric = false;  // buffers from ncclMemAlloc, registered as symmetric windows
  std::string library;     // nccl or rccl
  std::string libraryVersion;
  std::string libraryPath;
  RankMode mode = RankMode::RankPerProcess;
  Launcher launcher = Launcher::Helper;      // rank-per-process only
  std::vector<VariantCondition> conditions;  // what was checked before it ran (may be empty)
};

struct PointReport {
  Op op = Op::AllGather;
  std::string variant;
  int ranks = 0;
  std::uint64_t sizeBytes = 0;
  std::uint64_t count = 0;  // elements of dtype in the received buffer (nccl-tests "count")
  std::string dtype;
  bool inPlace = false;
  double timeUs = 0;                     // median of samplesUs
  std::vector<double> samplesUs;         // each repeat's mean time per call
  std::int64_t wrong = -1;               // -1: not checked
  std::optional<std::string> transport;  // what the library said it ran; unset: it said nothing
  std::string evidence;                  // the log line it came from
  int iters = 0;
  CusUsed cusUsed;
};

// Where an engine hands its results; the command turns them into records. An engine that
// cannot go on returns an Error (util/error.hpp) for the command to report.
struct CollectiveSink {
  std::function<void(const VariantReport&)> variant;
  std::function<void(const PointReport&)> point;
  std::function<void(const std::string& code, const std::string& message)> warning;
  std::function<void(std::int64_t done, std::int64_t total, const std::string& message)> progress;
};

// RCCL's number for the GIN Anvil SDMA backend moved with releases, as the knob catalog's
// NCCL_GIN_TYPE values marked sdma say (src/core/advice/knobCatalog.json): 5 for
// [2.30.4, 2.30.7) (a guess: rocm-systems PR #7826), 6 for [2.30.7, 2.31.0), 7 from 2.31.0
// (NCCL 2.31 took 5 for EFA). Below 2.30.4 RCCL has no Anvil SDMA GIN type: nullopt.
inline std::optional<int> ginSdmaTypeForRccl(int major, int minor, int patch) {
  const int v = major * 10000 + minor * 100 + patch;
  if (v >= 23100) return 7;
  if (v >= 23007) return 6;
  if (v >= 23004) return 5;
  return std::nullopt;
}

// librccl's in-library GIN-SDMA path is ncclAlltoAll's only (ncclAllToAllGinSdmaEligible and
// ncclAllToAllGinSdma in
// https://github.com/ROCm/rocm-systems/blob/4cee501ee196a6a2aca096b75902e2298df4a67a/projects/rccl/src/algorithms/gin/sdma/gin_alltoall_sdma.cu):
//   NCCL_GIN_A2A_ENABLE (default 1): 0 keeps AlltoAll off the GIN path;
//   NCCL_GIN_A2A_MIN_BYTES (default 0): bytesPerPeer below it is not eligible;
//   NCCL_GIN_A2A_SDMA_MIN_BYTES (default 8 MiB): bytesPerPeer at or above it goes by SDMA
//   puts, below it by an LSA copy kernel. Each call logs "AllToAll GIN: transport=sdma|lsa
//   bytesPerPeer=N" at NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=COLL.
// There is no in-library GIN-SDMA AllGather: rccl-tests' GIN-SDMA AllGather figures come from
// its own device-API kernels. The variant runs AlltoAll only.
constexpr std::int64_t kGinA2AEnableDefault = 1;
constexpr std::int64_t kGinA2AMinBytesDefault = 0;
constexpr std::int64_t kGinA2ASdmaMinBytesDefault = std::int64_t{8} << 20;

inline bool ginSdmaRunsOp(Op op) { return op == Op::AlltoAll; }

inline std::string ginSdmaAllGatherSkipped() {
  return "gin-sdma: librccl has no in-library GIN-SDMA AllGather (its GIN-SDMA path is ncclAlltoAll's, "
         "gin_alltoall_sdma.cu; GIN-SDMA AllGather figures come from rccl-tests' device-API kernels), so "
         "gin-sdma runs AlltoAll only and its AllGather points were not run";
}

// The GIN-SDMA environment, in the order of the knob catalog's prerequisite list: the
// Anvil SDMA GIN backend, and librccl's AlltoAll GIN path forced to SDMA puts at every size
// (enabled, no minimum, SDMA from 0 bytes per peer) so a sweep measures SDMA against default.
inline EnvList ginSdmaEnv(int ginType) {
  return {{"NCCL_GIN_ENABLE", "1"},
          {"NCCL_GIN_TYPE", std::to_string(ginType)},
          {"NCCL_GIN_A2A_ENABLE", "1"},
          {"NCCL_GIN_A2A_MIN_BYTES", "0"},
          {"NCCL_GIN_A2A_SDMA_MIN_BYTES", "0"},
          {"NCCL_CUMEM_ENABLE", "1"},
          {"NCCL_DMABUF_ENABLE", "1"},
          {"HSA_NO_SCRATCH_RECLAIM", "1"}};
}

// Why the variant cannot run on an RCCL without an Anvil SDMA GIN type.
inline std::string ginSdmaUnsupportedReason(const std::string& version) {
  return "rccl " + version +
         " has no Anvil SDMA GIN type (NCCL_GIN_TYPE names it from 2.30.4: 5, then 6 from "
         "2.30.7, 7 from 2.31.0)";
}
inline std::string ginSdmaUnsupportedHint() {
  return "use rccl 2.30.7 or newer, whose ncclAlltoAll has the GIN-SDMA path (--nccl-lib PATH)";
}

// NCCL reads NCCL_CTA_POLICY as a number before 2.29 (names came later); 2 is ZERO.
inline EnvList ceEnv() { return {{"NCCL_CTA_POLICY", "2"}, {"NCCL_CUMEM_ENABLE", "1"}}; }

// ---- overlap ----
struct OverlapOptions {
  std::vector<std::string> computes = {"gemm", "fma", "triad"};
  // --compute named them: a kind this build cannot run is an error, where the default set
  // leaves it out with a warning.
  bool computesGiven = false;
  std::vector<std::string> paths = {"cu/host", "engine/host", "engine/device"};
  std::vector<int> cus = {8, 16, 32};
  std::vector<std::uint64_t> copySizesBytes = {std::uint64_t{256} << 20};
  int phaseMs = 1500;
  int gemmN = 8192;
  int srcGpu = 0;
  int dstGpu = 1;
  std::uint64_t seed = 1;
};

struct ClockSample {
  std::optional<double> smMHz;
  std::optional<double> memMHz;
  std::optional<double> powerW;
  std::optional<double> powerLimitW;
  std::vector<std::string> throttleReasons;
};

struct OverlapReport {
  std::string compute;  // gemm, fma, triad
  std::string bound;    // compute (gemm, fma) or memory (triad)
  std::string phase;    // alone-before, beside, alone-after
  std::string path;     // alone or a copy path
  int cus = 0;          // cu/* paths: CUs (SMs) the copy ran on
  std::uint64_t copySizeBytes = 0;
  double durationMs = 0;
  double computeTflops = 0;
  std::optional<double> computeGbps;   // triad: bytes it moved per second (12 per element)
  std::optional<double> keptFraction;  // beside runs: against the mean of the alone runs
  std::optional<double> copyGbps;
  std::optional<double> copyAloneGbps;  // beside: the same copy with nothing else running
  std::optional<double> bandwidthKept;  // beside: copyGbps / copyAloneGbps
  std::int64_t copies = 0;
  int totalCus = 0;                      // the compute GPU's CUs (SMs)
  std::optional<int> cusUsed;            // beside: CUs the copy holds while it copies
  std::optional<double> cuArithmetic;    // beside: (totalCus - cusUsed) / totalCus
  std::optional<std::string> mechanism;  // beside: what moved the bytes
  ClockSample clocks;
  std::string telemetry = "none";  // where clocks came from: nvml, amd-smi, model, none
  std::string computeLabel;        // e.g. "cublasGemmEx bf16 8192^3"
};

inline const char* overlapBound(const std::string& compute) { return compute == "triad" ? "memory" : "compute"; }

// What a copy of `path` holds of the GPU's CUs while it copies: a load/store kernel its own
// CUs, a host-started engine copy none, a device-initiated one the issuing kernel's one
// workgroup.
inline int overlapCusUsed(const std::string& path, int cus) {
  if (path == "cu/host" || path == "cu/device") return cus;
  return path == "engine/device" ? 1 : 0;
}

// What moved the bytes of an overlap copy, in words. `nvidia`: the CUDA build, else HIP.
// `localNoCu`: the HIP headers have hipMemcpyDeviceToDeviceNoCU (a GPU-local engine copy
// is then SDMA; without it CLR may run its blit kernel on the CUs).
inline std::string overlapMechanism(bool nvidia, const std::string& path, int cus, int src, int dst, bool localNoCu) {
  const char* units = nvidia ? "SMs" : "CUs";
  if (path == "cu/host" || path == "cu/device") {
    return "load/store kernel on " + std::to_string(cus) + " " + units + " (highest-priority stream)";
  }
  if (path == "engine/device") {
    return nvidia ? "a kernel rings a doorbell; a host proxy thread issues cudaMemcpyPeerAsync (no public device "
                    "API drives NVIDIA's copy engine)"
                  : "rocSHMEM put from a kernel in PE processes (GPU-initiated SDMA)";
  }
  const std::string api = nvidia ? "cudaMemcpy" : "hipMemcpy";
  const std::string engine = nvidia ? "on a copy engine" : "(SDMA)";
  if (!isHost(src) && !isHost(dst) && src != dst) return api + "PeerAsync " + engine + ", started by the host";
  if (isHost(src)) return api + "Async host-to-device " + engine + ", started by the host";
  if (isHost(dst)) return api + "Async device-to-host " + engine + ", started by the host";
  // CUPTI puts NVIDIA's GPU-local copy on a compute channel and does not say whether SMs or a
  // copy engine carry it (docs/MEASUREMENT.md, "What it said on H200"): no engine is claimed.
  if (nvidia) {
    return "cudaMemcpyAsync device-to-device within one GPU, started by the host (the driver's copy: SMs or a copy "
           "engine, not observable)";
  }
  return localNoCu ? "hipMemcpyAsync device-to-device NoCU (SDMA), started by the host"
                   : "hipMemcpyAsync device-to-device, started by the host (may be CLR's blit kernel on the CUs: "
                     "this HIP has no hipMemcpyDeviceToDeviceNoCU)";
}

// One copy an overlap run measures: a size, a path and, for cu/host, its CUs.
struct OverlapCopy {
  std::uint64_t sizeBytes = 0;
  std::string path;
  int cus = 0;
  bool operator==(const OverlapCopy& o) const { return sizeBytes == o.sizeBytes && path == o.path && cus == o.cus; }
};

// "cu/host 8, 64M": a copy as progress messages name it.
inline std::string overlapCopyName(const OverlapCopy& c) {
  std::string size = std::to_string(c.sizeBytes);
  for (const auto& [unit, suffix] : {std::pair{std::uint64_t{1} << 30, "G"}, std::pair{std::uint64_t{1} << 20, "M"},
                                     std::pair{std::uint64_t{1} << 10, "K"}}) {
    if (c.sizeBytes >= unit && c.sizeBytes % unit == 0) {
      size = std::to_string(c.sizeBytes / unit) + suffix;
      break;
    }
  }
  return c.path + (c.cus > 0 ? " " + std::to_string(c.cus) : std::string()) + ", " + size;
}

// The copies of a run, in the order both engines run them: for each size, each path (cu/host
// and cu/device: each --cus value). Each is measured alone once, then beside every compute.
inline std::vector<OverlapCopy> overlapCopies(const OverlapOptions& o) {
  std::vector<OverlapCopy> copies;
  for (std::uint64_t size : o.copySizesBytes) {
    for (const std::string& path : o.paths) {
      if (path == "cu/host" || path == "cu/device") {
        for (int cus : o.cus) copies.push_back({size, path, cus});
      } else {
        copies.push_back({size, path, 0});
      }
    }
  }
  return copies;
}

// Phases of a run, progress included: each copy alone, then per compute alone-before, beside
// each copy, alone-after.
inline std::int64_t overlapPhaseCount(const OverlapOptions& o) {
  const auto copies = static_cast<std::int64_t>(overlapCopies(o).size());
  return copies + static_cast<std::int64_t>(o.computes.size()) * (copies + 2);
}

// The figures of one compute's reports that need its other phases: kept against the mean of
// the alone runs, the copy's bandwidth against the copy alone, the CU arithmetic.
inline void finishOverlapReports(std::vector<OverlapReport>& reports) {
  double aloneSum = 0;
  int aloneCount = 0;
  for (const OverlapReport& r : reports) {
    if (r.path == "alone") {
      aloneSum += r.computeTflops;
      ++aloneCount;
    }
  }
  const double aloneMean = aloneCount > 0 ? aloneSum / aloneCount : 0;
  for (OverlapReport& r : reports) {
    if (r.path == "alone") continue;
    if (aloneMean > 0) r.keptFraction = r.computeTflops / aloneMean;
    if (r.copyGbps && r.copyAloneGbps && *r.copyAloneGbps > 0) r.bandwidthKept = *r.copyGbps / *r.copyAloneGbps;
    if (r.cusUsed && r.totalCus > 0) {
      r.cuArithmetic = static_cast<double>(r.totalCus - *r.cusUsed) / r.totalCus;
    }
  }
}

struct OverlapSink {
  std::function<void(const OverlapReport&)> point;
  std::function<void(const std::string& code, const std::string& message)> warning;
  std::function<void(std::int64_t done, std::int64_t total, const std::string& message)> progress;
};

}  // namespace sdma::collective
