#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "run/records.hpp"

namespace sdma::runmode {

struct CollectorWarning {
  std::string code;
  std::string message;
};

// The most records one run or import keeps (memory: a few hundred bytes each). What comes
// after is counted and said in one `records-capped` warning, never kept.
struct CollectorLimits {
  std::size_t maxDispatches = 1000000;
  std::size_t maxCopies = 1000000;
  std::size_t maxSpans = 2000000;
};

// Collects the trace lines the program's side writes (the CUPTI injection library and
// <sdma_lens/trace.h>, docs/PROFILE.md) plus records read from profiler files, and turns
// them into dispatch/copy records on the program's time line at the end of the run.
class TraceCollector {
 public:
  // CLOCK_MONOTONIC ns of the program's start: time zero of every record.
  explicit TraceCollector(std::int64_t programStartMonoNs, CollectorLimits limits = {})
      : startMonoNs_(programStartMonoNs), limits_(limits) {}

  void addLine(std::string_view line);
  // Records already on CLOCK_MONOTONIC (profiler files, the simulator). false when the record
  // was not kept (the cap is reached, or its times do not fit the run's time line): a reader
  // may stop once full() says so.
  bool addDispatchMono(DispatchRecord d);
  bool addCopyMono(CopyRecord c);
  // True once dispatches or copies reached their cap.
  bool full() const;

  // Everything, ordered by start; device-trace spans are folded into the dispatches that
  // contain them (cusSeen, one copy per label and peer) or grouped on their own. With `spans`,
  // every device-trace span also comes back as it was recorded, on the program's time line
  // (unmerged, unordered: device_spans.hpp merges and caps them).
  void finish(std::vector<DispatchRecord>& dispatches, std::vector<CopyRecord>& copies,
              std::vector<CollectorWarning>& warnings, std::vector<DeviceSpanRecord>* spans = nullptr);

  std::uint64_t linesSeen() const { return lines_; }
  // Profiler records of trace.h's own setup and flush, left out.
  std::uint64_t ownRecordsLeftOut() const { return ownRecordsLeftOut_; }

 private:
  struct ClockPair {
    std::int64_t cuptiNs = 0;
    std::int64_t monoNs = 0;
  };
  struct PendingCupti {
    long pid = 0;
    bool isKernel = false;
    DispatchRecord dispatch;  // times still on CUPTI's clock
    CopyRecord copy;
  };
  struct DeviceSpan {
    int gpu = 0;
    std::string label;
    unsigned cu = 0;
    unsigned xcc = 0;
    std::int64_t startMonoNs = 0;
    std::int64_t endMonoNs = 0;
    std::uint64_t bytes = 0;
    int peer = -1;
    std::string mover;
    bool pull = false;
  };

  std::int64_t startMonoNs_;
  CollectorLimits limits_;
  std::uint64_t dispatchesDropped_ = 0;
  std::uint64_t copiesDropped_ = 0;
  std::uint64_t spansDropped_ = 0;
  std::uint64_t lines_ = 0;
  std::uint64_t malformed_ = 0;
  std::string firstMalformed_;
  std::map<long, std::vector<ClockPair>> clocks_;
  // Per process: CLOCK_MONOTONIC spans in which trace.h did its own GPU work.
  std::map<long, std::vector<std::pair<std::int64_t, std::int64_t>>> ownWindows_;
  std::uint64_t ownRecordsLeftOut_ = 0;
  std::vector<PendingCupti> cupti_;
  std::vector<DispatchRecord> dispatches_;
  std::vector<CopyRecord> copies_;
  std::vector<DeviceSpan> spans_;
  std::uint64_t cuptiDropped_ = 0;
  std::uint64_t deviceDropped_ = 0;
  std::int64_t alignUncertaintyNs_ = 0;
  std::vector<std::string> cuptiErrors_;
};

}  // namespace sdma::runmode
