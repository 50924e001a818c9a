#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collective/collective_math.hpp"

namespace sdma::collective {

struct CollectiveOptions {
  std::vector<Op> ops = {Op::AllGather, Op::AlltoAll};
  std::vector<std::string> variants;  // empty: every variant of the vendor
  std::vector<int> gpus;              // empty: every GPU of the node
  std::vector<std::uint64_t> sizesBytes;
  int iters = 20;
  int warmupIters = 5;
  bool check = true;
  bool inPlace = true;     // run the in-place form where the operation defines one
  bool outOfPlace = true;
  std::string dtype = "float";
  std::string ncclLib;     // --nccl-lib: an explicit library path
  bool transportLog = true;  // read the library's own per-call record of the path
  std::uint64_t seed = 1;
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct VariantReport {
  std::string name;  // default, ce, gin-sdma
  bool supported = true;
  std::string reason;  // why not, when unsupported
  std::string hint;
  EnvList env;         // what the variant set before its communicator was created
  bool symmetric = false;  // buffers from ncclMemAlloc, registered as symmetric windows
  std::string library;     // nccl or rccl
  std::string libraryVersion;
  std::string libraryPath;
};

struct PointReport {
  Op op = Op::AllGather;
  std::string variant;
  int ranks = 0;
  std::uint64_t sizeBytes = 0;
  std::uint64_t count = 0;  // elements of dtype in the received buffer (nccl-tests "count")
  std::string dtype;
  bool inPlace = false;
  double timeUs = 0;
  std::int64_t wrong = -1;  // -1: not checked
  std::optional<std::string> transport;  // what the library said it ran; unset: it said nothing
  std::string evidence;                  // the log line it came from
  int iters = 0;
};

// Where an engine hands its results; the command turns them into records.
struct CollectiveSink {
  std::function<void(const VariantReport&)> variant;
  std::function<void(const PointReport&)> point;
  std::function<void(const std::string& code, const std::string& message)> warning;
  std::function<void(std::int64_t done, std::int64_t total, const std::string& message)> progress;
};

struct EngineFailure {
  std::string code;  // error record code
  std::string message;
  std::string hint;
};

// RCCL's number for the GIN Anvil SDMA backend moved with releases (RCCL docs, rocm-systems PRs):
// 5 before 2.30, 6 in 2.30, 7 from 2.31 (NCCL 2.31 took 5 for EFA).
inline int ginSdmaTypeForRccl(int major, int minor) {
  const int v = major * 100 + minor;
  if (v >= 231) return 7;
  if (v >= 230) return 6;
  return 5;
}

// The GIN-SDMA environment, in the order of the knob catalog's prerequisite list.
inline EnvList ginSdmaEnv(int major, int minor) {
  return {{"NCCL_GIN_ENABLE", "1"},
          {"NCCL_GIN_TYPE", std::to_string(ginSdmaTypeForRccl(major, minor))},
          {"NCCL_CUMEM_ENABLE", "1"},
          {"NCCL_DMABUF_ENABLE", "1"},
          {"RCCL_ENABLE_INTRANET", "1"},
          {"HSA_NO_SCRATCH_RECLAIM", "1"}};
}

// NCCL reads NCCL_CTA_POLICY as a number before 2.29 (names came later); 2 is ZERO.
inline EnvList ceEnv() { return {{"NCCL_CTA_POLICY", "2"}, {"NCCL_CUMEM_ENABLE", "1"}}; }

// ---- overlap ----
struct OverlapOptions {
  std::vector<std::string> computes = {"gemm", "fma"};
  std::vector<std::string> paths = {"cu/host", "engine/host", "engine/device"};
  std::vector<int> cus = {8, 16, 32};
  std::uint64_t copySizeBytes = std::uint64_t{256} << 20;
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
  std::string compute;  // gemm, fma
  std::string phase;    // alone-before, beside, alone-after
  std::string path;     // alone or a copy path
  int cus = 0;          // cu/* paths: CUs (SMs) the copy ran on
  std::uint64_t copySizeBytes = 0;
  double durationMs = 0;
  double computeTflops = 0;
  std::optional<double> keptFraction;  // beside runs: against the mean of the alone runs
  std::optional<double> copyGbps;
  std::int64_t copies = 0;
  ClockSample clocks;
  std::string computeLabel;  // e.g. "cublasGemmEx bf16 8192^3"
};

struct OverlapSink {
  std::function<void(const OverlapReport&)> point;
  std::function<void(const std::string& code, const std::string& message)> warning;
  std::function<void(std::int64_t done, std::int64_t total, const std::string& message)> progress;
};

}  // namespace sdma::collective
