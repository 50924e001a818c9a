// The protocol's writer (protocol/reporter.hpp): each record's fields, in the order and number
// format docs/PROTOCOL.md gives.
#include "protocol/reporter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <unistd.h>

#include "sdma_limits.hpp"
#include "protocol/timeline_file.hpp"
#include "util/version.hpp"

namespace sdma {

namespace {

// Whole nanoseconds: finer than any GPU timer, and integers print fast and compactly.
std::int64_t roundNs(double ns) { return static_cast<std::int64_t>(std::llround(ns)); }

double roundToTenth(double value) { return std::round(value * 10.0) / 10.0; }

// gbps carries 6 significant digits: far beyond what any measurement resolves.
constexpr int kGbpsDigits = 6;

// hello.runtimeKnobs[].previous: a value the user set, cut to what the protocol's text holds
// (4096 characters; a UTF-8 byte is at most one of them).
constexpr std::size_t kKnobValueBytesMax = 4096;

// Statistics of the rounded times, so they agree exactly with any array printed beside them.
struct TimeStats {
  std::vector<std::int64_t> timesNs;
  double meanNs = 0, medianNs = 0, stdevNs = 0;
  std::int64_t minNs = 0, maxNs = 0;
};

TimeStats timeStats(const std::vector<double>& raw) {
  TimeStats s;
  s.timesNs.resize(raw.size());
  std::transform(raw.begin(), raw.end(), s.timesNs.begin(), roundNs);
  const std::size_t n = s.timesNs.size();
  if (n == 0) return s;
  s.meanNs = static_cast<double>(std::accumulate(s.timesNs.begin(), s.timesNs.end(), std::int64_t{0})) / n;
  s.minNs = *std::min_element(s.timesNs.begin(), s.timesNs.end());
  s.maxNs = *std::max_element(s.timesNs.begin(), s.timesNs.end());
  double squares = 0;
  for (std::int64_t t : s.timesNs) squares += (t - s.meanNs) * (t - s.meanNs);
  s.stdevNs = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0;  // sample stdev
  std::vector<std::int64_t> sorted = s.timesNs;
  std::sort(sorted.begin(), sorted.end());
  s.medianNs = n % 2 ? static_cast<double>(sorted[n / 2])
                     : (static_cast<double>(sorted[n / 2 - 1]) + static_cast<double>(sorted[n / 2])) / 2;
  return s;
}

// moverEvidence (docs/PROTOCOL.md): what moved the bytes as the platform saw it, and the
// verdict against the record's mover.
void writeMoverEvidence(JsonWriter& j, const CopyRequest& request, const MoverEvidence& e) {
  const EvidenceVerdict verdict = judgeEvidence(labelledMover(request.path), e);
  j.key("moverEvidence").beginObject();
  j.key("source").value(evidenceSourceName(e.source)).key("observed").value(observedMoverName(e.observed));
  j.key("verdict").value(evidenceVerdictName(verdict));
  std::string detail = e.detail.substr(0, kMoverDetailBytes);
  j.key("detail").value(detail);
  if (e.copyKind) j.key("copyKind").value(e.copyKind->substr(0, 16));
  if (e.channelType) j.key("channelType").value(e.channelType->substr(0, 16));
  if (e.channelId) j.key("channelId").value(*e.channelId);
  if (e.kernel) j.key("kernel").value(e.kernel->substr(0, kMoverDetailBytes));
  if (e.records) j.key("records").value(*e.records);
  if (e.sdmaUs) j.key("sdmaUs").value(*e.sdmaUs);
  if (e.engineUs) j.key("engineUs").value(roundToTenth(*e.engineUs));
  j.endObject();
}

void writeCellKey(JsonWriter& j, const CopyRequest& request) {
  j.key("mover").value(moverName(request.path)).key("initiator").value(initiatorName(request.path));
  j.key("src").value(request.srcGpu).key("dst").value(request.dstGpu);
}

std::string_view doneStatusName(DoneStatus status) {
  switch (status) {
    case DoneStatus::Ok:
      return "ok";
    case DoneStatus::Error:
      return "error";
    case DoneStatus::Cancelled:
      return "cancelled";
  }
  return "error";
}

}  // namespace

Reporter::Reporter(std::FILE* out) : out_(out), start_(std::chrono::steady_clock::now()), lastWrite_(start_) {
  installHeartbeat([](void* reporter) { static_cast<Reporter*>(reporter)->heartbeat(); }, this);
}

Reporter::~Reporter() { removeHeartbeat(this); }

void Reporter::heartbeat() {
  const auto now = std::chrono::steady_clock::now();
  if (now - lastWrite_ < std::chrono::milliseconds(limits::heartbeatMs)) return;
  JsonWriter& j = begin("heartbeat");
  j.key("elapsedMs")
      .value(static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(now - start_).count()));
  emit();
}

JsonWriter& Reporter::begin(std::string_view type) {
  json_.clear();
  json_.beginObject().key("type").value(type);
  return json_;
}

void Reporter::emit() {
  json_.endObject();
  raw(json_.str());
  raw("\n");
}

void Reporter::raw(std::string_view text) {
  lastWrite_ = std::chrono::steady_clock::now();
  const bool ok = std::fwrite(text.data(), 1, text.size(), out_) == text.size() && std::fflush(out_) == 0;
  if (!ok) {
    // Nobody reads our records any more (closed pipe): nothing useful is left to do.
    std::fputs("sdma-probe: cannot write to stdout, stopping\n", stderr);
    std::_Exit(1);
  }
}

void Reporter::hello(std::optional<std::string_view> command, std::string_view backend, bool simulated,
                     const std::vector<std::string>& backendsBuilt, const std::vector<RuntimeKnob>& runtimeKnobs) {
  JsonWriter& j = begin("hello");
  j.key("protocol").value(kProtocolVersion);
  j.key("helper").beginObject().key("name").value(kHelperName).key("version").value(kHelperVersion).endObject();
  j.key("command");
  if (command) {
    j.value(*command);
  } else {
    j.null();
  }
  j.key("backend").value(backend);
  j.key("simulated").value(simulated);
  j.key("backendsBuilt").beginArray();
  for (const std::string& name : backendsBuilt) j.value(name);
  j.endArray();
  j.key("pid").value(static_cast<std::int64_t>(getpid()));
  if (!runtimeKnobs.empty()) {
    j.key("runtimeKnobs").beginArray();
    for (const RuntimeKnob& knob : runtimeKnobs) {
      j.beginObject().key("name").value(knob.name).key("value").value(knob.value).key("previous");
      if (knob.previous) {
        j.value(std::string_view(*knob.previous).substr(0, kKnobValueBytesMax));
      } else {
        j.null();
      }
      j.key("setBy").value("helper").endObject();
    }
    j.endArray();
  }
  emit();
}

void Reporter::topology(const Topology& topology) {
  JsonWriter& j = begin("topology");
  j.key("node").beginObject();
  j.key("name").value(topology.node.name).key("vendor").value(topology.node.vendor);
  j.key("model").value(topology.node.model).key("simulated").value(topology.node.simulated);
  if (!topology.node.hostname.empty()) j.key("hostname").value(topology.node.hostname);
  j.endObject();
  if (topology.host) j.key("host").beginObject().key("numaNodes").value(topology.host->numaNodes).endObject();

  j.key("gpus").beginArray();
  for (const GpuInfo& gpu : topology.gpus) {
    j.beginObject();
    j.key("index").value(gpu.index).key("name").value(gpu.name).key("arch").value(gpu.arch);
    j.key("cus").value(gpu.cus).key("memoryBytes").value(gpu.memoryBytes);
    j.key("engines").beginArray();
    for (const EngineInfo& engine : gpu.engines) {
      j.beginObject().key("id").value(engine.id).key("kind").value(engine.kind);
      if (engine.maxGbps) j.key("maxGbps").value(*engine.maxGbps);
      j.endObject();
    }
    j.endArray();
    if (!gpu.pciBusId.empty()) j.key("pciBusId").value(gpu.pciBusId);
    if (gpu.l2Bytes > 0) j.key("l2Bytes").value(gpu.l2Bytes);
    if (gpu.xccs > 0) j.key("xccs").value(gpu.xccs);
    if (gpu.numaNode) j.key("numaNode").value(*gpu.numaNode);
    j.endObject();
  }
  j.endArray();

  j.key("links").beginArray();
  for (const LinkInfo& link : topology.links) {
    j.beginObject().key("src").value(link.src).key("dst").value(link.dst).key("kind").value(link.kind);
    j.key("count").value(link.count).key("gbpsPerDirection").value(link.gbpsPerDirection).endObject();
  }
  j.endArray();

  j.key("libraries").beginArray();
  for (const LibraryInfo& library : topology.libraries) {
    j.beginObject().key("name").value(library.name).key("version").value(library.version).endObject();
  }
  j.endArray();
  emit();
}

void Reporter::progress(std::int64_t done, std::int64_t total, std::string_view message) {
  JsonWriter& j = begin("progress");
  j.key("done").value(done).key("total").value(total);
  if (!message.empty()) j.key("message").value(message);
  emit();
}

namespace {

// The seed's dimensions (docs/PROTOCOL.md, "The seed's dimensions"), each only when it is not
// the default, so a run saved before reads as the defaults: wavesPerCu and waveSize when the
// request named waves; split and splitOver above one; batch above 0; shmemSdma when not forced
// (engine/device units, whichever mover rocSHMEM used).
void writeSeedDimensions(JsonWriter& j, const CopyRequest& request, const CopyMeasurement& measurement) {
  if (request.wavesPerCu > 0) {
    j.key("wavesPerCu").value(measurement.wavesPerCu > 0 ? measurement.wavesPerCu : request.wavesPerCu);
    if (measurement.waveSize > 0) j.key("waveSize").value(measurement.waveSize);
  }
  if (request.split > 1) {
    j.key("split").value(request.split);
    if (!measurement.splitOver.empty()) j.key("splitOver").value(measurement.splitOver);
  }
  if (request.batch > 0) j.key("batch").value(request.batch);
  if (request.shmemSdma != ShmemSdma::Forced) {  // engine/device units only; labelled cu/device below the threshold
    j.key("shmemSdma").value(shmemSdmaName(request.shmemSdma));
  }
}

}  // namespace

void Reporter::sample(const CopyRequest& request, const CopyMeasurement& measurement) {
  const TimeStats stats = timeStats(measurement.timesNs);
  const std::vector<std::int64_t>& timesNs = stats.timesNs;
  const std::size_t n = timesNs.size();
  const double meanNs = stats.meanNs;
  const std::int64_t minNs = stats.minNs;
  const std::int64_t maxNs = stats.maxNs;
  const double stdevNs = stats.stdevNs;
  const double sizeBytes = static_cast<double>(request.sizeBytes);

  JsonWriter& j = begin("sample");
  j.key("mover").value(moverName(request.path)).key("initiator").value(initiatorName(request.path));
  j.key("src").value(request.srcGpu).key("dst").value(request.dstGpu);
  j.key("sizeBytes").value(request.sizeBytes);
  j.key("cus").value(measurement.cus).key("engines").value(measurement.engines);
  j.key("iters").value(static_cast<std::int64_t>(n));
  j.key("timesNs").beginArray();
  for (std::int64_t t : timesNs) j.value(t);
  j.endArray();
  j.key("meanNs").value(roundToTenth(meanNs));
  j.key("minNs").value(minNs).key("maxNs").value(maxNs);
  j.key("stdevNs").value(roundToTenth(stdevNs));
  // bytes per ns is 10^9 bytes per second: the protocol's Gbps.
  j.key("gbps").valueSignificant(meanNs > 0 ? sizeBytes / meanNs : 0, kGbpsDigits);
  j.key("gbpsMax").valueSignificant(minNs > 0 ? sizeBytes / static_cast<double>(minNs) : 0, kGbpsDigits);
  j.key("validated").value(measurement.validated);
  // Optional fields (docs/PROTOCOL.md): the median resists the outliers a shared node adds.
  const double medianNs = stats.medianNs;
  j.key("medianNs").value(roundToTenth(medianNs));
  j.key("gbpsMedian").valueSignificant(medianNs > 0 ? sizeBytes / medianNs : 0, kGbpsDigits);
  if (!measurement.mode.empty()) j.key("mode").value(measurement.mode);
  if (measurement.opsPerIter > 0) j.key("opsPerIter").value(measurement.opsPerIter);
  if (!measurement.label.empty()) j.key("label").value(measurement.label);
  if (!measurement.engineIds.empty()) {
    j.key("engineIds").beginArray();
    for (int id : measurement.engineIds) j.value(id);
    j.endArray();
  }
  if (measurement.traced) j.key("traced").value(*measurement.traced);
  if (measurement.cusSeen) j.key("cusSeen").value(*measurement.cusSeen);
  if (!request.series.empty()) j.key("series").value(request.series);
  if (!request.seriesRule.empty()) j.key("runtimeRule").value(std::string_view(request.seriesRule).substr(0, 256));
  if (measurement.evidence) writeMoverEvidence(j, request, *measurement.evidence);
  writeSeedDimensions(j, request, measurement);
  emit();
  ++samples_;
}

void Reporter::matrixCell(const CopyRequest& request, const CopyMeasurement& measurement, bool concurrent) {
  const TimeStats stats = timeStats(measurement.timesNs);
  const double sizeBytes = static_cast<double>(request.sizeBytes);
  JsonWriter& j = begin("matrix-cell");
  writeCellKey(j, request);
  j.key("sizeBytes").value(request.sizeBytes);
  j.key("cus").value(measurement.cus).key("engines").value(measurement.engines);
  j.key("iters").value(static_cast<std::int64_t>(stats.timesNs.size()));
  j.key("medianNs").value(roundToTenth(stats.medianNs)).key("meanNs").value(roundToTenth(stats.meanNs));
  j.key("minNs").value(stats.minNs).key("maxNs").value(stats.maxNs);
  // The cell's figure is the median: one pair alone, so an outlier is the node's noise, not the link.
  j.key("gbps").valueSignificant(stats.medianNs > 0 ? sizeBytes / stats.medianNs : 0, kGbpsDigits);
  j.key("gbpsMean").valueSignificant(stats.meanNs > 0 ? sizeBytes / stats.meanNs : 0, kGbpsDigits);
  j.key("validated").value(measurement.validated);
  if (!measurement.mode.empty()) j.key("mode").value(measurement.mode);
  if (measurement.opsPerIter > 0) j.key("opsPerIter").value(measurement.opsPerIter);
  if (!measurement.label.empty()) j.key("label").value(measurement.label);
  if (concurrent) j.key("concurrent").value(true);
  if (measurement.evidence) writeMoverEvidence(j, request, *measurement.evidence);
  emit();
  ++samples_;
}

double Reporter::cellGbps(std::uint64_t sizeBytes, const std::vector<double>& timesNs) {
  const TimeStats stats = timeStats(timesNs);
  return stats.medianNs > 0 ? static_cast<double>(sizeBytes) / stats.medianNs : 0;
}

void Reporter::matrixTotal(const CopyRequest& path, int pairs, std::int64_t iters, std::uint64_t bytes, double seconds,
                           const std::vector<GpuTotal>& gpus) {
  JsonWriter& j = begin("matrix-total");
  j.key("mover").value(moverName(path.path)).key("initiator").value(initiatorName(path.path));
  j.key("sizeBytes").value(path.sizeBytes).key("cus").value(path.cus);
  j.key("pairs").value(pairs).key("iters").value(iters);
  j.key("bytes").value(bytes).key("seconds").valueSignificant(seconds, 9);
  // Every byte the pairs moved over the time from the first start to the last end.
  j.key("gbps").valueSignificant(seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0, kGbpsDigits);
  j.key("gpus").beginArray();
  for (const GpuTotal& gpu : gpus) {
    j.beginObject().key("gpu").value(gpu.gpu);
    j.key("sendGbps").valueSignificant(gpu.sendGbps, kGbpsDigits);
    j.key("receiveGbps").valueSignificant(gpu.receiveGbps, kGbpsDigits);
    j.endObject();
  }
  j.endArray();
  emit();
}

void Reporter::cellError(const CopyRequest& request, std::string_view code, std::string_view message,
                         std::string_view hint, std::string_view detail) {
  JsonWriter& j = begin("error");
  j.key("code").value(code).key("message").value(message);
  if (!detail.empty()) j.key("detail").value(detail);
  if (!hint.empty()) j.key("hint").value(hint);
  j.key("cell").beginObject();
  writeCellKey(j, request);
  j.endObject();
  emit();
}

namespace {

void writeClock(JsonWriter& j, const std::optional<TimelineClock>& clock) {
  if (!clock) return;
  j.key("clock").beginObject().key("source").value(clock->source);
  j.key("alignUncertaintyNs").value(roundToTenth(clock->alignUncertaintyNs)).endObject();
}

}  // namespace

void Reporter::timelineFile(const std::string& path, std::uint64_t eventCount, std::uint64_t fileBytes,
                            std::uint64_t sizeBytes, const std::optional<TimelineClock>& clock, int src, int dst) {
  JsonWriter& j = begin("timeline");
  j.key("path").value(path).key("format").value("sdmatl").key("version").value(kSdmatlVersion);
  j.key("eventCount").value(eventCount).key("fileBytes").value(fileBytes).key("sizeBytes").value(sizeBytes);
  writeClock(j, clock);
  j.key("src").value(src).key("dst").value(dst);
  emit();
}

void Reporter::timelineInline(const TimelineEvents& events, std::uint64_t sizeBytes,
                              const std::optional<TimelineClock>& clock, int src, int dst) {
  JsonWriter& j = begin("timeline");
  j.key("events").beginArray();
  for (std::size_t i = 0; i < events.size(); ++i) {
    j.beginObject();
    j.key("kind").value(eventKindName(static_cast<EventKind>(events.kind[i])));
    j.key("gpu").value(events.gpu[i]).key("lane").value(events.lane[i]);
    j.key("id").value(events.id[i]).key("ref").value(events.ref[i]);
    j.key("op").value(packetOpName(static_cast<PacketOp>(events.op[i])));
    j.key("startNs").value(events.startNs[i]).key("endNs").value(events.endNs[i]);
    j.key("queuedNs").value(events.queuedNs[i]).key("bytes").value(events.bytes[i]);
    j.key("path").value(pathName(static_cast<CopyPath>(events.path[i])));
    // Only when set: an event without it was reported by the hardware (docs/PROTOCOL.md).
    if ((events.flags[i] & kEventInferred) != 0) j.key("inferred").value(true);
    j.endObject();
  }
  j.endArray();
  j.key("sizeBytes").value(sizeBytes);
  writeClock(j, clock);
  j.key("src").value(src).key("dst").value(dst);
  emit();
}

void Reporter::pathUnsupported(CopyPath path, int src, int dst, std::string_view reason, std::int64_t points) {
  JsonWriter& j = begin("path-unsupported");
  j.key("mover").value(moverName(path)).key("initiator").value(initiatorName(path));
  j.key("src").value(src).key("dst").value(dst);
  j.key("reason").value(reason).key("points").value(points);
  emit();
}

void Reporter::warning(std::string_view code, std::string_view message) {
  begin("warning").key("code").value(code).key("message").value(message);
  emit();
}

void Reporter::error(std::string_view code, std::string_view message, std::string_view hint, std::string_view detail) {
  JsonWriter& j = begin("error");
  j.key("code").value(code).key("message").value(message);
  if (!detail.empty()) j.key("detail").value(detail);
  if (!hint.empty()) j.key("hint").value(hint);
  emit();
}

namespace {

void writeNullable(JsonWriter& j, const char* key, const std::optional<double>& value) {
  j.key(key);
  if (value) {
    j.valueSignificant(*value, 6);
  } else {
    j.null();
  }
}

}  // namespace

void Reporter::collectiveVariant(const collective::VariantReport& v, bool simulated) {
  JsonWriter& j = begin("collective-variant");
  j.key("variant").value(v.name).key("supported").value(v.supported);
  if (!v.reason.empty()) j.key("reason").value(v.reason);
  if (!v.hint.empty()) j.key("hint").value(v.hint);
  j.key("library").beginObject().key("name").value(v.library).key("version").value(v.libraryVersion);
  j.key("path").value(v.libraryPath).endObject();
  j.key("env").beginObject();
  for (const auto& [name, value] : v.env) j.key(name).value(value);
  j.endObject();
  j.key("symmetric").value(v.symmetric);
  j.key("mode").value(collective::rankModeName(v.mode));
  if (v.mode == collective::RankMode::RankPerProcess) j.key("launcher").value(collective::launcherName(v.launcher));
  if (!v.conditions.empty()) {
    j.key("conditions").beginArray();
    for (const collective::VariantCondition& c : v.conditions) {
      j.beginObject().key("name").value(c.name).key("want").value(c.want).key("found").value(c.found);
      j.key("ok").value(c.ok).endObject();
    }
    j.endArray();
  }
  j.key("simulated").value(simulated);
  emit();
}

void Reporter::collectivePoint(const collective::PointReport& p, bool simulated) {
  JsonWriter& j = begin("collective");
  j.key("op").value(collective::opName(p.op)).key("variant").value(p.variant).key("ranks").value(p.ranks);
  j.key("sizeBytes").value(p.sizeBytes).key("count").value(p.count).key("dtype").value(p.dtype);
  j.key("inPlace").value(p.inPlace).key("iters").value(p.iters);
  j.key("repeats").value(static_cast<std::int64_t>(p.samplesUs.size()));
  j.key("timeUs").valueSignificant(p.timeUs, 6);
  j.key("samplesUs").beginArray();
  for (double sample : p.samplesUs) j.valueSignificant(sample, 6);
  j.endArray();
  j.key("algbwGbps").valueSignificant(collective::algbwGbps(p.sizeBytes, p.timeUs), 6);
  j.key("busbwGbps").valueSignificant(collective::busbwGbps(p.op, p.ranks, p.sizeBytes, p.timeUs), 6);
  j.key("wrong");
  if (p.wrong >= 0) {
    j.value(p.wrong);
  } else {
    j.null();
  }
  j.key("transport");
  if (p.transport) {
    j.value(*p.transport);
  } else {
    j.null();
  }
  if (!p.evidence.empty()) j.key("transportEvidence").value(p.evidence);
  j.key("cusUsed").beginObject().key("count");
  if (p.cusUsed.count) {
    j.value(static_cast<std::int64_t>(*p.cusUsed.count));
  } else {
    j.null();
  }
  j.key("source").value(p.cusUsed.source.empty() ? "unknown" : p.cusUsed.source);
  if (!p.cusUsed.evidence.empty()) j.key("evidence").value(p.cusUsed.evidence);
  j.endObject();
  j.key("simulated").value(simulated);
  emit();
}

void Reporter::rankStep(int rank, std::int64_t points) {
  JsonWriter& j = begin("rank-step");
  j.key("rank").value(rank).key("points").value(points);
  emit();
}

void Reporter::overlap(const collective::OverlapReport& r, bool simulated) {
  JsonWriter& j = begin("overlap");
  j.key("compute").value(r.compute).key("bound").value(r.bound).key("computeLabel").value(r.computeLabel);
  j.key("phase").value(r.phase).key("path").value(r.path);
  if (r.cus > 0) j.key("cus").value(r.cus);
  j.key("copySizeBytes").value(r.copySizeBytes);
  j.key("durationMs").valueSignificant(r.durationMs, 6);
  j.key("computeTflops").valueSignificant(r.computeTflops, 6);
  writeNullable(j, "computeGbps", r.computeGbps);
  writeNullable(j, "keptFraction", r.keptFraction);
  writeNullable(j, "copyGbps", r.copyGbps);
  writeNullable(j, "copyAloneGbps", r.copyAloneGbps);
  writeNullable(j, "bandwidthKept", r.bandwidthKept);
  j.key("copies").value(r.copies);
  j.key("totalCus").value(r.totalCus);
  j.key("cusUsed");
  if (r.cusUsed) {
    j.value(*r.cusUsed);
  } else {
    j.null();
  }
  writeNullable(j, "cuArithmetic", r.cuArithmetic);
  j.key("mechanism");
  if (r.mechanism) {
    j.value(*r.mechanism);
  } else {
    j.null();
  }
  writeNullable(j, "smClockMHz", r.clocks.smMHz);
  writeNullable(j, "memClockMHz", r.clocks.memMHz);
  writeNullable(j, "powerW", r.clocks.powerW);
  writeNullable(j, "powerLimitW", r.clocks.powerLimitW);
  j.key("throttleReasons").beginArray();
  for (const std::string& reason : r.clocks.throttleReasons) j.value(reason);
  j.endArray();
  j.key("telemetry").value(r.telemetry);
  j.key("simulated").value(simulated);
  emit();
}

void Reporter::relaySample(std::string_view record) {
  if (record.find('\n') != std::string_view::npos) return;
  relay(record);
  ++samples_;
}

void Reporter::relay(std::string_view record) {
  // One line a time: a record that carried its own line break would split in two.
  if (record.find('\n') != std::string_view::npos) return;
  std::string line;
  line.reserve(record.size() + 1);
  line.append(record).push_back('\n');
  raw(line);
}

namespace {

void programHead(JsonWriter& j, const std::vector<std::string>& argv, long pid) {
  j.key("argv").beginArray();
  for (const std::string& a : argv) j.value(a);
  j.endArray();
  j.key("pid").value(static_cast<std::int64_t>(pid));
}

void triple(JsonWriter& j, std::string_view key, const std::array<int, 3>& v) {
  j.key(key).beginArray().value(v[0]).value(v[1]).value(v[2]).endArray();
}

std::string_view sizeKindName(librarylog::SizeKind kind) {
  return kind == librarylog::SizeKind::BytesPerPeer ? "bytesPerPeer" : "bytes";
}

}  // namespace

void Reporter::programStart(const std::vector<std::string>& argv, long pid) {
  JsonWriter& j = begin("program");
  j.key("event").value("start");
  programHead(j, argv, pid);
  emit();
}

void Reporter::programExit(const std::vector<std::string>& argv, long pid, const runmode::ProgramExit& exit) {
  JsonWriter& j = begin("program");
  j.key("event").value("exit");
  programHead(j, argv, pid);
  j.key("exitCode");
  if (exit.signalName.empty())
    j.value(exit.exitCode);
  else
    j.null();
  j.key("signal");
  if (exit.signalName.empty())
    j.null();
  else
    j.value(exit.signalName);
  if (!exit.kfdSdma.empty()) {
    j.key("kfdSdma").beginArray();
    for (const runmode::KfdSdmaActivity& a : exit.kfdSdma) {
      j.beginObject()
          .key("gpu")
          .value(a.gpu)
          .key("kfdGpuId")
          .value(a.kfdGpuId)
          .key("activity")
          .value(a.counter)
          .endObject();
    }
    j.endArray();
  }
  emit();
}

void Reporter::dispatch(const runmode::DispatchRecord& d) {
  JsonWriter& j = begin("dispatch");
  j.key("name").value(d.name);
  if (!d.mangled.empty()) j.key("mangled").value(d.mangled);
  j.key("gpu").value(d.gpu).key("startNs").value(d.startNs).key("endNs").value(d.endNs);
  triple(j, "grid", d.grid);
  triple(j, "block", d.block);
  j.key("source").value(d.source);
  if (d.correlationId >= 0) j.key("correlationId").value(d.correlationId);
  if (d.cusSeen >= 0) j.key("cusSeen").value(d.cusSeen);
  emit();
}

void Reporter::copy(const runmode::CopyRecord& c) {
  JsonWriter& j = begin("copy");
  j.key("mover").value(c.mover).key("initiator").value(c.initiator);
  j.key("srcGpu").value(c.srcGpu).key("dstGpu").value(c.dstGpu).key("bytes").value(c.bytes);
  j.key("startNs").value(c.startNs).key("endNs").value(c.endNs).key("source").value(c.source);
  if (c.engineId >= 0) j.key("engineId").value(c.engineId);
  if (!c.label.empty()) j.key("label").value(c.label);
  emit();
}

void Reporter::deviceSpan(const runmode::DeviceSpanRecord& s) {
  JsonWriter& j = begin("device-span");
  j.key("gpu").value(s.gpu).key("cu").value(s.cu).key("xcc").value(s.xcc);
  j.key("label").value(s.label).key("startNs").value(s.startNs).key("endNs").value(s.endNs);
  j.key("bytes").value(s.bytes).key("peer").value(s.peer).key("mover").value(s.mover).key("pull").value(s.pull);
  emit();
}

void Reporter::libraryCalls(const runmode::LibraryCalls& c) {
  JsonWriter& j = begin("library-calls");
  if (!c.library.empty()) j.key("library").value(c.library);
  j.key("op").value(c.op).key("transport").value(c.transport);
  if (c.sizeKind != librarylog::SizeKind::None) {
    j.key("sizeKind")
        .value(sizeKindName(c.sizeKind))
        .key("minBytes")
        .value(c.minBytes)
        .key("maxBytes")
        .value(c.maxBytes);
  }
  j.key("calls").value(c.calls).key("ranks").value(c.ranks).key("evidence").value(c.evidence);
  emit();
}

void Reporter::done(DoneStatus status) {
  const auto elapsed = std::chrono::steady_clock::now() - start_;
  const double elapsedMs = std::chrono::duration<double, std::milli>(elapsed).count();
  begin("done").key("status").value(doneStatusName(status)).key("samples").value(samples_);
  json_.key("elapsedMs").value(roundToTenth(elapsedMs));
  emit();
}

}  // namespace sdma
