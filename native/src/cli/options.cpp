// What the options of info, sweep and matrix mean (cli/args.hpp): their defaults, the grammar
// of their values (sizes, size lists, CU lists, paths, GPU lists), the checks that need every
// flag and those that need the node. The flag table (cli/flag_table.cpp) names the readers here.
#include "cli/args.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "sdma_limits.hpp"

namespace sdma {

namespace {

const std::vector<std::uint64_t>& defaultSizesBytes() {
  static const std::vector<std::uint64_t> sizes = [] {
    const std::uint64_t K = 1024, M = K * K, G = M * K;
    return std::vector<std::uint64_t>{4 * K, 16 * K, 64 * K, 128 * K, 256 * K, 512 * K, 1 * M,
                                      2 * M, 4 * M,  16 * M, 64 * M,  256 * M, 1 * G};
  }();
  return sizes;
}

const std::vector<int> kDefaultCus = {1, 2, 4, 8, 16, 32, 64, 128, 256};

template <typename List>
void checkListLength(std::string_view flag, const List& list, std::int64_t max, std::string_view what) {
  if (static_cast<std::int64_t>(list.size()) > max) {
    throw UsageError(std::string(flag) + ": " + std::to_string(list.size()) + " " + std::string(what) + ", more than " +
                     std::to_string(max));
  }
}

Error usageError(std::string message) { return Error{"usage", std::move(message), {}}; }

std::string formatMaxSize() { return formatSize(static_cast<std::uint64_t>(limits::sizeBytesMax)); }

}  // namespace

Options defaultOptions(Command command) {
  Options options;
  options.sizesBytes = defaultSizesBytes();
  options.paths.assign(kAllCopyPaths.begin(), kAllCopyPaths.end());
  options.cus = kDefaultCus;
  if (command == Command::Matrix) {
    options.sizesBytes = {kMatrixDefaultSizeBytes};
    options.cus = {kMatrixDefaultCus};
  }
  return options;
}

namespace cli {

std::uint64_t readSize(const FlagSpec& spec, std::string_view text) { return parseSizeBytes(spec.name, text); }

std::vector<std::uint64_t> readSizeList(const FlagSpec& spec, std::string_view text) {
  std::vector<std::uint64_t> sizes = parseSizeList(spec.name, text);
  checkListLength(spec.name, sizes, spec.max.value, "sizes");
  return sizes;
}

std::vector<int> readCuList(const FlagSpec& spec, std::string_view text) {
  std::vector<int> cus = parseCuList(spec.name, text);
  checkListLength(spec.name, cus, spec.max.value, "CU counts");
  return cus;
}

std::vector<int> readCuItems(const FlagSpec& spec, std::string_view text) { return parseCuList(spec.name, text); }

std::vector<CopyPath> readPathList(const FlagSpec& spec, std::string_view text) {
  return parsePathList(spec.name, text);
}

int readEndpoint(const FlagSpec& spec, std::string_view text) { return parseEndpoint(spec.name, text); }

std::vector<EndpointPair> readPairList(const FlagSpec& spec, std::string_view text) {
  std::vector<EndpointPair> pairs = parsePairList(spec.name, text);
  checkListLength(spec.name, pairs, spec.max.value, "pairs");
  return pairs;
}

std::vector<int> readGpuList(const FlagSpec& spec, std::string_view text) { return parseGpuList(spec.name, text); }

std::vector<int> readIndexList(const FlagSpec& spec, std::string_view text) {
  std::vector<int> indices;
  for (std::string_view item : splitOn(text, ',')) indices.push_back(readInt(spec, item));
  return indices;
}

std::uint64_t readSeed(const FlagSpec& spec, std::string_view text) {
  const std::optional<std::uint64_t> seed = parseWholeUnsigned(text);
  if (!seed)
    throw UsageError(std::string(spec.name) + ": " + quoted(text) + " is not a whole number (0.." +
                     std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")");
  return *seed;
}

FaultSpec readFault(const FlagSpec& spec, std::string_view text) {
  const std::optional<FaultSpec> fault = parseFaultSpec(text);
  if (!fault) {
    throw UsageError(std::string(spec.name) + ": " + quoted(text) + " is not a fault spec (" + faultSpecForms() + ")");
  }
  return *fault;
}

std::vector<TimingMode> readModes(const FlagSpec& spec, std::string_view text) {
  if (text == "pipelined") return {TimingMode::Pipelined};
  if (text == "one-shot" || text == "oneshot") return {TimingMode::OneShot};
  if (text == "both") return {TimingMode::OneShot, TimingMode::Pipelined};
  throw UsageError(std::string(spec.name) + ": " + quoted(text) + " is not a timing mode (pipelined, one-shot, both)");
}

std::vector<SimWeakSpec> readSimWeak(const FlagSpec& spec, std::string_view text) {
  return parseSimWeakList(spec.name, text);
}

namespace {

// A list of counts each in lowest..highest; `what` names one item in messages ("wave count"),
// `hint` says what the values mean.
std::vector<int> readCountList(const FlagSpec& spec, std::string_view text, long long lowest, long long highest,
                               std::string_view what, std::string_view hint) {
  std::vector<int> values;
  for (std::string_view item : splitOn(text, ',')) {
    const std::optional<long long> count = parseWholeSigned(item);
    if (!count) {
      throw UsageError(std::string(spec.name) + ": " + quoted(item) + " is not a " + std::string(what) + " (" +
                       std::string(hint) + ")");
    }
    if (*count < lowest || *count > highest) {
      throw UsageError(std::string(spec.name) + ": " + std::string(what) + " " + quoted(item) + " is out of range (" +
                       std::to_string(lowest) + ".." + std::to_string(highest) + "; " + std::string(hint) + ")");
    }
    if (std::find(values.begin(), values.end(), static_cast<int>(*count)) != values.end()) {
      throw UsageError(std::string(spec.name) + ": " + quoted(item) + " is listed twice");
    }
    values.push_back(static_cast<int>(*count));
  }
  checkListLength(spec.name, values, spec.max.value, "values");
  return values;
}

}  // namespace

std::vector<int> readWavesList(const FlagSpec& spec, std::string_view text) {
  return readCountList(spec, text, 1, limits::wavesPerCuMax, "wave count",
                       "wavefronts per CU, e.g. --waves-per-cu 1,4,16");
}

std::vector<int> readEnginesList(const FlagSpec& spec, std::string_view text) {
  return readCountList(spec, text, 1, limits::splitMax, "engine count",
                       "engines one copy is split over, e.g. --engines 1,2,4");
}

std::vector<int> readBatchList(const FlagSpec& spec, std::string_view text) {
  return readCountList(spec, text, 0, limits::batchMax, "batch size",
                       "pieces of one batched engine/host call, 0 for the single-copy API, e.g. --batch 0,8,64");
}

std::vector<ShmemSdma> readShmemSdmaList(const FlagSpec& spec, std::string_view text) {
  std::vector<ShmemSdma> modes;
  for (std::string_view item : splitOn(text, ',')) {
    const std::optional<ShmemSdma> mode = parseShmemSdma(item);
    if (!mode) {
      throw UsageError(std::string(spec.name) + ": " + quoted(item) +
                       " is not a rocSHMEM SDMA mode (forced, library, off; e.g. --shmem-sdma forced,off)");
    }
    if (std::find(modes.begin(), modes.end(), *mode) != modes.end()) {
      throw UsageError(std::string(spec.name) + ": " + quoted(item) + " is listed twice");
    }
    modes.push_back(*mode);
  }
  checkListLength(spec.name, modes, spec.max.value, "values");
  return modes;
}

void appendSimWeak(const FlagSpec& spec, std::string_view text, void* target) {
  // Repeats add up: each value names more weaknesses (the same WHAT on one host multiplies).
  std::vector<SimWeakSpec>& all = static_cast<Options*>(target)->simWeak;
  const std::vector<SimWeakSpec> specs = readSimWeak(spec, text);
  all.insert(all.end(), specs.begin(), specs.end());
  checkListLength(spec.name, all, spec.max.value, "weaknesses");
}

}  // namespace cli

void finishOptions(Command command, Options& options) {
  const TimelineFlags& flags = options.timelineFlags;
  if (!flags.sizeBytes) {
    if (flags.outPath) throw UsageError("--timeline-out needs --timeline-size");
    if (flags.cus) throw UsageError("--timeline-cus needs --timeline-size");
    if (flags.repeats) throw UsageError("--timeline-iters needs --timeline-size");
  } else {
    TimelineOptions timeline;
    timeline.sizeBytes = *flags.sizeBytes;
    if (flags.outPath) {
      if (flags.outPath->empty()) throw UsageError("--timeline-out: the file name is empty");
      timeline.outPath = *flags.outPath;
    }
    if (flags.cus) timeline.cus = *flags.cus;
    if (flags.repeats) timeline.repeats = *flags.repeats;
    options.timeline = timeline;
  }
  if (command == Command::Matrix && options.cus.size() != 1) {
    throw UsageError("--cus: matrix takes one CU count (each cell is one pair at one size and one CU count)");
  }
  if (!options.pairs.empty() && (options.src || options.dst)) {
    throw UsageError(
        "--pairs cannot be combined with --src/--dst: give the pairs in one list (e.g. --pairs host:0,0:1)");
  }
  if (options.src && options.dst && isHost(*options.src) && isHost(*options.dst)) {
    throw UsageError("--src and --dst are both host: one end of a copy must be a GPU");
  }
  if (options.simGpus > 0 && (options.backend == "hip" || options.backend == "cuda")) {
    throw UsageError("--sim-gpus sets the simulated node's GPU count; --backend " + options.backend +
                     " measures the GPUs this node has (leave --sim-gpus out, or use --backend sim)");
  }
  if (!options.series.empty()) {
    if (options.series != "runtime-default") {
      throw UsageError("--series: " + quoted(options.series) + " is not a series (runtime-default)");
    }
    if (options.runtimeDefault) {
      throw UsageError(
          "--series runtime-default measures that series alone; --runtime-default adds it to a sweep "
          "(give one of them)");
    }
    if (options.paths != std::vector<CopyPath>{CopyPath::EngineHost}) {
      throw UsageError("--series runtime-default measures hipMemcpyAsync copies: give --paths engine/host");
    }
    if (options.timeline) throw UsageError("--series runtime-default records no timeline (leave out --timeline-size)");
    if (options.engineId >= 0) {
      throw UsageError("--series runtime-default lets the runtime pick the engine (leave out --engine)");
    }
    if (options.engines != std::vector<int>{1} || options.batch != std::vector<int>{0}) {
      throw UsageError(
          "--series runtime-default measures plain hipMemcpyAsync copies (leave out --engines and --batch)");
    }
    if (options.backend == "cuda") {
      throw UsageError(
          "--series runtime-default is AMD's: on NVIDIA the engine/host series already is what "
          "cudaMemcpyAsync does by default (use --backend hip, sim or auto)");
    }
  }
  if (options.engineId >= 0 &&
      std::any_of(options.engines.begin(), options.engines.end(), [](int n) { return n > 1; })) {
    throw UsageError(
        "--engine runs engine/host on one named SDMA engine; --engines splits one copy over several "
        "(give --engines 1, or leave out --engine)");
  }
  if (!options.simWeak.empty() && (options.backend == "hip" || options.backend == "cuda")) {
    throw UsageError("--sim-weak shapes only the simulated node; --backend " + options.backend +
                     " measures the GPUs this node has (leave --sim-weak out, or use --backend sim)");
  }
}

std::uint64_t parseSizeBytes(std::string_view flag, std::string_view text) {
  const auto notASize = [&] {
    return UsageError(std::string(flag) + ": " + quoted(text) + " is not a size (e.g. 4096, 64K, 1M, 1G)");
  };
  std::string_view digits = text;
  std::uint64_t multiplier = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        multiplier = std::uint64_t{1} << 10;
        break;
      case 'M':
      case 'm':
        multiplier = std::uint64_t{1} << 20;
        break;
      case 'G':
      case 'g':
        multiplier = std::uint64_t{1} << 30;
        break;
      default:
        break;
    }
    if (multiplier != 1) digits.remove_suffix(1);
  }
  const std::optional<std::uint64_t> count = parseWholeUnsigned(digits);
  if (!count) throw notASize();
  if (*count == 0 || *count > static_cast<std::uint64_t>(limits::sizeBytesMax) / multiplier) {
    throw UsageError(std::string(flag) + ": " + quoted(text) + " is out of range (1 byte.." + formatMaxSize() + ")");
  }
  return *count * multiplier;
}

std::vector<std::uint64_t> parseSizeList(std::string_view flag, std::string_view text) {
  std::vector<std::uint64_t> sizes;
  for (std::string_view item : splitOn(text, ',')) {
    const std::vector<std::string_view> parts = splitOn(item, ':');
    if (parts.size() == 1) {
      sizes.push_back(parseSizeBytes(flag, item));
      continue;
    }
    if (parts.size() > 3) throw UsageError(std::string(flag) + ": " + quoted(item) + " is not FROM:TO or FROM:TO:xF");
    const std::uint64_t from = parseSizeBytes(flag, parts[0]);
    const std::uint64_t to = parseSizeBytes(flag, parts[1]);
    std::uint64_t factor = 2;
    if (parts.size() == 3) {
      const std::string_view step = parts[2];
      const std::optional<std::uint64_t> parsed =
          step.size() > 1 && (step[0] == 'x' || step[0] == 'X') ? parseWholeUnsigned(step.substr(1)) : std::nullopt;
      if (!parsed || *parsed < 2 || *parsed > 1024) {
        throw UsageError(std::string(flag) + ": " + quoted(step) + " in " + quoted(item) +
                         " is not a step like x2 or x4 (factor 2..1024)");
      }
      factor = *parsed;
    }
    if (from > to) throw UsageError(std::string(flag) + ": range " + quoted(item) + " runs backwards");
    for (std::uint64_t size = from; size <= to; size *= factor) {
      sizes.push_back(size);
      if (size > to / factor) break;
    }
  }
  return sizes;
}

std::vector<CopyPath> parsePathList(std::string_view flag, std::string_view text) {
  std::vector<CopyPath> paths;
  for (std::string_view item : splitOn(text, ',')) {
    if (item == "all") {
      for (CopyPath p : kAllCopyPaths) {
        if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
      }
      continue;
    }
    const std::optional<CopyPath> path = parseCopyPath(item);
    if (!path) {
      throw UsageError(std::string(flag) + ": unknown path " + quoted(item) +
                       " (cu/host, cu/device, engine/host, engine/device, all)");
    }
    if (std::find(paths.begin(), paths.end(), *path) == paths.end()) paths.push_back(*path);
  }
  return paths;
}

std::vector<int> parseCuList(std::string_view flag, std::string_view text) {
  std::vector<int> cus;
  for (std::string_view item : splitOn(text, ',')) {
    const std::optional<long long> count = parseWholeSigned(item);
    if (!count) throw UsageError(std::string(flag) + ": " + quoted(item) + " is not a CU count");
    if (*count < 1 || *count > limits::cusMax) {
      throw UsageError(std::string(flag) + ": CU count " + quoted(item) + " is out of range (1..CUs per GPU)");
    }
    cus.push_back(static_cast<int>(*count));
  }
  return cus;
}

std::vector<int> parseGpuList(std::string_view flag, std::string_view text) {
  if (text == "all") return {};
  std::vector<int> gpus;
  for (std::string_view item : splitOn(text, ',')) {
    const std::optional<long long> index = parseWholeSigned(item);
    const bool host = item == "host";
    if (!host && (!index || *index < 0 || *index > limits::gpuIndexMax)) {
      throw UsageError(std::string(flag) + ": " + quoted(item) +
                       " is not a GPU index or host (e.g. --gpus 0,1,2,3, host,0,1 or all)");
    }
    const int endpoint = host ? kHostEndpoint : static_cast<int>(*index);
    if (std::find(gpus.begin(), gpus.end(), endpoint) != gpus.end()) {
      throw UsageError(std::string(flag) + ": " + endpointName(endpoint) + " is listed twice");
    }
    gpus.push_back(endpoint);
  }
  if (gpus.size() < 2) {
    throw UsageError(std::string(flag) + ": " + quoted(text) + " names one endpoint; a matrix needs two or more");
  }
  return gpus;
}

std::string formatSize(std::uint64_t bytes) {
  static constexpr const char* kSuffixes[] = {"G", "M", "K"};
  static constexpr int kShifts[] = {30, 20, 10};
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t unit = std::uint64_t{1} << kShifts[i];
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + kSuffixes[i];
  }
  return std::to_string(bytes);
}

void fitDefaultCusToNode(Options& options, const Backend& backend) {
  const Topology& topology = backend.topology();
  if (options.cusGiven) return;
  int available = 0;
  for (const EndpointPair& pair : options.pairs) {
    const int gpu = workingGpu(pair.src, pair.dst);
    if (gpu < 0 || gpu >= static_cast<int>(topology.gpus.size())) return;
    const int cus = topology.gpus[static_cast<std::size_t>(gpu)].cus;
    available = available == 0 ? cus : std::min(available, cus);
  }
  if (available == 0) return;
  std::vector<int> fitted;
  for (int cus : options.cus) {
    if (cus <= available) fitted.push_back(cus);
  }
  if (available > 0 && (fitted.empty() || fitted.back() != available)) fitted.push_back(available);
  options.cus = fitted;
}

Error resolveEndpoints(Options& options, int gpuCount) {
  const bool fromPairs = !options.pairs.empty();
  if (!fromPairs) {
    if (options.src || options.dst) {
      // A missing end takes the default pair's: GPU 0 -> GPU 1, or GPU 0 on a one-GPU node.
      options.pairs = {{options.src.value_or(0), options.dst.value_or(gpuCount >= 2 ? 1 : 0)}};
    } else {
      options.pairs = defaultPairs(gpuCount);
    }
  }
  for (const EndpointPair& pair : options.pairs) {
    if (isHost(pair.src) && isHost(pair.dst)) {
      return usageError("--src and --dst are both host: one end of a copy must be a GPU");
    }
    for (const auto& [flag, endpoint] : {std::pair{"--src", pair.src}, std::pair{"--dst", pair.dst}}) {
      const std::string problem = endpointProblem(endpoint, gpuCount);
      if (problem.empty()) continue;
      if (fromPairs) {
        return usageError("--pairs: " + problem + ", in " + pairName(pair.src, pair.dst) +
                          "; list endpoints that `sdma-probe info` shows");
      }
      if ((std::string_view(flag) == "--src" && !options.src) || (std::string_view(flag) == "--dst" && !options.dst)) {
        return usageError(std::string(flag) + " (default): " + problem + "; give --src and --dst");
      }
      return usageError(std::string(flag) + ": " + problem + "; name a GPU that `sdma-probe info` shows, or host");
    }
  }
  return {};
}

std::vector<CopyPath> timelinePaths(const Options& options, const Backend& backend, const EndpointPair& pair) {
  std::vector<CopyPath> paths;
  for (CopyPath path : options.paths) {
    if (backend.pathUnsupported(path, pair.src, pair.dst).empty()) paths.push_back(path);
  }
  return paths;
}

Error checkOptionsForBackend(const Options& options, const Backend& backend) {
  const Topology& topology = backend.topology();
  const auto gpuAt = [&](int index) -> const GpuInfo& { return topology.gpus[static_cast<std::size_t>(index)]; };
  for (const EndpointPair& pair : options.pairs) {
    const GpuInfo& working = gpuAt(workingGpu(pair.src, pair.dst));
    for (int cus : options.cus) {
      if (cus > working.cus) {
        return usageError("--cus: CU count " + std::to_string(cus) + " is out of range (GPU " +
                          std::to_string(working.index) + ", which carries " + pairName(pair.src, pair.dst) + ", has " +
                          std::to_string(working.cus) + " CUs: 1.." + std::to_string(working.cus) + ")");
      }
    }
    // Each GPU buffer lives on its own GPU, so each must fit there; host buffers are pinned
    // host memory, whose allocation the backend checks when it makes them.
    std::uint64_t memoryBytes = std::numeric_limits<std::uint64_t>::max();
    for (int endpoint : {pair.src, pair.dst}) {
      if (!isHost(endpoint)) memoryBytes = std::min(memoryBytes, gpuAt(endpoint).memoryBytes);
    }
    for (std::uint64_t size : options.sizesBytes) {
      if (size > memoryBytes) {
        return usageError("--sizes: " + formatSize(size) + " does not fit in GPU memory (" +
                          std::to_string(memoryBytes) + " bytes)");
      }
    }
    if (options.timeline && options.timeline->sizeBytes > memoryBytes) {
      return usageError("--timeline-size: " + formatSize(options.timeline->sizeBytes) + " does not fit in GPU memory");
    }
  }
  if (const std::optional<TimelineOptions>& timeline = options.timeline) {
    // The timeline records the first pair of the sweep.
    const EndpointPair& pair = options.pairs.front();
    const GpuInfo& working = gpuAt(workingGpu(pair.src, pair.dst));
    if (timeline->cus > working.cus) {
      return usageError("--timeline-cus: " + std::to_string(timeline->cus) + " is out of range (1.." +
                        std::to_string(working.cus) + ")");
    }
    const std::vector<CopyPath> paths = timelinePaths(options, backend, pair);
    if (paths.empty()) {
      return usageError("--timeline-size: no path of --paths can run " + pairName(pair.src, pair.dst) + " (" +
                        backend.pathUnsupported(options.paths.front(), pair.src, pair.dst) + "); add a path that can");
    }
    TimelineRequest request{paths, pair.src, pair.dst, timeline->sizeBytes, timeline->cus, timeline->repeats};
    const std::uint64_t events = backend.timelineEventCount(request);
    if (events > static_cast<std::uint64_t>(limits::timelineEventsMax)) {
      return usageError("--timeline-iters: " + std::to_string(timeline->repeats) + " iterations make " +
                        std::to_string(events) + " events, more than " + std::to_string(limits::timelineEventsMax));
    }
  }
  return {};
}

}  // namespace sdma
