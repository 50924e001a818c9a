#include "run/trace_collector.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "run/mini_json.hpp"

namespace sdma::runmode {

namespace {

// Device-trace spans closer than this belong to one group when no dispatch contains them:
// wider than the clock alignment's uncertainty, far shorter than a kernel launch gap.
constexpr std::int64_t kGroupGapNs = 20000;
constexpr long kLookBackDispatches = 100000;

std::array<int, 3> triple(const std::optional<std::vector<double>>& v) {
  std::array<int, 3> out{0, 0, 0};
  if (!v) return out;
  for (std::size_t i = 0; i < 3 && i < v->size(); ++i) out[i] = static_cast<int>((*v)[i]);
  return out;
}

}  // namespace

void TraceCollector::addLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return;
  ++lines_;
  const std::optional<JsonObject> o = parseFlatObject(line);
  const std::optional<std::string> kind = o ? stringField(*o, "k") : std::nullopt;
  const long pid = o ? static_cast<long>(intField(*o, "pid").value_or(0)) : 0;
  const auto bad = [&] {
    if (malformed_++ == 0) firstMalformed_ = std::string(line.substr(0, 120));
  };
  if (!kind) return bad();

  if (*kind == "clock") {
    const auto c = intField(*o, "cuptiNs");
    const auto m = intField(*o, "monoNs");
    if (!c || !m) return bad();
    clocks_[pid].push_back({*c, *m});
  } else if (*kind == "kernel") {
    PendingCupti p;
    p.pid = pid;
    p.isKernel = true;
    DispatchRecord& d = p.dispatch;
    const std::string name = stringField(*o, "name").value_or("");
    d.name = demangle(name);
    if (d.name != name) d.mangled = name;
    d.gpu = static_cast<int>(intField(*o, "gpu").value_or(0));
    const auto s = intField(*o, "startNs");
    const auto e = intField(*o, "endNs");
    if (!s || !e || name.empty()) return bad();
    d.startNs = *s;
    d.endNs = *e;
    d.grid = triple(arrayField(*o, "grid"));
    d.block = triple(arrayField(*o, "block"));
    d.source = "cupti";
    d.correlationId = intField(*o, "corr").value_or(-1);
    cupti_.push_back(std::move(p));
  } else if (*kind == "memcpy") {
    PendingCupti p;
    p.pid = pid;
    CopyRecord& c = p.copy;
    const auto s = intField(*o, "startNs");
    const auto e = intField(*o, "endNs");
    const auto bytes = intField(*o, "bytes");
    if (!s || !e || !bytes) return bad();
    // cudaMemcpy*: the host asked, a copy engine moved the bytes (the driver may use SM
    // copy kernels for some kinds; CUPTI still reports them as memcpy).
    c.mover = "engine";
    c.initiator = "host";
    c.srcGpu = static_cast<int>(intField(*o, "src").value_or(-1));
    c.dstGpu = static_cast<int>(intField(*o, "dst").value_or(-1));
    c.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *bytes));
    c.startNs = *s;
    c.endNs = *e;
    c.source = "cupti";
    c.label = stringField(*o, "kind").value_or("");
    cupti_.push_back(std::move(p));
  } else if (*kind == "dev") {
    DeviceSpan d;
    d.gpu = static_cast<int>(intField(*o, "gpu").value_or(0));
    d.label = stringField(*o, "label").value_or("");
    d.cu = static_cast<unsigned>(intField(*o, "cu").value_or(0));
    d.xcc = static_cast<unsigned>(intField(*o, "xcc").value_or(0));
    const auto s = intField(*o, "monoStartNs");
    const auto e = intField(*o, "monoEndNs");
    if (!s || !e) return bad();
    d.startMonoNs = *s;
    d.endMonoNs = *e;
    d.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, intField(*o, "bytes").value_or(0)));
    d.peer = static_cast<int>(intField(*o, "peer").value_or(-1));
    d.mover = stringField(*o, "mover").value_or("cu") == "engine" ? "engine" : "cu";
    d.pull = boolField(*o, "pull").value_or(false);
    spans_.push_back(std::move(d));
  } else if (*kind == "dev-window") {
    const auto s = intField(*o, "monoStartNs");
    const auto e = intField(*o, "monoEndNs");
    if (!s || !e) return bad();
    ownWindows_[pid].emplace_back(*s, *e);
  } else if (*kind == "dev-end") {
    deviceDropped_ += static_cast<std::uint64_t>(std::max<std::int64_t>(0, intField(*o, "dropped").value_or(0)));
    alignUncertaintyNs_ = std::max(alignUncertaintyNs_, intField(*o, "alignUncertaintyNs").value_or(0));
  } else if (*kind == "cupti-end") {
    cuptiDropped_ += static_cast<std::uint64_t>(std::max<std::int64_t>(0, intField(*o, "dropped").value_or(0)));
  } else if (*kind == "cupti-error") {
    if (cuptiErrors_.size() < 4) cuptiErrors_.push_back(stringField(*o, "message").value_or("CUPTI error"));
  } else {
    bad();
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
  d.startNs -= startMonoNs_;
  d.endNs -= startMonoNs_;
  dispatches_.push_back(std::move(d));
  return true;
}

bool TraceCollector::addCopyMono(CopyRecord c) {
  if (copies_.size() >= limits_.maxCopies) {
    ++copiesDropped_;
    return false;
  }
  c.startNs -= startMonoNs_;
  c.endNs -= startMonoNs_;
  copies_.push_back(std::move(c));
  return true;
}

void TraceCollector::finish(std::vector<DispatchRecord>& dispatches, std::vector<CopyRecord>& copies,
                            std::vector<CollectorWarning>& warnings, std::vector<DeviceSpanRecord>* spans) {
  // CUPTI's clock onto CLOCK_MONOTONIC: linear through the first and last pairs of that
  // process (start and exit), an offset when there is one.
  std::uint64_t unmapped = 0;
  for (PendingCupti& p : cupti_) {
    const auto it = clocks_.find(p.pid);
    if (it == clocks_.end() || it->second.empty()) {
      ++unmapped;
      continue;
    }
    const ClockPair& a = it->second.front();
    const ClockPair& b = it->second.back();
    const double slope = b.cuptiNs != a.cuptiNs
                             ? static_cast<double>(b.monoNs - a.monoNs) / static_cast<double>(b.cuptiNs - a.cuptiNs)
                             : 1.0;
    const auto map = [&](std::int64_t c) {
      return a.monoNs + std::llround(static_cast<double>(c - a.cuptiNs) * slope) - startMonoNs_;
    };
    const std::int64_t startNs = map(p.isKernel ? p.dispatch.startNs : p.copy.startNs);
    const std::int64_t endNs = map(p.isKernel ? p.dispatch.endNs : p.copy.endNs);
    bool own = false;
    if (const auto w = ownWindows_.find(p.pid); w != ownWindows_.end()) {
      for (const auto& [ws, we] : w->second) {
        own = own || (startNs >= ws - startMonoNs_ && endNs <= we - startMonoNs_);
      }
    }
    if (own) {
      ++ownRecordsLeftOut_;
      continue;
    }
    if (p.isKernel) {
      p.dispatch.startNs = map(p.dispatch.startNs);
      p.dispatch.endNs = map(p.dispatch.endNs);
      dispatches_.push_back(std::move(p.dispatch));
    } else {
      p.copy.startNs = map(p.copy.startNs);
      p.copy.endNs = map(p.copy.endNs);
      copies_.push_back(std::move(p.copy));
    }
  }
  cupti_.clear();
  if (unmapped > 0) {
    warnings.push_back({"trace-clock-missing", std::to_string(unmapped) +
                                                   " CUPTI records came from a process that sent no clock line; "
                                                   "they were left out"});
  }

  std::sort(dispatches_.begin(), dispatches_.end(),
            [](const DispatchRecord& x, const DispatchRecord& y) { return x.startNs < y.startNs; });

  // Device-trace spans: into the dispatch on their GPU that contains their midpoint (the
  // latest started one, for concurrent kernels), else grouped by themselves.
  const std::int64_t slack = alignUncertaintyNs_;
  std::map<int, std::set<unsigned>> cusByDispatch;
  using TransferKey = std::tuple<long, std::string, int, std::string, bool>;  // dispatch, label, peer, mover, pull
  std::map<TransferKey, CopyRecord> transfers;
  std::vector<DeviceSpan> loose;
  for (DeviceSpan& s : spans_) {
    s.startMonoNs -= startMonoNs_;
    s.endMonoNs -= startMonoNs_;
    if (spans != nullptr) {
      spans->push_back(DeviceSpanRecord{s.gpu, s.cu, s.xcc, s.label, s.startMonoNs, s.endMonoNs, s.bytes, s.peer,
                                        s.mover, s.pull});
    }
    const std::int64_t mid = s.startMonoNs + (s.endMonoNs - s.startMonoNs) / 2;
    long match = -1;
    // Dispatches are ordered by start: look back from the last one started by `mid`, far
    // enough for any kernel still running alongside many short ones.
    const auto after = std::upper_bound(dispatches_.begin(), dispatches_.end(), mid + slack,
                                        [](std::int64_t t, const DispatchRecord& d) { return t < d.startNs; });
    const long last = static_cast<long>(after - dispatches_.begin()) - 1;
    for (long i = last; i >= 0 && last - i < kLookBackDispatches; --i) {
      const DispatchRecord& d = dispatches_[static_cast<std::size_t>(i)];
      if (d.gpu == s.gpu && d.endNs + slack >= mid) {
        match = i;
        break;
      }
    }
    if (match < 0) {
      loose.push_back(s);
      continue;
    }
    cusByDispatch[static_cast<int>(match)].insert(s.xcc * 1024 + s.cu);
    if (s.peer < 0 && s.bytes == 0) continue;
    CopyRecord& c = transfers[{match, s.label, s.peer, s.mover, s.pull}];
    if (c.source.empty()) {
      c.mover = s.mover;
      c.initiator = "device";
      c.srcGpu = s.pull ? s.peer : s.gpu;
      c.dstGpu = s.pull ? s.gpu : s.peer;
      c.startNs = s.startMonoNs;
      c.endNs = s.endMonoNs;
      c.source = "device-trace";
      c.label = s.label;
    }
    c.bytes += s.bytes;
    c.startNs = std::min(c.startNs, s.startMonoNs);
    c.endNs = std::max(c.endNs, s.endMonoNs);
  }
  for (const auto& [index, cus] : cusByDispatch) dispatches_[static_cast<std::size_t>(index)].cusSeen = static_cast<int>(cus.size());
  for (auto& [key, c] : transfers) copies_.push_back(std::move(c));

  // Spans no dispatch contains (no profiler, or the kernel was not seen): one record per
  // burst of the same label, GPU and peer.
  std::sort(loose.begin(), loose.end(), [](const DeviceSpan& x, const DeviceSpan& y) {
    return std::tie(x.gpu, x.label, x.peer, x.mover, x.pull, x.startMonoNs) <
           std::tie(y.gpu, y.label, y.peer, y.mover, y.pull, y.startMonoNs);
  });
  for (std::size_t i = 0; i < loose.size();) {
    const DeviceSpan& first = loose[i];
    std::int64_t start = first.startMonoNs, end = first.endMonoNs;
    std::uint64_t bytes = 0;
    std::set<unsigned> cus;
    std::size_t j = i;
    for (; j < loose.size(); ++j) {
      const DeviceSpan& s = loose[j];
      if (s.gpu != first.gpu || s.label != first.label || s.peer != first.peer || s.mover != first.mover ||
          s.pull != first.pull || s.startMonoNs > end + kGroupGapNs) {
        break;
      }
      end = std::max(end, s.endMonoNs);
      bytes += s.bytes;
      cus.insert(s.xcc * 1024 + s.cu);
    }
    if (first.peer < 0 && bytes == 0) {
      DispatchRecord d;
      d.name = first.label;
      d.gpu = first.gpu;
      d.startNs = start;
      d.endNs = end;
      d.source = "device-trace";
      d.cusSeen = static_cast<int>(cus.size());
      dispatches_.push_back(std::move(d));
    } else {
      CopyRecord c;
      c.mover = first.mover;
      c.initiator = "device";
      c.srcGpu = first.pull ? first.peer : first.gpu;
      c.dstGpu = first.pull ? first.gpu : first.peer;
      c.bytes = bytes;
      c.startNs = start;
      c.endNs = end;
      c.source = "device-trace";
      c.label = first.label;
      copies_.push_back(std::move(c));
    }
    i = j;
  }
  spans_.clear();

  std::stable_sort(dispatches_.begin(), dispatches_.end(),
                   [](const DispatchRecord& x, const DispatchRecord& y) { return x.startNs < y.startNs; });
  std::stable_sort(copies_.begin(), copies_.end(),
                   [](const CopyRecord& x, const CopyRecord& y) { return x.startNs < y.startNs; });
  dispatches = std::move(dispatches_);
  copies = std::move(copies_);

  if (malformed_ > 0) {
    warnings.push_back({"trace-line-malformed", std::to_string(malformed_) +
                                                    " trace lines could not be read and were skipped; the first: " +
                                                    firstMalformed_});
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

}  // namespace sdma::runmode
