#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/read_control.hpp"
#include "profile/records.hpp"

namespace sdma::runmode {

struct CollectorWarning {
  std::string code;
  std::string message;
};

// The longest trace line read. trace.h's and the CUPTI library's lines are a few hundred
// bytes (a kernel name may make one a few kB); a longer line is counted (warning
// `trace-line-overlong`) and skipped, never held whole.
constexpr std::size_t kMaxTraceLineBytes = 64 * 1024;
// The largest trace file read after the program ended (about 10 million spans).
constexpr std::uint64_t kMaxTraceFileBytes = 4ULL << 30;

// The most records one run or import keeps (memory: a few hundred bytes each). What comes
// after is counted and said in one `records-capped` warning, never kept.
struct CollectorLimits {
  std::size_t maxDispatches = 1000000;
  std::size_t maxCopies = 1000000;
  std::size_t maxSpans = 2000000;
  // Kernel names and labels held from trace lines until finish(): a name may be as long as a
  // line, so the record caps alone would still let 2 million records hold 128 GB.
  std::uint64_t maxTextBytes = 256ULL << 20;
};

// Collects the trace lines the program's side writes (the CUPTI injection library and
// <sdma_lens/trace.h>, docs/PROFILE.md) plus records read from profiler files, and turns
// them into dispatch/copy records on the program's time line at the end of the run.
//
// Every line is outside data: any value, any int64 time, any number of lines. Nothing here
// has undefined behaviour on any of it (times go through util/checked.hpp), memory stays
// within the limits, and finish() is O(n log n) in what was kept. What is left out is
// counted and said in finish()'s warnings.
class TraceCollector {
 public:
  // CLOCK_MONOTONIC ns of the program's start: time zero of every record.
  explicit TraceCollector(std::int64_t programStartMonoNs, CollectorLimits limits = {})
      : startMonoNs_(programStartMonoNs), limits_(limits) {}

  void addLine(std::string_view line);
  // A line a reader cut off at kMaxTraceLineBytes: counted, not read.
  void addOverlongLine();
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
  // The first and the last clock line of a process (start and exit): all the mapping uses.
  struct ClockPairs {
    ClockPair first;
    ClockPair last;
  };
  struct PendingCupti {
    std::int64_t pid = 0;
    bool isKernel = false;
    DispatchRecord dispatch;  // times still on CUPTI's clock
    CopyRecord copy;
  };
  struct DeviceSpan {
    int gpu = 0;
    std::string label;
    unsigned cu = 0;
    unsigned xcc = 0;
    std::int64_t startNs = 0;  // on the program's time line, startNs <= endNs
    std::int64_t endNs = 0;
    std::uint64_t bytes = 0;
    int peer = -1;
    std::string mover;
    bool pull = false;
  };

  void malformed(std::string_view line);
  void outOfRange(const std::string& what);
  bool textFits(std::uint64_t bytes) const;
  bool holdText(std::uint64_t bytes);
  // The capped stores every kept dispatch and copy goes through.
  bool keepDispatch(DispatchRecord&& d);
  bool keepCopy(CopyRecord&& c);
  std::uint64_t mapCupti();
  void foldSpans(std::vector<DeviceSpanRecord>* spans);

  std::int64_t startMonoNs_;
  CollectorLimits limits_;
  std::uint64_t dispatchesDropped_ = 0;
  std::uint64_t copiesDropped_ = 0;
  std::uint64_t spansDropped_ = 0;
  std::uint64_t textBytes_ = 0;
  std::uint64_t lines_ = 0;
  std::uint64_t malformed_ = 0;
  std::string firstMalformed_;
  std::uint64_t overlong_ = 0;
  std::uint64_t reversed_ = 0;
  std::string firstReversed_;
  std::uint64_t outOfRange_ = 0;
  std::string firstOutOfRange_;
  std::map<std::int64_t, ClockPairs> clocks_;
  // Per process: CLOCK_MONOTONIC spans in which trace.h did its own GPU work.
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> ownWindows_;
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

struct TraceFileRead {
  bool cancelled = false;
  std::uint64_t lines = 0;
};

// The trace file the program's side appended to ($SDMA_LENS_TRACE_FILE), read after the
// program ended. The program could have put anything at that path: it is opened with
// ingest::SafeFile (no link, a regular file only, non-blocking open, at most maxBytes), read
// in lines of at most kMaxTraceLineBytes, and `control` is polled every line and chunk, so a
// cancel stops the read at once. No file there is no problem (the lines came through the
// pipe); any other refusal or read error is a `trace-file-unreadable` warning.
TraceFileRead readTraceFile(const std::string& path, std::uint64_t maxBytes, TraceCollector& collector,
                            ingest::Control& control, std::vector<CollectorWarning>& warnings);

}  // namespace sdma::runmode
