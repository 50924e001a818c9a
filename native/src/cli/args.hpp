#pragma once

// The options of info, sweep and matrix (Options) and what they mean: their defaults, the
// readers of their values (sizes, size lists, CU lists, paths, endpoints, GPU lists) that the
// flag table (cli/flag_table.cpp) names, the checks that need every flag, and those that need
// the node. Implemented in cli/options.cpp; the usage text in cli/usage.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "util/error.hpp"
#include "cli/parser.hpp"
#include "backend/copy_path.hpp"
#include "backend/endpoints.hpp"
#include "protocol/fault.hpp"
#include "backends/sim/sim_weak.hpp"

namespace sdma {

enum class Command { Info, Sweep, Matrix };

inline std::string_view commandName(Command command) {
  switch (command) {
    case Command::Info:
      return "info";
    case Command::Sweep:
      return "sweep";
    case Command::Matrix:
      return "matrix";
  }
  return "info";
}

struct TimelineOptions {
  std::uint64_t sizeBytes = 0;
  std::string outPath;  // empty: the events are printed inline
  int cus = 64;         // CUs of the cu/* paths in the timeline
  int repeats = 1;      // the per-path layout is repeated this many times
};

// Timeline flags are collected first: they only make sense together with --timeline-size.
struct TimelineFlags {
  std::optional<std::uint64_t> sizeBytes;
  std::optional<std::string> outPath;
  std::optional<int> cus;
  std::optional<int> repeats;
};

struct Options {
  std::string backend = "auto";  // auto, sim, hip, cuda
  std::vector<std::uint64_t> sizesBytes;
  std::vector<CopyPath> paths;
  std::vector<int> cus;
  bool cusGiven = false;  // --cus was given; otherwise the default list is fitted to the node
  int iters = 20;
  int warmupIters = 3;
  std::uint64_t seed = 1;
  // Endpoints (docs/PROTOCOL.md, "Endpoints"): --src/--dst as given, or --pairs. After
  // resolveEndpoints(), `pairs` holds the pairs the sweep runs, in order.
  std::optional<int> src;
  std::optional<int> dst;
  std::vector<EndpointPair> pairs;
  int simGpus = 0;  // --sim-gpus: GPUs of the simulated node; 0: its default (8)
  std::optional<TimelineOptions> timeline;
  int simDelayMs = 0;
  std::vector<SimWeakSpec> simWeak;  // --sim-weak, every value given, in order (sim only)
  FaultSpec fault;
  // GPU backends (docs/MEASUREMENT.md):
  std::vector<TimingMode> modes = {TimingMode::Pipelined};  // --mode
  int targetMs = 0;                                         // --target-ms: size each sample's iterations by time
  int blocksPerCu = 1;                                      // --blocks-per-cu
  bool trace = false;                                       // --trace
  int engineId = -1;                                        // --engine: engine/host on this SDMA engine (AMD)
  // The seed's dimensions (CopyRequest, docs/PROTOCOL.md "The seed's dimensions"): each list
  // multiplies the work units of the paths it applies to (commands/sweep.cpp, workUnits).
  std::vector<int> wavesPerCu;                             // --waves-per-cu; empty: the backend's default
  std::vector<int> engines = {1};                          // --engines: one copy split over N engines
  std::vector<int> batch = {0};                            // --batch: engine/host as one batched call; 0: single
  std::vector<ShmemSdma> shmemSdma = {ShmemSdma::Forced};  // --shmem-sdma
  // The runtime default series (docs/MEASUREMENT.md): --runtime-default adds it to a sweep,
  // measured by a child sdma-probe run with --series runtime-default in the user's environment.
  bool runtimeDefault = false;
  std::string series;  // --series: "runtime-default" (only that series' engine/host points), or empty
  // matrix (docs/MATRIX.md): sizesBytes holds the one --size, cus the one CU count.
  std::vector<int> gpus;        // --gpus (kHostEndpoint for host); empty: every GPU of the node
  bool concurrent = false;      // --concurrent: every pair of a path at the same time
  TimelineFlags timelineFlags;  // --timeline-*, as given; finishOptions makes `timeline` of them
};

// The defaults of a subcommand's options (matrix: one size and one CU count).
Options defaultOptions(Command command);

// The checks that need every flag (the timeline flags together, --src/--dst against --pairs,
// simulator flags against a hardware backend); throws UsageError.
void finishOptions(Command command, Options& options);

// Fills options.pairs from --src/--dst, --pairs or the default for a node of `gpuCount` GPUs
// and checks that every endpoint exists. Returns the usage Error, or one that is empty.
Error resolveEndpoints(Options& options, int gpuCount);

// Checks that need the node (after resolveEndpoints): CU counts, sizes and the timeline
// against what it has. Returns an empty Error when the options fit, else a usage Error.
Error checkOptionsForBackend(const Options& options, const Backend& backend);

// The paths of a timeline between `pair`'s endpoints: --paths without those that cannot exist there.
std::vector<CopyPath> timelinePaths(const Options& options, const Backend& backend, const EndpointPair& pair);

// Default size and CU count of `matrix`: one size large enough that the link, not launch or
// doorbell costs, decides the cell (as TransferBench a2a and nvbandwidth use), and the CUs
// the collective libraries' load/store path occupies (docs/MATRIX.md says why 64).
inline constexpr std::uint64_t kMatrixDefaultSizeBytes = std::uint64_t{256} << 20;
inline constexpr int kMatrixDefaultCus = 64;

// Comma list of endpoints ("0,1,2,3", "host,0,1") or "all" (an empty list); at least two, no
// repeats. host is kHostEndpoint.
std::vector<int> parseGpuList(std::string_view flag, std::string_view text);

// Without --cus, the default CU counts are cut to what the GPUs carrying the copies have
// (workingGpu of each pair), and that full count is added (132 SMs on an H200, not 128 and 256).
void fitDefaultCusToNode(Options& options, const Backend& backend);

std::string usageText();

// The value grammar, exposed for the flag table, collective/overlap and tests. They throw
// UsageError with a message that names `flag` and the offending text.

std::uint64_t parseSizeBytes(std::string_view flag, std::string_view text);
// Comma list of sizes or ranges: FROM:TO (doubling) or FROM:TO:xF (multiply by F).
std::vector<std::uint64_t> parseSizeList(std::string_view flag, std::string_view text);
std::vector<CopyPath> parsePathList(std::string_view flag, std::string_view text);
std::vector<int> parseCuList(std::string_view flag, std::string_view text);

// The readers the flag table names: each reads its row's flag (spec.name) and keeps the row's
// bounds (a list of at most spec.max items; CU counts 1..cusMax; sizes 1..sizeBytesMax).
namespace cli {
std::uint64_t readSize(const FlagSpec& spec, std::string_view text);
std::vector<std::uint64_t> readSizeList(const FlagSpec& spec, std::string_view text);
std::vector<int> readCuList(const FlagSpec& spec, std::string_view text);
std::vector<int> readCuItems(const FlagSpec& spec, std::string_view text);  // no list bound (overlap)
std::vector<CopyPath> readPathList(const FlagSpec& spec, std::string_view text);
int readEndpoint(const FlagSpec& spec, std::string_view text);
std::vector<EndpointPair> readPairList(const FlagSpec& spec, std::string_view text);
std::vector<int> readGpuList(const FlagSpec& spec, std::string_view text);
std::vector<int> readIndexList(const FlagSpec& spec, std::string_view text);  // GPU indices in min..max (collective)
std::uint64_t readSeed(const FlagSpec& spec, std::string_view text);
FaultSpec readFault(const FlagSpec& spec, std::string_view text);
std::vector<TimingMode> readModes(const FlagSpec& spec, std::string_view text);
std::vector<SimWeakSpec> readSimWeak(const FlagSpec& spec, std::string_view text);
// A comma list of whole numbers, each in the row's min..`itemMax` (the limits.json key the row
// keeps), at most spec.max items, no repeats: --waves-per-cu, --engines, --batch.
std::vector<int> readWavesList(const FlagSpec& spec, std::string_view text);
std::vector<int> readEnginesList(const FlagSpec& spec, std::string_view text);
std::vector<int> readBatchList(const FlagSpec& spec, std::string_view text);
// forced, library, off (comma list, no repeats).
std::vector<ShmemSdma> readShmemSdmaList(const FlagSpec& spec, std::string_view text);
// --sim-weak adds up: each value's weaknesses join those before, at most spec.max in all.
void appendSimWeak(const FlagSpec& spec, std::string_view text, void* options);
}  // namespace cli

// 4096 -> "4K", 1048576 -> "1M", 1000 -> "1000".
std::string formatSize(std::uint64_t bytes);

}  // namespace sdma
