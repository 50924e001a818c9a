#include "profile/device_spans.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace sdma::runmode {

namespace {

auto laneKey(const DeviceSpanRecord& s) { return std::tie(s.gpu, s.xcc, s.cu, s.label, s.peer, s.mover, s.pull); }

}  // namespace

std::vector<DeviceSpanRecord> mergeTouchingSpans(std::vector<DeviceSpanRecord> spans) {
  std::sort(spans.begin(), spans.end(), [](const DeviceSpanRecord& x, const DeviceSpanRecord& y) {
    return std::tuple_cat(laneKey(x), std::tie(x.startNs, x.endNs)) <
           std::tuple_cat(laneKey(y), std::tie(y.startNs, y.endNs));
  });
  std::vector<DeviceSpanRecord> merged;
  for (DeviceSpanRecord& s : spans) {
    if (!merged.empty()) {
      DeviceSpanRecord& last = merged.back();
      if (laneKey(last) == laneKey(s) && s.startNs <= last.endNs) {
        last.endNs = std::max(last.endNs, s.endNs);
        last.bytes += s.bytes;
        continue;
      }
    }
    merged.push_back(std::move(s));
  }
  std::sort(merged.begin(), merged.end(), [](const DeviceSpanRecord& x, const DeviceSpanRecord& y) {
    return std::tie(x.startNs, x.gpu, x.xcc, x.cu, x.endNs) < std::tie(y.startNs, y.gpu, y.xcc, y.cu, y.endNs);
  });
  return merged;
}

void capSpans(std::vector<DeviceSpanRecord>& spans, std::size_t limit, std::vector<CollectorWarning>& warnings) {
  if (spans.size() <= limit) return;
  const std::size_t dropped = spans.size() - limit;
  if (limit > 0) {
    const std::int64_t lastKeptNs = spans[limit - 1].startNs;
    warnings.push_back({"device-spans-capped",
                        std::to_string(dropped) + " of " + std::to_string(spans.size()) +
                            " device-trace spans (after merging) were not sent: only the first " +
                            std::to_string(limit) + " in time order were (the last starting " +
                            std::to_string(lastKeptNs) +
                            " ns into the run), so the timeline's CU lanes stop there; the launches' CU counts and "
                            "the copies still include every span. Raise --span-records to send them all"});
  }
  spans.resize(limit);
}

}  // namespace sdma::runmode
