// The helper's side of the AMD engine/device path (rocshmem_launcher.hpp): the PEs' NDJSON
// records, rocSHMEM's SDMA log lines, the PE environment and arguments, and the PE pair kept
// across points: its start, the points it is fed, the draining of every pipe, its stop.
#include "backends/gpu/rocshmem_launcher.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

#include "util/checked.hpp"
#include "util/json_writer.hpp"
#include "util/ndjson_reader.hpp"
#include "util/process.hpp"
#include "util/safe_file.hpp"

namespace sdma::gpu {
namespace {

std::vector<std::string> splitOn(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

double nowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// A write of a few hundred bytes to a pipe is whole (PIPE_BUF). A PE that already died must
// not take the helper with it through SIGPIPE: the signal is held for this write and a
// pending one is consumed.
bool writeWithoutSigpipe(int fd, const std::string& text) {
  if (fd < 0) return false;
  sigset_t pipeOnly, previous;
  sigemptyset(&pipeOnly);
  sigaddset(&pipeOnly, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous);
  ssize_t n = -1;
  do {
    n = write(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  const bool whole = n == static_cast<ssize_t>(text.size());
  if (!whole) {
    const timespec none{0, 0};
    while (sigtimedwait(&pipeOnly, nullptr, &none) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return whole;
}

PePutResult errorResult(const std::string& code, const std::string& message, const std::string& hint) {
  PePutResult r;
  r.status = code;
  r.failure = message;
  r.hint = hint;
  return r;
}

ndjson::Limits peLineLimits() {
  ndjson::Limits limits;
  limits.maxLineBytes = kMaxPeLineBytes;
  limits.maxDepth = 2;
  limits.maxMembers = 16;
  limits.maxItems = 100000;
  return limits;
}

bool isHexText(const std::string& text) {
  if (text.empty() || text.size() % 2 != 0 || text.size() > 1024) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The text with ANSI escape sequences (ESC '[' ... final byte, or ESC and one byte) left out.
std::string withoutAnsi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b') {
      out += line[i];
      continue;
    }
    if (i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !(line[i] >= 0x40 && line[i] <= 0x7e)) ++i;
    } else {
      ++i;
    }
  }
  return out;
}

const char* peName(int pe) { return pe == 0 ? "PE 0 (source GPU)" : "PE 1 (destination GPU)"; }

std::string describeExit(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

constexpr const char* kMoreLogHint =
    "rocSHMEM's log (ROCSHMEM_DEBUG_LEVEL, INFO by default for sdma-probe's PEs) is on the PEs' stderr; "
    "check `rocm-smi` for other work or a hung device";

}  // namespace

// ---- records ----------------------------------------------------------------------------

void PeOutput::addLine(std::string_view line) {
  static const ndjson::Limits kLimits = peLineLimits();
  const std::optional<ndjson::Value> o = ndjson::parseLine(line, kLimits);
  if (!o) return;
  const std::string type = ndjson::stringField(*o, "type").value_or("");
  // The pair's records and the end of a point are read whatever the point's state.
  if (type == "uid") {
    const std::string uid = ndjson::stringField(*o, "uid").value_or("");
    if (uid_.empty() && isHexText(uid)) uid_ = uid;
    return;
  }
  if (type == "version") {
    if (const auto v = ndjson::stringField(*o, "version")) r_.rocshmemVersion = *v;
    if (const auto init = ndjson::stringField(*o, "init"); init == "wg-init" || init == "none") r_.deviceInit = *init;
    return;
  }
  if (type == "ready") {
    ready_ = true;
    return;
  }
  if (type == "done") {
    const auto point = ndjson::intField(*o, "point");
    if (point && *point > 0) done_ = *point;
    return;
  }
  if (type == "error") failed_ = true;  // the PE ends after it, whatever the point's state
  if (final_) return;
  if (type == "error") {
    const std::string code = ndjson::stringField(*o, "code").value_or("");
    r_.status = code.empty() ? "runtime" : code;
    r_.failure = ndjson::stringField(*o, "message").value_or("");
    if (r_.failure.empty()) r_.failure = "the rocSHMEM PE reported an error without a message";
    r_.hint = ndjson::stringField(*o, "hint").value_or("");
    final_ = true;
  } else if (type == "times") {
    if (const auto ns = ndjson::numbersField(*o, "ns")) r_.timesNs.insert(r_.timesNs.end(), ns->begin(), ns->end());
  } else if (type == "ops") {
    const auto ops = ndjson::intField(*o, "ops");
    if (ops && *ops >= 0) r_.opsDone = static_cast<std::uint64_t>(*ops);
  } else if (type == "trace") {
    const auto start = ndjson::numberField(*o, "startNs");
    const auto issued = ndjson::numberField(*o, "issuedNs");
    const auto complete = ndjson::numberField(*o, "completeNs");
    const auto cu = ndjson::intField(*o, "cu");
    const auto xcc = ndjson::intField(*o, "xcc");
    const auto cuValue = cu ? ingest::toUnsigned(*cu) : std::nullopt;
    const auto xccValue = xcc ? ingest::toUnsigned(*xcc) : std::nullopt;
    if (start && issued && complete && cuValue && xccValue) {
      r_.trace = PePutTrace{*start, *issued, *complete, *cuValue, *xccValue};
      r_.traced = true;
    }
  } else if (type == "validation") {
    const auto ok = ndjson::boolField(*o, "ok");
    if (ok == true) {
      validated_ = true;
    } else if (ok == false) {
      r_.status = "validation";
      r_.failure = ndjson::stringField(*o, "message").value_or("the copy did not check");
      final_ = true;
    }
  }
}

void PeOutput::beginPoint() {
  PePutResult kept;
  kept.rocshmemVersion = r_.rocshmemVersion;
  kept.deviceInit = r_.deviceInit;
  r_ = kept;
  validated_ = false;
  final_ = false;
  done_.reset();
}

std::string PeOutput::uidRecord() const {
  if (uid_.empty()) return {};
  JsonWriter j;
  j.beginObject().key("type").value("uid").key("uid").value(uid_).endObject();
  return j.str() + "\n";
}

PePutResult PeOutput::result() const {
  if (final_) return r_;
  if (!validated_ || r_.timesNs.empty()) {
    PePutResult r = errorResult("runtime", "the rocSHMEM PE ended without a checked result", "");
    r.rocshmemVersion = r_.rocshmemVersion;
    r.deviceInit = r_.deviceInit;
    return r;
  }
  PePutResult r = r_;
  r.status = "ok";
  return r;
}

PePutResult parsePeOutput(const std::string& text) {
  PeOutput out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.addLine(std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
  return out.result();
}

std::string pointRecord(const PePutRequest& request, std::uint64_t point) {
  JsonWriter j;
  j.beginObject().key("type").value("point").key("point").value(point);
  j.key("size").value(request.sizeBytes).key("stride").value(request.strideBytes);
  j.key("slots").value(request.slots).key("region").value(request.regionBytes);
  j.key("warmup").value(request.warmupIters).key("iters").value(request.iters);
  j.key("maxIters").value(request.maxIters).key("depth").value(request.depth);
  j.key("targetNs").value(static_cast<std::int64_t>(ingest::toInt64(request.targetNs).value_or(0)));
  j.key("seed").value(std::to_string(request.seed));
  j.key("trace").value(request.trace).key("corrupt").value(request.corrupt);
  j.key("waves").value(request.waves);
  j.endObject();
  return j.str() + "\n";
}

// ---- rocSHMEM's SDMA log lines ------------------------------------------------------------

std::string plainLogLine(std::string_view line) {
  std::string out = withoutAnsi(line);
  while (!out.empty() && (out.back() == '\r' || out.back() == ' ' || out.back() == '\t')) out.pop_back();
  for (char& c : out) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t') c = '?';
    if (u == 0x7f) c = '?';
  }
  if (out.size() > kMaxKeptLogLineBytes) {
    out.resize(kMaxKeptLogLineBytes);
    out += "...";
  }
  return out;
}

RocshmemSdmaLine classifyRocshmemSdmaLine(std::string_view line) {
  if (line.find("SDMA") == std::string_view::npos) return RocshmemSdmaLine::None;
  const std::string plain = withoutAnsi(line);
  if (plain.find("fall back") != std::string::npos || plain.find("connect failed") != std::string::npos ||
      plain.find("SDMA disabled") != std::string::npos) {
    return RocshmemSdmaLine::Fallback;
  }
  if (plain.find("SDMA init with threshold=") != std::string::npos) return RocshmemSdmaLine::Init;
  return RocshmemSdmaLine::None;
}

std::optional<std::uint64_t> sdmaThresholdOf(std::string_view initLine) {
  constexpr std::string_view kKey = "threshold=";
  const std::size_t at = initLine.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = initLine.substr(at + kKey.size());
  std::size_t n = 0;
  while (n < rest.size() && n < 20 && rest[n] >= '0' && rest[n] <= '9') ++n;
  if (n == 0 || (n < rest.size() && rest[n] >= '0' && rest[n] <= '9')) return std::nullopt;
  const std::optional<std::int64_t> v = ingest::parseInt64(rest.substr(0, n));
  if (!v || *v < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

MoverEvidence rocshmemSdmaEvidence(const std::string& initLine, std::uint64_t sizeBytes) {
  MoverEvidence e;
  e.source = EvidenceSource::RocshmemLog;
  if (initLine.empty()) {
    e.observed = ObservedMover::Unknown;
    e.detail =
        "rocSHMEM logged no SDMA initialisation line (ROCSHMEM_DEBUG_LEVEL=INFO; a rocSHMEM without its SDMA "
        "transport, or one that does not log it, logs none)";
    return e;
  }
  const std::optional<std::uint64_t> threshold = sdmaThresholdOf(initLine);
  const std::string quoted = "\"" + initLine + "\"";
  if (threshold && sizeBytes < *threshold) {
    e.observed = ObservedMover::Cu;
    e.detail = "rocSHMEM's SDMA threshold is " + std::to_string(*threshold) + " bytes, above this point's " +
               std::to_string(sizeBytes) + "-byte puts, which it copies with load/store: " + quoted;
  } else if (threshold && sizeBytes == *threshold) {
    e.observed = ObservedMover::Unknown;
    e.detail = "this point's puts are exactly rocSHMEM's SDMA threshold (" + std::to_string(*threshold) +
               " bytes): which side of it they take is not known: " + quoted;
  } else {
    e.observed = ObservedMover::Engine;
    e.detail = "rocSHMEM initialised its SDMA transport for puts of this size: " + quoted;
  }
  return e;
}

std::optional<int> sdmaChannelsOf(std::string_view initLine) {
  constexpr std::string_view kKey = "channels=";
  const std::size_t at = initLine.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = initLine.substr(at + kKey.size());
  std::size_t n = 0;
  while (n < rest.size() && n < 6 && rest[n] >= '0' && rest[n] <= '9') ++n;
  if (n == 0 || (n < rest.size() && rest[n] >= '0' && rest[n] <= '9')) return std::nullopt;
  const std::optional<std::int64_t> v = ingest::parseInt64(rest.substr(0, n));
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

MoverEvidence rocshmemSdmaOffEvidence(const std::string& disabledLine) {
  MoverEvidence e;
  e.source = EvidenceSource::RocshmemLog;
  if (disabledLine.empty()) {
    e.observed = ObservedMover::Unknown;
    e.detail =
        "sdma-probe set ROCSHMEM_SDMA_ENABLED=0 (--shmem-sdma off), and rocSHMEM logged no line saying SDMA is "
        "disabled (ROCSHMEM_DEBUG_LEVEL=INFO)";
    return e;
  }
  e.observed = ObservedMover::Cu;
  e.detail =
      "rocSHMEM's SDMA transport is off (--shmem-sdma off), so its IPC transport copies the puts with "
      "load/store: \"" +
      disabledLine + "\"";
  return e;
}

bool isSdmaFallbackLine(std::string_view line) { return classifyRocshmemSdmaLine(line) == RocshmemSdmaLine::Fallback; }

std::string sdmaFallbackLine(const std::string& stderrText) {
  std::istringstream lines(stderrText);
  std::string line;
  while (std::getline(lines, line)) {
    if (isSdmaFallbackLine(line)) return plainLogLine(line);
  }
  return "";
}

// ---- environment and arguments -------------------------------------------------------------

std::string peVisibleDevices(const char* helperVisible, int srcGpu, int dstGpu) {
  if (helperVisible == nullptr || *helperVisible == '\0') {
    return std::to_string(srcGpu) + "," + std::to_string(dstGpu);
  }
  const std::vector<std::string> ids = splitOn(helperVisible, ',');
  auto at = [&](int i) {
    return i >= 0 && static_cast<std::size_t>(i) < ids.size() ? ids[static_cast<std::size_t>(i)] : std::to_string(i);
  };
  return at(srcGpu) + "," + at(dstGpu);
}

std::string peDebugLevel(const char* helperDebugLevel) {
  if (helperDebugLevel == nullptr) return "INFO";
  std::string level(helperDebugLevel);
  std::string word = level.substr(0, level.find(':'));
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if ((word == "INFO" || word == "API" || word == "TRACE") && level.size() <= 64) return level;
  return "INFO";
}

std::uint64_t peHeapBytes(std::uint64_t regionBytes) {
  constexpr std::uint64_t kMost = std::uint64_t{1} << 62;
  if (regionBytes > (kMost - kPeHeapReserveBytes) / 2) return kMost;
  const std::uint64_t need = 2 * regionBytes + kPeHeapReserveBytes;
  std::uint64_t heap = kPeMinHeapBytes;
  while (heap < need) heap *= 2;
  return heap;
}

PePairConfig pePairConfig(const PePutRequest& request, const char* helperVisible, const char* helperDebugLevel) {
  PePairConfig c;
  c.visibleDevices = peVisibleDevices(helperVisible, request.srcGpu, request.dstGpu);
  c.heapBytes = peHeapBytes(request.regionBytes);
  c.bootstrapTimeoutS = std::max(1, request.bootstrapTimeoutS);
  c.debugLevel = peDebugLevel(helperDebugLevel);
  c.sdmaMode = request.sdmaMode;
  c.channels = std::max(1, request.channels);
  return c;
}

std::vector<std::pair<std::string, std::string>> peEnvironment(const PePairConfig& config) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"HIP_VISIBLE_DEVICES", config.visibleDevices},
      {"ROCSHMEM_BACKEND", "ipc"},
      {"ROCSHMEM_SDMA_ENABLED", config.sdmaMode == "off" ? "0" : "1"},
  };
  // library: ROCSHMEM_SDMA_THRESHOLD is not in the list, so the PEs inherit the helper's own
  // (or none, and rocSHMEM's default applies); off: the threshold is moot.
  if (config.sdmaMode != "library" && config.sdmaMode != "off") env.emplace_back("ROCSHMEM_SDMA_THRESHOLD", "0");
  if (config.sdmaMode != "off") env.emplace_back("ROCSHMEM_SDMA_NUM_CHANNELS", std::to_string(config.channels));
  env.emplace_back("ROCSHMEM_HEAP_SIZE", std::to_string(config.heapBytes));
  env.emplace_back("ROCSHMEM_BOOTSTRAP_TIMEOUT", std::to_string(config.bootstrapTimeoutS));
  env.emplace_back("ROCSHMEM_DEBUG_LEVEL", config.debugLevel);
  return env;
}

std::vector<std::string> peArguments(const std::string& peBinary, int pe) {
  return {peBinary, "--pe", std::to_string(pe)};
}

std::string peBinaryNextToHelper() {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "sdma-probe-rocshmem-pe";
  std::string path(self, static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/sdma-probe-rocshmem-pe";
}

// ---- the PE pair -------------------------------------------------------------------------

struct RocshmemPeSession::Pair {
  struct Pe {
    pid_t pid = -1;
    int status = 0;
    bool exited = false;
    double exitedAtNs = 0;
    int stdinFd = -1;
    int outFd = -1;  // records (and, from a PE that did not move its stdout, log lines)
    int errFd = -1;  // rocSHMEM's and HIP's log
    ingest::LineSplitter outLines{kMaxPeLineBytes};
    ingest::LineSplitter errLines{kMaxPeStderrLineBytes};
    PeOutput records;
    std::string initLine, fallbackLine, lastLine;  // plainLogLine of each

    bool drained() const { return outFd < 0 && errFd < 0; }
  };
  Pe pe[2];
  double startedNs = 0;
  // --shmem-sdma off: rocSHMEM's "SDMA disabled" line is expected, the evidence, not a failure.
  bool sdmaOff = false;

  enum class Outcome { Reached, Cancelled, Timeout, Failed };

  void logLine(Pe& p, std::string_view line) {
    switch (classifyRocshmemSdmaLine(line)) {
      case RocshmemSdmaLine::Init:
        if (p.initLine.empty()) p.initLine = plainLogLine(line);
        break;
      case RocshmemSdmaLine::Fallback:
        if (p.fallbackLine.empty()) p.fallbackLine = plainLogLine(line);
        break;
      case RocshmemSdmaLine::None:
        break;
    }
    std::string plain = plainLogLine(line);
    if (!plain.empty()) p.lastLine = std::move(plain);
  }

  void onOut(Pe& p, std::string_view line, bool overlong) {
    if (overlong) return;  // never a record; a flood is not kept
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '{') {
      p.records.addLine(line);
    } else {
      logLine(p, line);
    }
  }

  void onErr(Pe& p, std::string_view line, bool overlong) {
    if (!overlong) logLine(p, line);
  }

  // One read from a ready descriptor; closes it at its end.
  void readOne(Pe& p, bool out) {
    int& fd = out ? p.outFd : p.errFd;
    char buffer[65536];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      const std::string_view chunk(buffer, static_cast<std::size_t>(n));
      if (out) {
        p.outLines.feed(chunk, [&](std::string_view l, bool o) { onOut(p, l, o); });
      } else {
        p.errLines.feed(chunk, [&](std::string_view l, bool o) { onErr(p, l, o); });
      }
      return;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (out) {
      p.outLines.end([&](std::string_view l, bool o) { onOut(p, l, o); });
    } else {
      p.errLines.end([&](std::string_view l, bool o) { onErr(p, l, o); });
    }
    closeFd(fd);
  }

  void reap() {
    for (Pe& p : pe) {
      if (p.exited || p.pid < 0) continue;
      if (waitpid(p.pid, &p.status, WNOHANG) == p.pid) {
        p.exited = true;
        p.exitedAtNs = nowNs();
      }
    }
  }

  // One turn: waits up to `waitMs` for output, reads what every ready pipe holds (64 KiB a
  // pipe), reaps.
  void turn(int waitMs) {
    pollfd fds[4];
    Pe* owner[4];
    bool isOut[4];
    int n = 0;
    for (Pe& p : pe) {
      for (const bool out : {true, false}) {
        const int fd = out ? p.outFd : p.errFd;
        if (fd < 0) continue;
        fds[n] = {fd, POLLIN, 0};
        owner[n] = &p;
        isOut[n] = out;
        ++n;
      }
    }
    const int ready = n > 0 ? poll(fds, static_cast<nfds_t>(n), waitMs) : poll(nullptr, 0, waitMs);
    for (int i = 0; ready > 0 && i < n; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0) readOne(*owner[i], isOut[i]);
    }
    reap();
  }

  // A PE has failed: an error record, a fallback line, or it ended (its pipes drained, or
  // 2 s after its exit when something else holds them).
  bool anyFailed() const {
    for (const Pe& p : pe) {
      if (p.records.failed() || (!p.fallbackLine.empty() && !sdmaOff)) return true;
      if (p.exited && (p.drained() || nowNs() - p.exitedAtNs > 2e9)) return true;
    }
    return false;
  }

  // Drains every pipe until `until` holds, a PE fails (when `stopOnFailure`), `cancelled`
  // says so, or the deadline passes.
  Outcome pump(const std::function<bool()>& until, double deadlineNs, bool (*cancelled)(), bool stopOnFailure) {
    while (true) {
      if (until()) return Outcome::Reached;
      if (stopOnFailure && anyFailed()) return Outcome::Failed;
      if (cancelled != nullptr && cancelled()) return Outcome::Cancelled;
      if (nowNs() > deadlineNs) return Outcome::Timeout;
      turn(20);
    }
  }

  // What is left to read right now, without waiting.
  void drainNow() {
    for (int i = 0; i < 64; ++i) {
      bool any = false;
      for (const Pe& p : pe) any = any || p.outFd >= 0 || p.errFd >= 0;
      if (!any) break;
      turn(0);
      pollfd fds[4];
      int n = 0;
      for (const Pe& p : pe) {
        if (p.outFd >= 0) fds[n++] = {p.outFd, POLLIN, 0};
        if (p.errFd >= 0) fds[n++] = {p.errFd, POLLIN, 0};
      }
      if (n == 0 || poll(fds, static_cast<nfds_t>(n), 0) <= 0) break;
    }
    reap();
  }

  bool alive() {
    reap();
    return !pe[0].exited && !pe[1].exited && pe[0].stdinFd >= 0 && pe[1].stdinFd >= 0;
  }

  // The failure of a PE that failed, in words: an error record, else how it ended.
  PePutResult failure() const {
    for (int i = 0; i < 2; ++i) {
      const Pe& p = pe[i];
      if (!p.records.failed()) continue;
      PePutResult r = p.records.result();
      if (i == 1) r.failure = std::string(peName(1)) + ": " + r.failure;
      return r;
    }
    for (int i = 0; i < 2; ++i) {
      const Pe& p = pe[i];
      if (!p.exited) continue;
      return errorResult("runtime",
                         std::string(peName(i)) + " ended (" + describeExit(p.status) + ")" +
                             (p.lastLine.empty() ? "" : ": " + p.lastLine),
                         kMoreLogHint);
    }
    return errorResult("runtime", "the rocSHMEM PEs stopped answering", kMoreLogHint);
  }

  std::string fallback() const {
    if (sdmaOff) return "";
    return !pe[0].fallbackLine.empty() ? pe[0].fallbackLine : pe[1].fallbackLine;
  }
  // With SDMA off: the line in which rocSHMEM says so (PE 0's, else PE 1's), empty when none.
  std::string disabledLine() const { return !pe[0].fallbackLine.empty() ? pe[0].fallbackLine : pe[1].fallbackLine; }

  // Stops both PEs: (graceful) the stop record and end of input, 5 s to finalize; then
  // SIGTERM, then SIGKILL, 2 s apart, draining every pipe meanwhile so that no PE is held in
  // a write. A pair that failed is not waited for.
  void stop(bool graceful) {
    for (Pe& p : pe) {
      if (graceful && !p.exited) writeWithoutSigpipe(p.stdinFd, kStopRecord);
      closeFd(p.stdinFd);
    }
    const auto bothEnded = [this] { return pe[0].exited && pe[1].exited; };
    if (graceful) pump(bothEnded, nowNs() + 5e9, nullptr, false);
    for (const int sig : {SIGTERM, SIGKILL}) {
      if (bothEnded()) break;
      for (Pe& p : pe) {
        if (!p.exited && p.pid > 0) kill(p.pid, sig);
      }
      pump(bothEnded, nowNs() + 2e9, nullptr, false);
    }
    for (Pe& p : pe) {
      if (!p.exited && p.pid > 0) {
        waitpid(p.pid, &p.status, 0);
        p.exited = true;
      }
      closeFd(p.outFd);
      closeFd(p.errFd);
    }
  }
};

RocshmemPeSession::RocshmemPeSession(std::string peBinary) : peBinary_(std::move(peBinary)) {}

RocshmemPeSession::~RocshmemPeSession() { stop(); }

bool RocshmemPeSession::running() const { return pair_ != nullptr; }

pid_t RocshmemPeSession::pid(int pe) const {
  if (!pair_ || pe < 0 || pe > 1 || pair_->pe[pe].exited) return -1;
  return pair_->pe[pe].pid;
}

void RocshmemPeSession::stop() { stopPair(true); }

void RocshmemPeSession::stopPair(bool graceful) {
  if (!pair_) return;
  pair_->stop(graceful);
  pair_.reset();
}

PePutResult RocshmemPeSession::startPair(const PePairConfig& config, bool (*cancelled)()) {
  pair_ = std::make_unique<Pair>();
  Pair& pair = *pair_;
  pair.startedNs = nowNs();
  pair.sdmaOff = config.sdmaMode == "off";
  config_ = config;
  ++pairsStarted_;
  for (int p = 0; p < 2; ++p) {
    process::Spec spec;
    spec.path = peBinary_;
    spec.argv = peArguments(peBinary_, p);
    spec.set = peEnvironment(config);
    spec.unset = {"CUDA_VISIBLE_DEVICES"};
    spec.in = spec.out = spec.err = process::Stream::Pipe;
    const process::Child child = process::start(spec);
    if (!child.started()) {
      stopPair(false);
      return errorResult(
          "runtime",
          "could not start rocSHMEM PE " + std::to_string(p) + " (" + peBinary_ + "): " + std::strerror(child.error),
          "");
    }
    Pair::Pe& pe = pair.pe[p];
    pe.pid = child.pid;
    pe.stdinFd = child.stdinFd;
    pe.outFd = child.stdoutFd;
    pe.errFd = child.stderrFd;
  }
  // Up: PE 0 wrote its unique id, the helper handed it to PE 1, and both joined.
  const double deadline = pair.startedNs + 1e9 * (config.bootstrapTimeoutS + std::max(0, startGraceS_));
  Pair::Outcome o = pair.pump([&] { return !pair.pe[0].records.uid().empty(); }, deadline, cancelled, true);
  if (o == Pair::Outcome::Reached && !writeWithoutSigpipe(pair.pe[1].stdinFd, pair.pe[0].records.uidRecord())) {
    pair.pump([] { return false; }, nowNs() + 1e9, nullptr, true);  // how PE 1 ended
    o = Pair::Outcome::Failed;
  }
  if (o == Pair::Outcome::Reached) {
    o = pair.pump([&] { return pair.pe[0].records.ready() && pair.pe[1].records.ready(); }, deadline, cancelled, true);
  }
  if (o == Pair::Outcome::Reached) {
    pair.drainNow();  // the log lines written before `ready`
    if (pair.fallback().empty()) return errorResult("ok", "", "");
    o = Pair::Outcome::Failed;
  }
  const double tookS = (nowNs() - pair.startedNs) / 1e9;
  PePutResult r;
  if (o == Pair::Outcome::Cancelled) {
    r = errorResult("cancelled", "cancelled", "");
  } else if (o == Pair::Outcome::Timeout) {
    r = errorResult(
        "timeout",
        "the rocSHMEM PE pair did not come up within " + std::to_string(static_cast<long long>(tookS)) +
            " s: rocSHMEM's bootstrap (ROCSHMEM_BOOTSTRAP_TIMEOUT=" + std::to_string(config.bootstrapTimeoutS) +
            " s, set by sdma-probe) and the HIP start-up of both PEs did not finish" +
            (pair.pe[0].records.uid().empty() ? " (PE 0 wrote no unique id)" : ""),
        kMoreLogHint);
  } else if (!pair.fallback().empty()) {
    r = errorResult("sdma-unavailable",
                    "rocSHMEM's SDMA transport did not come up, so its puts would be load/store copies, not "
                    "engine copies: \"" +
                        pair.fallback() + "\"",
                    "check that this rocSHMEM was built with USE_SDMA and that the GPUs reach each other over xGMI; "
                    "rocSHMEM's SDMA channels per peer are ROCSHMEM_SDMA_NUM_CHANNELS (1 to 8)");
    refused_ = std::make_pair(config, r);
  } else {
    r = pair.failure();
    // A join that failed after the bootstrap timeout is the bootstrap's timeout: said so.
    if (!pair.pe[0].records.ready() && tookS + 0.5 >= config.bootstrapTimeoutS && r.status == "runtime") {
      r.status = "timeout";
      r.failure = "rocSHMEM's bootstrap between the two PEs did not complete within " +
                  std::to_string(config.bootstrapTimeoutS) +
                  " s (ROCSHMEM_BOOTSTRAP_TIMEOUT, set by sdma-probe): " + r.failure;
    }
  }
  stopPair(false);
  return r;
}

PePutResult RocshmemPeSession::runPoint(const PePutRequest& request, bool (*cancelled)()) {
  Pair& pair = *pair_;
  for (Pair::Pe& p : pair.pe) p.records.beginPoint();
  const std::uint64_t point = nextPoint_++;
  const std::string line = pointRecord(request, point);
  const auto answered = [&] {
    const std::optional<std::int64_t> want = static_cast<std::int64_t>(point);
    return pair.pe[0].records.donePoint() == want && pair.pe[1].records.donePoint() == want;
  };
  Pair::Outcome o = Pair::Outcome::Failed;
  if (writeWithoutSigpipe(pair.pe[0].stdinFd, line) && writeWithoutSigpipe(pair.pe[1].stdinFd, line)) {
    o = pair.pump(answered, nowNs() + request.timeoutNs, cancelled, true);
  } else {
    pair.pump([] { return false; }, nowNs() + 1e9, nullptr, true);  // how the PE ended
  }
  if (o == Pair::Outcome::Reached) {
    pair.drainNow();
    if (pair.fallback().empty()) {
      PePutResult r = pair.pe[0].records.result();
      r.sdmaLogLine = pair.sdmaOff ? pair.disabledLine() : pair.pe[0].initLine;
      r.evidence = pair.sdmaOff ? rocshmemSdmaOffEvidence(pair.disabledLine())
                                : rocshmemSdmaEvidence(pair.pe[0].initLine, request.sizeBytes);
      // --engines n: the channels rocSHMEM says it set up, where its line names them.
      if (!pair.sdmaOff && request.channels > 1) {
        const std::optional<int> logged = sdmaChannelsOf(pair.pe[0].initLine);
        if (logged && *logged != request.channels) {
          r.evidence.detail += "; rocSHMEM set up " + std::to_string(*logged) + " SDMA channel" +
                               (*logged == 1 ? "" : "s") + " per destination, not the " +
                               std::to_string(request.channels) + " asked for";
        }
      }
      // A failed check leaves the pair usable; anything else without a result does not.
      if (r.status != "ok" && r.status != "validation") stopPair(false);
      return r;
    }
    o = Pair::Outcome::Failed;
  }
  PePutResult r;
  if (o == Pair::Outcome::Cancelled) {
    r = errorResult("cancelled", "cancelled", "");
  } else if (o == Pair::Outcome::Timeout) {
    r = errorResult("timeout",
                    "the rocSHMEM PEs did not answer a point within " +
                        std::to_string(static_cast<long long>(request.timeoutNs / 1e9)) +
                        " s (a put or rocshmem_quiet never completed, or a PE hung)",
                    kMoreLogHint);
  } else if (!pair.fallback().empty()) {
    r = errorResult("sdma-unavailable",
                    "rocSHMEM's SDMA transport fell back to load/store copies: \"" + pair.fallback() + "\"",
                    "check that the GPUs reach each other over xGMI; rocSHMEM's SDMA channels per peer are "
                    "ROCSHMEM_SDMA_NUM_CHANNELS (1 to 8)");
  } else {
    r = pair.failure();
  }
  stopPair(false);
  return r;
}

PePutResult RocshmemPeSession::put(const PePutRequest& request, bool (*cancelled)()) {
  if (cancelled != nullptr && cancelled()) return errorResult("cancelled", "cancelled", "");
  if (access(peBinary_.c_str(), X_OK) != 0) {
    return errorResult("library-not-found",
                       "this sdma-probe was built with rocSHMEM, but its PE program is missing: " + peBinary_,
                       "reinstall or rebuild native/ so that sdma-probe-rocshmem-pe sits next to sdma-probe");
  }
  const char* visible = std::getenv("HIP_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') visible = std::getenv("CUDA_VISIBLE_DEVICES");
  PePairConfig config = pePairConfig(request, visible, std::getenv("ROCSHMEM_DEBUG_LEVEL"));
  if (refused_ && refused_->first.samePair(config)) return refused_->second;
  startGraceS_ = request.startGraceS;
  if (pair_) {
    pair_->drainNow();  // what the PEs wrote while idle
    const bool fits = config_.heapBytes >= config.heapBytes && config_.samePair(config);
    if (!fits || !pair_->alive() || !pair_->fallback().empty()) stop();
  }
  const bool reused = pair_ != nullptr;
  if (!pair_) {
    PePutResult started = startPair(config, cancelled);
    if (started.status != "ok") return started;
  }
  PePutResult r = runPoint(request, cancelled);
  r.pairReused = reused;
  return r;
}

PePutResult runRocshmemPut(const std::string& peBinary, const PePutRequest& request, bool (*cancelled)()) {
  RocshmemPeSession session(peBinary);
  return session.put(request, cancelled);
}

}  // namespace sdma::gpu
