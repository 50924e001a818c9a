#pragma once

#include <cstddef>
#include <vector>

#include "profile/records.hpp"
#include "profile/trace_collector.hpp"

namespace sdma::runmode {

// Default of `--span-records`: device-span records a run sends at most.
constexpr std::size_t kDefaultSpanRecords = 200000;

// Spans of one CU (GPU, XCC, CU) with the same label, peer, mover and direction that touch or
// overlap become one (bytes summed): the blocks a CU runs back to back, or side by side, are one
// busy stretch. Returned in start order (then GPU, XCC, CU).
std::vector<DeviceSpanRecord> mergeTouchingSpans(std::vector<DeviceSpanRecord> spans);

// Keeps the first `limit` spans (already in start order); the rest are counted in a warning
// `device-spans-capped`. A limit of 0 sends none and warns nothing: the user asked for none.
void capSpans(std::vector<DeviceSpanRecord>& spans, std::size_t limit, std::vector<CollectorWarning>& warnings);

}  // namespace sdma::runmode
