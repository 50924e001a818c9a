#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ingest/control.hpp"
#include "run/records.hpp"
#include "run/trace_collector.hpp"

namespace sdma::runmode {

// CLOCK_MONOTONIC - CLOCK_BOOTTIME now: added to rocprofv3's times puts them on the run's clock.
std::int64_t rocprofClockToMonoNs();

// rocprofv3's CSV traces (--kernel-trace --memory-copy-trace --output-format csv) found
// anywhere under `dir`, read into the collector with `bootToMono` added to every time; with
// no CSV trace there, its rocpd databases (*.db) instead. Returns the number of rows read;
// problems (no files, a missing column) land in `warnings`.
std::size_t readRocprofDir(const std::string& dir, std::int64_t bootToMono, TraceCollector& collector,
                           std::vector<CollectorWarning>& warnings, ingest::Control& control);

// One CSV text into header-keyed rows (RFC 4180 quoting), for tests too.
std::vector<std::map<std::string, std::string>> parseCsv(const std::string& text);

// The KFD's per-process SDMA activity counters (/sys/class/kfd/kfd/proc/<pid>/sdma_<gpu id>)
// of every process in the program's process group, read while they live: the files go
// away with the process.
class KfdSdmaSampler {
 public:
  explicit KfdSdmaSampler(pid_t group);
  bool available() const { return available_; }
  void sample();
  std::vector<KfdSdmaActivity> totals() const;

 private:
  pid_t group_;
  bool available_ = false;
  std::map<std::uint32_t, int> gpuIndexById_;
  std::map<std::pair<long, std::uint32_t>, std::uint64_t> latest_;  // (pid, gpu id) -> counter
};

// Removes a directory tree the helper made.
void removeTree(const std::string& dir);

}  // namespace sdma::runmode
