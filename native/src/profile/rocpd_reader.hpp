#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/read_control.hpp"
#include "profile/trace_collector.hpp"

namespace sdma::runmode {

// The largest rocpd database read (a profile of a long run with every dispatch traced stays
// well below it). A bigger file is refused before SQLite sees it.
inline constexpr std::uint64_t kRocpdMaxFileBytes = 16ULL * 1024 * 1024 * 1024;

// True when this helper was built with SQLite3 and can read rocpd databases.
bool rocpdSupported();

// rocprofv3's rocpd SQLite database (its default output since ROCm 7.0): kernel dispatches
// and memory copies, read into the collector as the CSV reader reads them (docs/PROFILE.md,
// "rocpd"). Every time read gets `clockToMonoNs` added (rocprofv3's clock -> the run's
// CLOCK_MONOTONIC; 0 to keep rocprofv3's clock). Returns the number of records the collector
// kept; what could not be read (not a database, a table or column missing, a limit reached,
// rows out of range, built without SQLite) lands in `warnings`, never as made-up values.
//
// The file is outside data and is read as such: opened with ingest::SafeFile (no link, only a
// regular file, at most kRocpdMaxFileBytes), handed to SQLite as that open descriptor,
// read-only, with SQLite's memory and value sizes capped; only real tables are read, never
// the file's views, triggers or virtual tables. `control` is polled every row and inside
// long queries: once it says cancel, the read stops and says so (warning rocpd-cancelled).
std::size_t readRocpdDatabase(const std::string& path, std::int64_t clockToMonoNs, TraceCollector& collector,
                              std::vector<CollectorWarning>& warnings, ingest::Control& control);

}  // namespace sdma::runmode
