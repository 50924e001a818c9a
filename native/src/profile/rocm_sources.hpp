#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "backend/kfd_sdma.hpp"
#include "util/read_control.hpp"
#include "profile/records.hpp"
#include "profile/trace_collector.hpp"

namespace sdma::runmode {

// CLOCK_MONOTONIC - CLOCK_BOOTTIME now: added to rocprofv3's times puts them on the run's clock.
std::int64_t rocprofClockToMonoNs();

// rocprofv3's CSV traces (--kernel-trace --memory-copy-trace --output-format csv) found
// anywhere under `dir` (6 folders deep), read into the collector with `bootToMono` added to
// every time; with no CSV trace there, its rocpd databases (*.db) instead. Returns the number
// of records the collector kept. Files are streamed (one row in memory) through the safe
// open: links, FIFOs and devices are never read. Everything left out lands in `warnings`
// (files skipped, malformed rows, times or sizes out of range, a missing column). It stops
// when the collector is full, and when `control` says cancel: then with the warning
// `import-cancelled` and control.cancelled() true, the records read until then kept.
std::size_t readRocprofDir(const std::string& dir, std::int64_t bootToMono, TraceCollector& collector,
                           std::vector<CollectorWarning>& warnings, ingest::Control& control);

// The same reading on the three CSV texts in memory (tests, fuzzing): agent_info.csv,
// kernel_trace.csv and memory_copy_trace.csv; an empty text stands for a file not there.
std::size_t readRocprofCsvTexts(std::string_view agentInfo, std::string_view kernelTrace,
                                std::string_view memoryCopyTrace, std::int64_t bootToMono, TraceCollector& collector,
                                std::vector<CollectorWarning>& warnings, ingest::Control& control);

// The limits of the reading above.
inline constexpr std::uint64_t kRocprofCsvMaxFileBytes = std::uint64_t{8} << 30;  // a file over it is not read
inline constexpr std::size_t kRocprofCsvMaxRowBytes = std::size_t{1} << 20;       // a row over it is skipped
inline constexpr std::uint64_t kRocprofCsvMaxRows = 50000000;                     // rows read from one file
inline constexpr int kRocprofMaxFolderDepth = 6;
inline constexpr std::size_t kRocprofMaxFolderFiles = 100000;
inline constexpr std::size_t kRocprofMaxAgents = 4096;

// One CSV text into header-keyed rows (RFC 4180 quoting), for tests: a map per row, so small
// texts only. Rows the streaming reader cannot trust (a field count other than the header's,
// longer than 1 MiB, after a quote never closed) are not in it.
std::vector<std::map<std::string, std::string>> parseCsv(const std::string& text);

// The KFD's per-process SDMA activity counters (<root>/proc/<pid>/sdma_<gpu id>,
// microseconds: backend/kfd_sdma.hpp) of every process in the program's process group, read
// while they live: the files go away with the process. Every read is bounded (kfd::Tree), and
// so is the look at a process's group (/proc/<pid>/stat, at most kMaxProcStatBytes).
class KfdSdmaSampler {
 public:
  explicit KfdSdmaSampler(pid_t group, std::string kfdRoot = kfd::kDefaultRoot, std::string procRoot = "/proc");
  bool available() const { return available_; }
  void sample();
  // Per GPU id, ascending: the last value of each process, summed over the processes. `gpu`
  // is the GPU's index: in PCI address order when every GPU node has a distinct PCI address,
  // else in KFD topology node order (the two agree on the usual node); -1 for a GPU id the
  // topology does not list.
  std::vector<KfdSdmaActivity> totals() const;

 private:
  kfd::Tree tree_;
  std::string procRoot_;
  pid_t group_;
  bool available_ = false;
  std::map<std::uint32_t, int> gpuIndexById_;
  std::map<std::pair<long, std::uint32_t>, std::uint64_t> latest_;  // (pid, gpu id) -> counter
};

// The GPU index of each GPU id (KfdSdmaSampler::totals): PCI address order when every node has
// a distinct one, else node order.
std::map<std::uint32_t, int> kfdGpuIndices(const std::vector<kfd::GpuNode>& nodes);

// /proc/<pid>/stat is read to this many bytes (its comm field is at most 64 bytes: the line
// is far shorter).
inline constexpr std::size_t kMaxProcStatBytes = 4096;

// Removes a directory tree the helper made.
void removeTree(const std::string& dir);

}  // namespace sdma::runmode
