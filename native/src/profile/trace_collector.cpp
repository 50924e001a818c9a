#include "profile/trace_collector.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <tuple>

#include "util/checked.hpp"
#include "util/safe_file.hpp"
#include "util/ndjson_reader.hpp"

namespace sdma::runmode {

namespace {

// Device-trace spans closer than this belong to one group when no dispatch contains them:
// wider than the clock alignment's uncertainty, far shorter than a kernel launch gap.
constexpr std::int64_t kGroupGapNs = 20000;
// trace.h cuts labels at 200 bytes and CUPTI's memory copy kinds are a word: longer text from
// a line is cut here, so a span holds a label, not up to a line.
constexpr std::size_t kMaxLabelBytes = 256;
constexpr std::size_t kMaxKindBytes = 64;
constexpr std::size_t kMaxMessageBytes = 1024;
// Processes whose clock pairs and own windows are kept (a run of many short CUDA processes has
// a few thousand), and windows per process (trace.h writes two: setup and flush). A window
// past these is not kept: the profiler records in it then show as the program's own, which
// is harmless; a clock line past them leaves its process's records unmapped (said by
// trace-clock-missing).
constexpr std::size_t kMaxProcesses = 65536;
constexpr std::size_t kMaxWindowsPerProcess = 64;
// trace.h measures an alignment uncertainty of a few µs; a larger value only widens the fold's
// windows, and is taken as at most 1 s.
constexpr std::int64_t kMaxAlignUncertaintyNs = 1000000000;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// Saturating sums for the bounds of searches and comparisons, where "beyond every time" is
// the right answer when the exact one does not fit.
std::int64_t addClamped(std::int64_t a, std::int64_t b) {
  if (const auto r = ingest::add(a, b)) return *r;
  return b > 0 ? kInt64Max : kInt64Min;
}

std::int64_t subClamped(std::int64_t a, std::int64_t b) {
  if (const auto r = ingest::sub(a, b)) return *r;
  return b > 0 ? kInt64Min : kInt64Max;
}

std::uint64_t addClamped(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::uint64_t nonNegative(std::int64_t v) { return v < 0 ? 0 : static_cast<std::uint64_t>(v); }

// At most `max` bytes, not cutting a UTF-8 sequence in two. A new string: resize() would keep
// the long one's allocation, and a kept span would still hold a line's worth of memory.
std::string cutText(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0u) == 0x80u) --n;
  return text.substr(0, n);
}

using ndjson::boolField;
using ndjson::intField;
using ndjson::present;
using ndjson::stringField;
using JsonObject = ndjson::Value;

// A trace line: one flat object (scalars and arrays of numbers), at most kMaxTraceLineBytes.
ndjson::Limits traceLineLimits() {
  ndjson::Limits limits;
  limits.maxLineBytes = kMaxTraceLineBytes;
  limits.maxDepth = 2;
  return limits;
}

// A field that may be left out (or null): then `fallback`. When present it must be an integer
// that fits, else nullopt, which makes the line malformed: a value no producer writes is not
// quietly read as another one.
std::optional<std::int64_t> optionalInt(const JsonObject& o, std::string_view key, std::int64_t fallback) {
  return present(o, key) ? intField(o, key) : std::optional<std::int64_t>(fallback);
}

std::optional<int> optionalSmallInt(const JsonObject& o, std::string_view key, int fallback) {
  const auto v = optionalInt(o, key, fallback);
  return v ? ingest::toInt(*v) : std::nullopt;
}

std::optional<unsigned> optionalUnsigned(const JsonObject& o, std::string_view key, unsigned fallback) {
  const auto v = optionalInt(o, key, fallback);
  return v ? ingest::toUnsigned(*v) : std::nullopt;
}

// grid or block: left out, {0, 0, 0}; present, each of its first three numbers must fit an int.
std::optional<std::array<int, 3>> triple(const JsonObject& o, std::string_view key) {
  std::array<int, 3> out{0, 0, 0};
  if (!present(o, key)) return out;
  const std::optional<std::vector<double>> v = ndjson::numbersField(o, key);
  if (!v) return std::nullopt;
  for (std::size_t i = 0; i < 3 && i < v->size(); ++i) {
    const std::optional<int> n = ingest::toInt((*v)[i]);
    if (!n) return std::nullopt;
    out[i] = *n;
  }
  return out;
}

// One key per CU: the XCC and the CU id side by side, no two alike.
std::uint64_t cuKey(unsigned xcc, unsigned cu) { return (static_cast<std::uint64_t>(xcc) << 32) | cu; }

// The dispatches of one GPU in start order, with a max-tree over their ends: the latest
// started one still running at a time is found in O(log n), however many dispatches ran
// before it (a look-back over earlier dispatches is quadratic on a trace of many short ones).
class RunningOnGpu {
 public:
  void add(std::size_t index, std::int64_t start, std::int64_t end) {
    index_.push_back(index);
    starts_.push_back(start);
    ends_.push_back(end);
  }

  void build() {
    leaves_ = 1;
    while (leaves_ < ends_.size()) leaves_ *= 2;
    tree_.assign(2 * leaves_, kInt64Min);
    std::copy(ends_.begin(), ends_.end(), tree_.begin() + static_cast<std::ptrdiff_t>(leaves_));
    for (std::size_t n = leaves_; n-- > 1;) tree_[n] = std::max(tree_[2 * n], tree_[2 * n + 1]);
  }

  // The index of the latest started dispatch with start <= startAtMost and end >= endAtLeast.
  std::optional<std::size_t> find(std::int64_t startAtMost, std::int64_t endAtLeast) const {
    const std::size_t limit =
        static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end(), startAtMost) - starts_.begin());
    const std::optional<std::size_t> at = search(1, 0, leaves_, limit, endAtLeast);
    if (!at) return std::nullopt;
    return index_[*at];
  }

 private:
  // The rightmost leaf below `limit` whose end reaches `threshold`. A node wholly below the
  // limit whose max reaches it always leads to a leaf, so this visits O(log n) nodes.
  std::optional<std::size_t> search(std::size_t node, std::size_t lo, std::size_t hi, std::size_t limit,
                                    std::int64_t threshold) const {
    if (lo >= limit || tree_[node] < threshold) return std::nullopt;
    if (hi - lo == 1) return lo;
    const std::size_t mid = lo + (hi - lo) / 2;
    if (const auto right = search(2 * node + 1, mid, hi, limit, threshold)) return right;
    return search(2 * node, lo, mid, limit, threshold);
  }

  std::vector<std::size_t> index_;
  std::vector<std::int64_t> starts_;
  std::vector<std::int64_t> ends_;
  std::vector<std::int64_t> tree_;
  std::size_t leaves_ = 1;
};

}  // namespace

void TraceCollector::malformed(std::string_view line) {
  if (malformed_++ == 0) firstMalformed_ = std::string(line.substr(0, 120));
}

void TraceCollector::outOfRange(const std::string& what) {
  if (outOfRange_++ == 0) firstOutOfRange_ = what;
}

bool TraceCollector::textFits(std::uint64_t bytes) const {
  return bytes <= limits_.maxTextBytes - std::min(limits_.maxTextBytes, textBytes_);
}

bool TraceCollector::holdText(std::uint64_t bytes) {
  if (!textFits(bytes)) return false;
  textBytes_ += bytes;
  return true;
}

bool TraceCollector::keepDispatch(DispatchRecord&& d) {
  if (dispatches_.size() >= limits_.maxDispatches) {
    ++dispatchesDropped_;
    return false;
  }
  dispatches_.push_back(std::move(d));
  return true;
}

bool TraceCollector::keepCopy(CopyRecord&& c) {
  if (copies_.size() >= limits_.maxCopies) {
    ++copiesDropped_;
    return false;
  }
  copies_.push_back(std::move(c));
  return true;
}

void TraceCollector::addOverlongLine() {
  ++lines_;
  ++overlong_;
}

void TraceCollector::addLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return;
  ++lines_;
  // The readers cut lines at this length already; a caller handing a longer one gets the same.
  if (line.size() > kMaxTraceLineBytes) {
    ++overlong_;
    return;
  }
  static const ndjson::Limits kLimits = traceLineLimits();
  const std::optional<JsonObject> o = ndjson::parseLine(line, kLimits);
  if (!o || !ndjson::isFlat(*o)) return malformed(line);
  const std::optional<std::string> kind = stringField(*o, "k");
  const std::optional<std::int64_t> pid = optionalInt(*o, "pid", 0);
  if (!kind || !pid) return malformed(line);
  // CUPTI records wait for finish() (their clock pairs may come later): at most as many as
  // could be kept.
  const std::size_t pendingCap = limits_.maxDispatches > std::numeric_limits<std::size_t>::max() - limits_.maxCopies
                                     ? std::numeric_limits<std::size_t>::max()
                                     : limits_.maxDispatches + limits_.maxCopies;

  if (*kind == "clock") {
    const auto c = intField(*o, "cuptiNs");
    const auto m = intField(*o, "monoNs");
    if (!c || !m) return malformed(line);
    const auto it = clocks_.find(*pid);
    if (it != clocks_.end()) {
      it->second.last = {*c, *m};
    } else if (clocks_.size() < kMaxProcesses) {
      clocks_.emplace(*pid, ClockPairs{{*c, *m}, {*c, *m}});
    }
  } else if (*kind == "kernel") {
    const std::string name = stringField(*o, "name").value_or("");
    const auto gpu = optionalSmallInt(*o, "gpu", 0);
    const auto s = intField(*o, "startNs");
    const auto e = intField(*o, "endNs");
    const auto corr = optionalInt(*o, "corr", -1);
    const auto grid = triple(*o, "grid");
    const auto block = triple(*o, "block");
    if (!s || !e || name.empty() || !gpu || !corr || !grid || !block) return malformed(line);
    // Cap and text budget before demangling: a flood past them costs no demangler time.
    if (cupti_.size() >= pendingCap || !textFits(name.size())) {
      ++dispatchesDropped_;
      return;
    }
    PendingCupti p;
    p.pid = *pid;
    p.isKernel = true;
    DispatchRecord& d = p.dispatch;
    d.name = demangle(name);
    if (d.name != name) d.mangled = name;
    if (!holdText(d.name.size() + d.mangled.size())) {
      ++dispatchesDropped_;
      return;
    }
    d.gpu = *gpu;
    d.startNs = *s;
    d.endNs = *e;
    d.grid = *grid;
    d.block = *block;
    d.source = "cupti";
    d.correlationId = *corr;
    cupti_.push_back(std::move(p));
  } else if (*kind == "memcpy") {
    const auto s = intField(*o, "startNs");
    const auto e = intField(*o, "endNs");
    const auto bytes = intField(*o, "bytes");
    const auto src = optionalSmallInt(*o, "src", -1);
    const auto dst = optionalSmallInt(*o, "dst", -1);
    if (!s || !e || !bytes || !src || !dst) return malformed(line);
    std::string label = cutText(stringField(*o, "kind").value_or(""), kMaxKindBytes);
    if (cupti_.size() >= pendingCap || !holdText(label.size())) {
      ++copiesDropped_;
      return;
    }
    PendingCupti p;
    p.pid = *pid;
    CopyRecord& c = p.copy;
    // cudaMemcpy*: the host asked, a copy engine moved the bytes (the driver may use SM
    // copy kernels for some kinds; CUPTI still reports them as memcpy).
    c.mover = "engine";
    c.initiator = "host";
    c.srcGpu = *src;
    c.dstGpu = *dst;
    c.bytes = nonNegative(*bytes);
    c.startNs = *s;
    c.endNs = *e;
    c.source = "cupti";
    c.label = std::move(label);
    cupti_.push_back(std::move(p));
  } else if (*kind == "dev") {
    const auto gpu = optionalSmallInt(*o, "gpu", 0);
    const auto cu = optionalUnsigned(*o, "cu", 0);
    const auto xcc = optionalUnsigned(*o, "xcc", 0);
    const auto s = intField(*o, "monoStartNs");
    const auto e = intField(*o, "monoEndNs");
    const auto bytes = optionalInt(*o, "bytes", 0);
    const auto peer = optionalSmallInt(*o, "peer", -1);
    if (!gpu || !cu || !xcc || !s || !e || !bytes || !peer) return malformed(line);
    std::string label = cutText(stringField(*o, "label").value_or(""), kMaxLabelBytes);
    // A span that ends before it starts is dropped whatever the amount, not clamped to zero
    // length: trace.h turns both ends into CLOCK_MONOTONIC with the same scale and offset, so
    // the alignment's uncertainty shifts the two alike and never reverses a span. A reversed
    // one is a corrupt record (or a clock that stepped back) with no true length to keep.
    if (*e < *s) {
      if (reversed_++ == 0) {
        firstReversed_ = "GPU " + std::to_string(*gpu) + ", label \"" + cutText(label, 80) + "\", CU " +
                         std::to_string(*cu) + ", monoStartNs " + std::to_string(*s) + ", monoEndNs " +
                         std::to_string(*e);
      }
      return;
    }
    const auto start = ingest::sub(*s, startMonoNs_);
    const auto end = ingest::sub(*e, startMonoNs_);
    // The length must fit too: the fold takes the midpoint.
    if (!start || !end || !ingest::sub(*end, *start)) {
      outOfRange("a device span on GPU " + std::to_string(*gpu) + " from monoStartNs " + std::to_string(*s) +
                 " to monoEndNs " + std::to_string(*e));
      return;
    }
    if (spans_.size() >= limits_.maxSpans || !holdText(label.size())) {
      ++spansDropped_;
      return;
    }
    DeviceSpan d;
    d.gpu = *gpu;
    d.label = std::move(label);
    d.cu = *cu;
    d.xcc = *xcc;
    d.startNs = *start;
    d.endNs = *end;
    d.bytes = nonNegative(*bytes);
    d.peer = *peer;
    d.mover = stringField(*o, "mover").value_or("cu") == "engine" ? "engine" : "cu";
    d.pull = boolField(*o, "pull").value_or(false);
    spans_.push_back(std::move(d));
  } else if (*kind == "dev-window") {
    const auto s = intField(*o, "monoStartNs");
    const auto e = intField(*o, "monoEndNs");
    if (!s || !e) return malformed(line);
    const auto it = ownWindows_.find(*pid);
    if (it == ownWindows_.end() && ownWindows_.size() >= kMaxProcesses) return;
    auto& windows = it != ownWindows_.end() ? it->second : ownWindows_[*pid];
    if (windows.size() < kMaxWindowsPerProcess) windows.emplace_back(*s, *e);
  } else if (*kind == "dev-end") {
    const auto dropped = optionalInt(*o, "dropped", 0);
    const auto uncertainty = optionalInt(*o, "alignUncertaintyNs", 0);
    if (!dropped || !uncertainty) return malformed(line);
    deviceDropped_ = addClamped(deviceDropped_, nonNegative(*dropped));
    alignUncertaintyNs_ =
        std::max(alignUncertaintyNs_, std::clamp<std::int64_t>(*uncertainty, 0, kMaxAlignUncertaintyNs));
  } else if (*kind == "cupti-end") {
    const auto dropped = optionalInt(*o, "dropped", 0);
    if (!dropped) return malformed(line);
    cuptiDropped_ = addClamped(cuptiDropped_, nonNegative(*dropped));
  } else if (*kind == "cupti-error") {
    if (cuptiErrors_.size() < 4) {
      cuptiErrors_.push_back(cutText(stringField(*o, "message").value_or("CUPTI error"), kMaxMessageBytes));
    }
  } else {
    malformed(line);
  }
}

bool TraceCollector::full() const {
  return dispatches_.size() >= limits_.maxDispatches || copies_.size() >= limits_.maxCopies;
}

bool TraceCollector::addDispatchMono(DispatchRecord d) {
  if (dispatches_.size() >= limits_.maxDispatches) {
    ++dispatchesDropped_;
    return false;
  }
  const auto start = ingest::sub(d.startNs, startMonoNs_);
  const auto end = ingest::sub(d.endNs, startMonoNs_);
  if (!start || !end) {
    outOfRange("a " + (d.source.empty() ? "" : d.source + " ") + "dispatch of \"" + cutText(d.name, 80) + "\" from " +
               std::to_string(d.startNs) + " to " + std::to_string(d.endNs) + " ns (CLOCK_MONOTONIC)");
    return false;
  }
  d.startNs = *start;
  d.endNs = *end;
  return keepDispatch(std::move(d));
}

bool TraceCollector::addCopyMono(CopyRecord c) {
  if (copies_.size() >= limits_.maxCopies) {
    ++copiesDropped_;
    return false;
  }
  const auto start = ingest::sub(c.startNs, startMonoNs_);
  const auto end = ingest::sub(c.endNs, startMonoNs_);
  if (!start || !end) {
    outOfRange("a " + (c.source.empty() ? "" : c.source + " ") + "copy from " + std::to_string(c.startNs) + " to " +
               std::to_string(c.endNs) + " ns (CLOCK_MONOTONIC)");
    return false;
  }
  c.startNs = *start;
  c.endNs = *end;
  return keepCopy(std::move(c));
}

// CUPTI's clock onto CLOCK_MONOTONIC: linear through the first and last pairs of that
// process (start and exit), an offset when there is one. Every step is checked: a slope that
// is not a positive finite number, or a time whose mapping does not fit int64, drops the
// record (trace-time-out-of-range). Returns the records no clock line maps.
std::uint64_t TraceCollector::mapCupti() {
  std::uint64_t unmapped = 0;
  for (PendingCupti& p : cupti_) {
    const auto it = clocks_.find(p.pid);
    if (it == clocks_.end()) {
      ++unmapped;
      continue;
    }
    const ClockPair& a = it->second.first;
    const ClockPair& b = it->second.last;
    double slope = 1.0;
    if (b.cuptiNs != a.cuptiNs) {
      // The exact integer differences where they fit (CUPTI's times exceed 2^53, their
      // differences over a run do not); doubles of each time only for absurd pairs.
      const auto dm = ingest::sub(b.monoNs, a.monoNs);
      const auto dc = ingest::sub(b.cuptiNs, a.cuptiNs);
      const double m = dm ? static_cast<double>(*dm) : static_cast<double>(b.monoNs) - static_cast<double>(a.monoNs);
      const double c = dc ? static_cast<double>(*dc) : static_cast<double>(b.cuptiNs) - static_cast<double>(a.cuptiNs);
      slope = m / c;
    }
    const auto toMono = [&](std::int64_t t) -> std::optional<std::int64_t> {
      if (!std::isfinite(slope) || slope <= 0) return std::nullopt;
      const auto dt = ingest::sub(t, a.cuptiNs);
      if (!dt) return std::nullopt;
      const auto scaled = ingest::roundToInt64(static_cast<double>(*dt) * slope);
      if (!scaled) return std::nullopt;
      return ingest::add(a.monoNs, *scaled);
    };
    std::int64_t& startNs = p.isKernel ? p.dispatch.startNs : p.copy.startNs;
    std::int64_t& endNs = p.isKernel ? p.dispatch.endNs : p.copy.endNs;
    const auto monoStart = toMono(startNs);
    const auto monoEnd = toMono(endNs);
    const auto start = monoStart ? ingest::sub(*monoStart, startMonoNs_) : std::nullopt;
    const auto end = monoEnd ? ingest::sub(*monoEnd, startMonoNs_) : std::nullopt;
    if (!start || !end) {
      outOfRange(std::string("a CUPTI ") + (p.isKernel ? "kernel" : "memory copy") + " record of process " +
                 std::to_string(p.pid) + " from " + std::to_string(startNs) + " to " + std::to_string(endNs) +
                 " ns on CUPTI's clock (its clock lines map CUPTI " + std::to_string(a.cuptiNs) + " to " +
                 std::to_string(a.monoNs) + " and " + std::to_string(b.cuptiNs) + " to " + std::to_string(b.monoNs) +
                 ")");
      continue;
    }
    bool own = false;
    if (const auto w = ownWindows_.find(p.pid); w != ownWindows_.end()) {
      for (const auto& [ws, we] : w->second) own = own || (*monoStart >= ws && *monoEnd <= we);
    }
    if (own) {
      ++ownRecordsLeftOut_;
      continue;
    }
    startNs = *start;
    endNs = *end;
    if (p.isKernel) {
      keepDispatch(std::move(p.dispatch));
    } else {
      keepCopy(std::move(p.copy));
    }
  }
  cupti_.clear();
  cupti_.shrink_to_fit();
  return unmapped;
}

// Device-trace spans: into the dispatch on their GPU that contains their midpoint (the
// latest started one, for concurrent kernels), else grouped by themselves.
void TraceCollector::foldSpans(std::vector<DeviceSpanRecord>* spans) {
  std::sort(dispatches_.begin(), dispatches_.end(),
            [](const DispatchRecord& x, const DispatchRecord& y) { return x.startNs < y.startNs; });
  std::map<int, RunningOnGpu> running;
  for (std::size_t i = 0; i < dispatches_.size(); ++i) {
    running[dispatches_[i].gpu].add(i, dispatches_[i].startNs, dispatches_[i].endNs);
  }
  for (auto& [gpu, r] : running) r.build();

  const std::int64_t slack = alignUncertaintyNs_;  // 0 .. kMaxAlignUncertaintyNs
  std::map<std::size_t, std::set<std::uint64_t>> cusByDispatch;
  using TransferKey =
      std::tuple<std::size_t, std::string, int, std::string, bool>;  // dispatch, label, peer, mover, pull
  std::map<TransferKey, CopyRecord> transfers;
  std::vector<DeviceSpan> loose;
  for (DeviceSpan& s : spans_) {
    if (spans != nullptr) {
      spans->push_back(
          DeviceSpanRecord{s.gpu, s.cu, s.xcc, s.label, s.startNs, s.endNs, s.bytes, s.peer, s.mover, s.pull});
    }
    // No overflow: endNs - startNs >= 0 was checked to fit when the span was kept, and the
    // midpoint lies between the two.
    const std::int64_t mid = s.startNs + (s.endNs - s.startNs) / 2;
    std::optional<std::size_t> match;
    if (const auto r = running.find(s.gpu); r != running.end()) {
      match = r->second.find(addClamped(mid, slack), subClamped(mid, slack));
    }
    if (!match) {
      loose.push_back(std::move(s));
      continue;
    }
    cusByDispatch[*match].insert(cuKey(s.xcc, s.cu));
    if (s.peer < 0 && s.bytes == 0) continue;
    CopyRecord& c = transfers[{*match, s.label, s.peer, s.mover, s.pull}];
    if (c.source.empty()) {
      c.mover = s.mover;
      c.initiator = "device";
      c.srcGpu = s.pull ? s.peer : s.gpu;
      c.dstGpu = s.pull ? s.gpu : s.peer;
      c.startNs = s.startNs;
      c.endNs = s.endNs;
      c.source = "device-trace";
      c.label = s.label;
    }
    c.bytes = addClamped(c.bytes, s.bytes);
    c.startNs = std::min(c.startNs, s.startNs);
    c.endNs = std::max(c.endNs, s.endNs);
  }
  spans_.clear();
  spans_.shrink_to_fit();
  for (const auto& [index, cus] : cusByDispatch) {
    dispatches_[index].cusSeen = static_cast<int>(std::min<std::size_t>(cus.size(), std::numeric_limits<int>::max()));
  }
  for (auto& [key, c] : transfers) keepCopy(std::move(c));

  // Spans no dispatch contains (no profiler, or the kernel was not seen): one record per
  // burst of the same label, GPU and peer.
  std::sort(loose.begin(), loose.end(), [](const DeviceSpan& x, const DeviceSpan& y) {
    return std::tie(x.gpu, x.label, x.peer, x.mover, x.pull, x.startNs) <
           std::tie(y.gpu, y.label, y.peer, y.mover, y.pull, y.startNs);
  });
  for (std::size_t i = 0; i < loose.size();) {
    const DeviceSpan& first = loose[i];
    std::int64_t end = first.endNs;
    std::uint64_t bytes = first.bytes;
    std::set<std::uint64_t> cus{cuKey(first.xcc, first.cu)};
    // The first span always belongs to its own group: j starts past it, so i always advances
    // (a group that could break before its own first span would loop here for ever).
    std::size_t j = i + 1;
    for (; j < loose.size(); ++j) {
      const DeviceSpan& s = loose[j];
      if (s.gpu != first.gpu || s.label != first.label || s.peer != first.peer || s.mover != first.mover ||
          s.pull != first.pull || s.startNs > addClamped(end, kGroupGapNs)) {
        break;
      }
      end = std::max(end, s.endNs);
      bytes = addClamped(bytes, s.bytes);
      cus.insert(cuKey(s.xcc, s.cu));
    }
    if (first.peer < 0 && bytes == 0) {
      DispatchRecord d;
      d.name = first.label;
      d.gpu = first.gpu;
      d.startNs = first.startNs;
      d.endNs = end;
      d.source = "device-trace";
      d.cusSeen = static_cast<int>(std::min<std::size_t>(cus.size(), std::numeric_limits<int>::max()));
      keepDispatch(std::move(d));
    } else {
      CopyRecord c;
      c.mover = first.mover;
      c.initiator = "device";
      c.srcGpu = first.pull ? first.peer : first.gpu;
      c.dstGpu = first.pull ? first.gpu : first.peer;
      c.bytes = bytes;
      c.startNs = first.startNs;
      c.endNs = end;
      c.source = "device-trace";
      c.label = first.label;
      keepCopy(std::move(c));
    }
    i = j;
  }
}

void TraceCollector::finish(std::vector<DispatchRecord>& dispatches, std::vector<CopyRecord>& copies,
                            std::vector<CollectorWarning>& warnings, std::vector<DeviceSpanRecord>* spans) {
  const std::uint64_t unmapped = mapCupti();
  if (unmapped > 0) {
    warnings.push_back({"trace-clock-missing", std::to_string(unmapped) +
                                                   " CUPTI records came from a process that sent no clock line; "
                                                   "they were left out"});
  }
  foldSpans(spans);

  std::stable_sort(dispatches_.begin(), dispatches_.end(),
                   [](const DispatchRecord& x, const DispatchRecord& y) { return x.startNs < y.startNs; });
  std::stable_sort(copies_.begin(), copies_.end(),
                   [](const CopyRecord& x, const CopyRecord& y) { return x.startNs < y.startNs; });
  dispatches = std::move(dispatches_);
  copies = std::move(copies_);
  dispatches_.clear();
  copies_.clear();

  if (malformed_ > 0) {
    warnings.push_back(
        {"trace-line-malformed", std::to_string(malformed_) +
                                     " trace lines could not be read and were skipped; the first: " + firstMalformed_});
  }
  if (overlong_ > 0) {
    warnings.push_back({"trace-line-overlong", std::to_string(overlong_) + " trace lines were longer than " +
                                                   std::to_string(kMaxTraceLineBytes / 1024) +
                                                   " KiB and were skipped unread"});
  }
  if (reversed_ > 0) {
    warnings.push_back({"trace-span-reversed",
                        std::to_string(reversed_) +
                            " device-trace spans end before they start and were left out (a corrupt record or a "
                            "clock that stepped back); the first: " +
                            firstReversed_});
  }
  if (outOfRange_ > 0) {
    warnings.push_back({"trace-time-out-of-range",
                        std::to_string(outOfRange_) +
                            " records have times that do not fit the run's time line (64-bit ns from the program's "
                            "start) and were left out; the first: " +
                            firstOutOfRange_});
  }
  if (dispatchesDropped_ > 0 || copiesDropped_ > 0 || spansDropped_ > 0) {
    warnings.push_back(
        {"records-capped", "the run keeps at most " + std::to_string(limits_.maxDispatches) + " dispatches, " +
                               std::to_string(limits_.maxCopies) + " copies and " + std::to_string(limits_.maxSpans) +
                               " device-trace spans, with " + ingest::bytesInWords(limits_.maxTextBytes) +
                               " of kernel names and labels from trace lines: " + std::to_string(dispatchesDropped_) +
                               " dispatches, " + std::to_string(copiesDropped_) + " copies and " +
                               std::to_string(spansDropped_) + " spans more were left out"});
  }
  if (cuptiDropped_ > 0) {
    warnings.push_back({"cupti-dropped", "CUPTI dropped " + std::to_string(cuptiDropped_) +
                                             " activity records (its buffers were full)"});
  }
  if (deviceDropped_ > 0) {
    warnings.push_back({"device-trace-dropped",
                        std::to_string(deviceDropped_) +
                            " device-trace records did not fit the per-GPU buffer; raise SDMA_LENS_TRACE_RECORDS"});
  }
  for (const std::string& e : cuptiErrors_) warnings.push_back({"cupti-error", e});
}

TraceFileRead readTraceFile(const std::string& path, std::uint64_t maxBytes, TraceCollector& collector,
                            ingest::Control& control, std::vector<CollectorWarning>& warnings) {
  TraceFileRead result;
  // No file at all is the usual case (every line came through the pipe). lstat only decides
  // whether to say so; the open below is the one that decides what is read.
  struct stat st{};
  if (lstat(path.c_str(), &st) != 0 && errno == ENOENT) return result;
  const ingest::SafeFile file = ingest::SafeFile::open(path, maxBytes);
  if (!file.ok()) {
    // SafeFile's reasons read "is a FIFO, not a regular file", "is a symbolic link ...", or
    // the system's words for an error.
    const std::string& why = file.problem();
    warnings.push_back({"trace-file-unreadable", "the trace file " + path + " was not read (" +
                                                     (why.rfind("is ", 0) == 0 ? "it " : "") + why +
                                                     "): trace lines the program's processes wrote there are missing"});
    return result;
  }
  const ingest::LineReadResult read =
      ingest::readLines(file, maxBytes, kMaxTraceLineBytes, control, [&](std::string_view line, bool overlong) {
        // readLines asks once per chunk, and a chunk may hold thousands of short lines: asked
        // per line too, a cancel skips the rest of the chunk and ends the read.
        if (!control.poll()) return;
        if (overlong) {
          collector.addOverlongLine();
        } else {
          collector.addLine(line);
        }
      });
  result.lines = read.lines;
  result.cancelled = read.cancelled || control.cancelled();
  if (!read.problem.empty()) {
    warnings.push_back({"trace-file-unreadable", "reading the trace file " + path + " failed part way (" +
                                                     read.problem + "): its later lines were not read"});
  }
  if (read.byteCapReached) {
    warnings.push_back({"trace-file-unreadable", "the trace file " + path + " grew past " +
                                                     ingest::bytesInWords(maxBytes) +
                                                     " while it was read: the rest was not read"});
  }
  return result;
}

}  // namespace sdma::runmode
