#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ingest/control.hpp"
#include "run/trace_collector.hpp"

namespace sdma::runmode {

// True when this helper was built with SQLite3 and can read rocpd databases.
bool rocpdSupported();

// rocprofv3's rocpd SQLite database (its default output since ROCm 7.0): kernel dispatches
// and memory copies, read into the collector as the CSV reader reads them (docs/PROFILE.md,
// "rocpd"). Every time read gets `clockToMonoNs` added (rocprofv3's clock -> the run's
// CLOCK_MONOTONIC; 0 to keep rocprofv3's clock). Returns the number of records read; what
// could not be read (not a database, a view or column missing, built without SQLite) lands
// in `warnings`, never as made-up values.
std::size_t readRocpdDatabase(const std::string& path, std::int64_t clockToMonoNs, TraceCollector& collector,
                              std::vector<CollectorWarning>& warnings, ingest::Control& control);

}  // namespace sdma::runmode
