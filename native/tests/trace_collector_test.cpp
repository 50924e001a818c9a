// The run mode's trace lines (TraceCollector, util/ndjson_reader) and its trace file reader on hostile
// input: spans that end before they start, times at the ends of int64 on every kind of line
// and a program started at either end, numbers no integer holds, the record caps, the trace
// file as a link to /dev/zero or a FIFO, an overlong line, cancellation. Each case names what
// the collector must say instead of looping, flooding memory or wrapping a number.
//
// The cases that could loop or eat memory run in a child process with a time limit and an
// address-space limit, so a regression fails here instead of taking the machine down.
//
// Usage: trace_collector_test [FIXTURES] [doctest options, e.g. -tc=caps for one case]

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/read_control.hpp"
#include "util/ndjson_reader.hpp"
#include "profile/trace_collector.hpp"
#include "doctest_support.hpp"

using sdma::ingest::Control;
using sdma::runmode::CollectorLimits;
using sdma::runmode::CollectorWarning;
using sdma::runmode::CopyRecord;
using sdma::runmode::DeviceSpanRecord;
using sdma::runmode::DispatchRecord;
using sdma::runmode::TraceCollector;
using sdma::testing::GiB;
using sdma::testing::KiB;
using sdma::testing::MiB;

namespace {

// Each check is a doctest check, counted too: a case run in a child process (isolated()) exits
// with whether its own checks passed.
int failures = 0;
void check(bool ok, const std::string& what) {
  CHECK_MESSAGE(ok, what);
  if (!ok) ++failures;
}

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

struct Finished {
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> c;
  std::vector<CollectorWarning> warnings;
  std::vector<DeviceSpanRecord> spans;
};

Finished finish(TraceCollector& collector) {
  Finished f;
  collector.finish(f.d, f.c, f.warnings, &f.spans);
  return f;
}

bool warns(const Finished& f, const std::string& code, const std::string& text = "") {
  for (const CollectorWarning& w : f.warnings)
    if (w.code == code && w.message.find(text) != std::string::npos) return true;
  return false;
}

bool warns(const std::vector<CollectorWarning>& warnings, const std::string& code, const std::string& text = "") {
  Finished f;
  f.warnings = warnings;
  return warns(f, code, text);
}

void printWarnings(const Finished& f) {
  for (const CollectorWarning& w : f.warnings)
    std::printf("      warning %s: %s\n", w.code.c_str(), w.message.substr(0, 300).c_str());
}

std::string num(std::int64_t v) { return std::to_string(v); }

std::string devLine(std::int64_t start, std::int64_t end, const std::string& label = "x", int gpu = 0,
                    long long bytes = 1, int peer = 1, int cu = 0) {
  return R"({"k":"dev","pid":7,"gpu":)" + std::to_string(gpu) + R"(,"label":")" + label + R"(","cu":)" +
         std::to_string(cu) + R"(,"xcc":0,"monoStartNs":)" + num(start) + R"(,"monoEndNs":)" + num(end) +
         R"(,"bytes":)" + std::to_string(bytes) + R"(,"peer":)" + std::to_string(peer) + "}";
}

std::string clockLine(std::int64_t cupti, std::int64_t mono, int pid = 7) {
  return R"({"k":"clock","pid":)" + std::to_string(pid) + R"(,"cuptiNs":)" + num(cupti) + R"(,"monoNs":)" + num(mono) +
         "}";
}

std::string kernelLine(std::int64_t start, std::int64_t end, const std::string& name = "_Z4workPf", int pid = 7) {
  return R"({"k":"kernel","pid":)" + std::to_string(pid) + R"(,"gpu":0,"name":")" + name + R"(","startNs":)" +
         num(start) + R"(,"endNs":)" + num(end) + R"(,"grid":[4,1,1],"block":[64,1,1],"corr":1})";
}

std::string memcpyLine(std::int64_t start, std::int64_t end, int pid = 7) {
  return R"({"k":"memcpy","pid":)" + std::to_string(pid) + R"(,"kind":"PtoP","gpu":0,"src":0,"dst":1,"bytes":64,)" +
         R"("startNs":)" + num(start) + R"(,"endNs":)" + num(end) + "}";
}

// Runs `body` in a child process limited to `seconds` of time and 2 GiB of address space;
// the child's own checks print as usual and its exit status says whether they passed.
void isolated(const std::string& what, unsigned seconds, const std::function<void()>& body) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    failures = 0;                   // the child's own checks only
#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer's shadow memory needs more address space
    rlimit as{2 * GiB, 2 * GiB};
    setrlimit(RLIMIT_AS, &as);
#endif
    alarm(seconds);
    body();
    std::fflush(stdout);
    _exit(failures == 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const bool exited = WIFEXITED(status);
  check(exited && WEXITSTATUS(status) == 0,
        what + (exited ? (WEXITSTATUS(status) == 0 ? "" : ": checks failed")
                       : std::string(": the child died of signal ") + std::to_string(WTERMSIG(status)) +
                             (WTERMSIG(status) == SIGALRM ? " (it ran past " + std::to_string(seconds) + " s)" : "")));
}

struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/sdma-trace-test-XXXXXX";
    path = mkdtemp(name) != nullptr ? name : "/tmp";
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string file = path + "/" + name;
    if (std::FILE* f = std::fopen(file.c_str(), "wb")) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
    return file;
  }
};

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// ---------------------------------------------------------------------------------------
// Reversed and overlapping spans.

void reversedSpan() {
  // The old grouping loop let the first span break its own group (start > end + 20 µs) and
  // never advanced: finish() pushed records until memory was gone.
  isolated("reversed span > 20 us: finish() returns", 20, [] {
    TraceCollector c(0);
    c.addLine(devLine(200000000, 100000000));
    const Finished f = finish(c);
    printWarnings(f);
    check(f.d.empty() && f.c.empty() && f.spans.empty(), "reversed span: left out, nothing made of it");
    check(warns(f, "trace-span-reversed", "1 device-trace spans") &&
              warns(f, "trace-span-reversed", "monoStartNs 200000000, monoEndNs 100000000"),
          "reversed span: said, with the first one's values");
  });
  // Reversed by 1 ns: dropped too (the alignment error shifts both ends alike, so even a small
  // reversal is a corrupt record), and the good spans around it are kept as before.
  isolated("reversed spans among good ones: finish() returns", 20, [] {
    TraceCollector c(1000);
    c.addLine(devLine(2000, 3000, "a"));
    c.addLine(devLine(5001, 5000, "a"));
    c.addLine(devLine(4000, 6000, "a"));
    c.addLine(devLine(900000000, 1000, "a"));
    const Finished f = finish(c);
    printWarnings(f);
    check(f.spans.size() == 2 && f.c.size() == 1, "reversed among good: 2 spans kept, one copy of them");
    check(f.c.size() == 1 && f.c[0].startNs == 1000 && f.c[0].endNs == 5000 && f.c[0].bytes == 2,
          "reversed among good: the copy spans the good ones only");
    check(warns(f, "trace-span-reversed", "2 device-trace spans") &&
              warns(f, "trace-span-reversed", "monoStartNs 5001, monoEndNs 5000"),
          "reversed among good: both counted, the first named");
  });
}

void overlappingSpans() {
  isolated("overlapping spans: grouped", 20, [] {
    TraceCollector c(0);
    // Nested and overlapping on one CU and on others, then a gap past 20 µs.
    c.addLine(devLine(100, 1000, "a", 0, 10, 1, 1));
    c.addLine(devLine(200, 300, "a", 0, 20, 1, 2));
    c.addLine(devLine(250, 5000, "a", 0, 30, 1, 1));
    c.addLine(devLine(100, 1000, "a", 0, 40, 1, 3));
    c.addLine(devLine(40000, 41000, "a", 0, 50, 1, 1));
    // A scope overlapping them: a dispatch of its own.
    c.addLine(devLine(150, 4000, "compute", 0, 0, -1, 4));
    const Finished f = finish(c);
    printWarnings(f);
    check(f.spans.size() == 6 && f.warnings.empty(), "overlapping: every span kept, nothing to say");
    check(f.c.size() == 2 && f.c[0].startNs == 100 && f.c[0].endNs == 5000 && f.c[0].bytes == 100 &&
              f.c[1].startNs == 40000 && f.c[1].bytes == 50,
          "overlapping: one copy per burst, from the first start to the last end");
    check(f.d.size() == 1 && f.d[0].name == "compute" && f.d[0].startNs == 150 && f.d[0].endNs == 4000 &&
              f.d[0].cusSeen == 1,
          "overlapping: the scope is a dispatch of its own");
  });
  // A long kernel on GPU 0 overlapped by 150000 short ones on GPU 1: a span near its end
  // belongs to it. The old look-back over the last 100000 dispatches (of every GPU) missed it.
  isolated("span in a long kernel overlapped by many short ones", 60, [] {
    TraceCollector c(0);
    DispatchRecord longOne;
    longOne.name = "long";
    longOne.gpu = 0;
    longOne.startNs = 0;
    longOne.endNs = 1000000000;
    c.addDispatchMono(longOne);
    for (int i = 0; i < 150000; ++i) {
      DispatchRecord d;
      d.name = "short";
      d.gpu = 1;
      d.startNs = 1000 + 5000LL * i;
      d.endNs = d.startNs + 1000;
      c.addDispatchMono(d);
    }
    c.addLine(devLine(999000000, 999001000, "put", 0, 4096, 1, 7));
    const Finished f = finish(c);
    check(f.d.size() == 150001 && f.d[0].name == "long" && f.d[0].cusSeen == 1,
          "long kernel: the span is folded into it (cusSeen 1)");
    check(f.c.size() == 1 && f.c[0].bytes == 4096 && f.c[0].source == "device-trace",
          "long kernel: one copy of the span's bytes");
  });
  // Many spans after many finished dispatches of their GPU: each span's search is O(log n),
  // not a look-back over the dispatches. A complexity check, not a time limit: the same spans
  // after 100 times as many dispatches take about as long (a look-back would take about 100
  // times longer), whatever the machine's speed or load.
  isolated("many spans after many dispatches: finish() is fast", 120, [] {
    const auto run = [](int dispatches) {
      TraceCollector c(0);
      for (int i = 0; i < dispatches; ++i) {
        DispatchRecord d;
        d.name = "short";
        d.startNs = 1000LL * i;
        d.endNs = d.startNs + 10;
        c.addDispatchMono(d);
      }
      const std::int64_t late = 1000000000;
      for (int i = 0; i < 300000; ++i)
        c.addLine(devLine(late + 100000LL * i, late + 100000LL * i + 10, "x", 0, 1, 1, i % 64));
      const auto t = std::chrono::steady_clock::now();
      const Finished f = finish(c);
      const double s = secondsSince(t);
      check(f.d.size() == static_cast<std::size_t>(dispatches) && f.c.size() == 300000,
            "many spans: every span its own loose copy (gaps of 100 us)");
      return s;
    };
    const double few = run(2000);
    const double many = run(200000);
    check(many < 10 * few + 1.0, "many spans: finish() after 200000 dispatches took " + std::to_string(many) +
                                     " s, after 2000 " + std::to_string(few) + " s (at most 10x + 1 s)");
  });
}

// ---------------------------------------------------------------------------------------
// int64 extremes on every kind of line, and a program started at either end.

void int64Extremes() {
  isolated("int64 extremes: no wrap, no crash", 30, [] {
    {
      TraceCollector c(0);
      c.addLine(devLine(kMin, kMax));       // its length does not fit
      c.addLine(devLine(kMax - 10, kMax));  // fits: kept
      c.addLine(devLine(kMax - 5, kMax));   // overlaps it: one burst (end + 20 us saturates)
      c.addLine(devLine(kMin, kMin + 10));  // fits: kept
      c.addLine(devLine(kMin, kMin));
      const Finished f = finish(c);
      printWarnings(f);
      check(f.spans.size() == 4, "dev extremes: the 4 spans that fit are kept");
      check(warns(f, "trace-time-out-of-range", "1 records") &&
                warns(f, "trace-time-out-of-range", "monoStartNs " + num(kMin) + " to monoEndNs " + num(kMax)),
            "dev extremes: the span whose length does not fit is said");
      bool grouped = false;
      for (const CopyRecord& x : f.c) grouped = grouped || (x.startNs == kMax - 10 && x.endNs == kMax && x.bytes == 2);
      check(f.c.size() == 2 && grouped, "dev extremes: the two spans at the top form one burst, not two");
    }
    for (const std::int64_t start : {kMin, kMax, kMin + 1, kMax - 1}) {
      TraceCollector c(start);
      c.addLine(devLine(0, 10));
      c.addLine(devLine(-10, 0));
      c.addLine(devLine(kMin, kMax));
      c.addLine(devLine(kMax, kMax));
      c.addLine(devLine(kMin, kMin));
      c.addLine(R"({"k":"dev-window","pid":7,"monoStartNs":)" + num(kMin) + R"(,"monoEndNs":)" + num(kMax) + "}");
      c.addLine(R"({"k":"dev-end","pid":7,"gpu":0,"dropped":)" + num(kMax) + R"(,"alignUncertaintyNs":)" + num(kMax) +
                "}");
      c.addLine(R"({"k":"dev-end","pid":7,"gpu":0,"dropped":)" + num(kMax) + R"(,"alignUncertaintyNs":)" + num(kMin) +
                "}");
      c.addLine(clockLine(kMin, kMax));
      c.addLine(clockLine(kMax, kMin));
      c.addLine(kernelLine(kMin, kMax));
      c.addLine(memcpyLine(kMax, kMin));
      DispatchRecord d;
      d.name = "mono";
      d.startNs = kMin;
      d.endNs = kMax;
      c.addDispatchMono(d);
      CopyRecord x;
      x.startNs = kMax;
      x.endNs = kMin;
      c.addCopyMono(x);
      const Finished f = finish(c);
      printWarnings(f);
      for (const DeviceSpanRecord& s : f.spans) {
        // Every kept time is the line's time minus the program's start, exactly.
        check(s.startNs <= s.endNs, "start " + num(start) + ": a kept span has start <= end");
      }
      check(warns(f, "trace-time-out-of-range"), "start " + num(start) + ": what does not fit is said");
      check(warns(f, "device-trace-dropped", "18446744073709551614 device-trace records"),
            "start " + num(start) + ": dropped counts add up without wrapping");
      // The clock lines of pid 7 map CUPTI kMin -> mono kMax and kMax -> kMin: a negative
      // slope, so no CUPTI record of it is kept.
      bool cupti = false;
      for (const DispatchRecord& r : f.d) cupti = cupti || r.source == "cupti";
      for (const CopyRecord& r : f.c) cupti = cupti || r.source == "cupti";
      check(!cupti, "start " + num(start) + ": CUPTI records through a reversed clock are left out");
    }
    {
      // A sane clock, records at the ends of CUPTI's time: the mapping's subtraction does not fit.
      TraceCollector c(0);
      c.addLine(clockLine(1000, 5000));
      c.addLine(clockLine(2001000, 2005000));
      c.addLine(kernelLine(kMin, kMin + 10));
      c.addLine(kernelLine(kMax - 10, kMax));
      c.addLine(memcpyLine(kMin, kMax));
      c.addLine(kernelLine(1500, 2500, "_Z2okv"));
      const Finished f = finish(c);
      printWarnings(f);
      check(f.d.size() == 1 && f.d[0].name == "ok()" && f.d[0].startNs == 5500 && f.d[0].endNs == 6500,
            "CUPTI extremes: the record that maps is kept, exactly");
      check(warns(f, "trace-time-out-of-range", "3 records") && warns(f, "trace-time-out-of-range", "CUPTI kernel"),
            "CUPTI extremes: the three that do not map are said");
    }
    {
      // A huge slope: the scaled time does not fit.
      TraceCollector c(0);
      c.addLine(clockLine(0, 0));
      c.addLine(clockLine(1, kMax));
      c.addLine(kernelLine(1000, 2000));
      const Finished f = finish(c);
      check(f.d.empty() && warns(f, "trace-time-out-of-range", "1 records"),
            "huge slope: the record is left out and said");
    }
  });
}

// ---------------------------------------------------------------------------------------
// Numbers no integer field holds.

void numbersOutOfRange() {
  using sdma::ndjson::intField;
  using sdma::ndjson::numbersField;
  const auto parse = [](std::string_view line) { return sdma::ndjson::parseLine(line); };
  const auto o =
      parse(R"({"big":1e300,"inf":1e999,"neg":-1e19,"top":9223372036854775807,"over":9223372036854775808,)"
            R"("under":-9223372036854775809,"bottom":-9223372036854775808,"half":1.5,"two63":9.2233720368547758e18,)"
            R"("grid":[1e300,1e999,-1e19,2]})");
  check(o.has_value(), "json: numbers beyond every integer still parse");
  if (o) {
    check(!intField(*o, "big") && !intField(*o, "inf") && !intField(*o, "neg"),
          "json: 1e300, 1e999, -1e19: no integer");
    check(intField(*o, "top") == kMax && intField(*o, "bottom") == kMin, "json: int64's ends exact");
    check(!intField(*o, "over") && !intField(*o, "under"), "json: one past int64's ends: no integer (not clamped)");
    check(intField(*o, "half") == 1, "json: 1.5 reads as 1, as before");
    check(!intField(*o, "two63"), "json: 2^63 as a double: no integer");
    check(!numbersField(*o, "grid"), "json: an array holding 1e999 (beyond double) gives no numbers");
    const auto finiteGrid = sdma::ndjson::parseLine(R"({"grid":[1e300,-1e19,2]})");
    const auto grid = finiteGrid ? numbersField(*finiteGrid, "grid") : std::nullopt;
    check(grid && grid->size() == 3, "json: the array's finite numbers come as doubles, for the caller to narrow");
  }
  check(!parse(R"({"a":1-2})") && !parse(R"({"a":01})") && !parse(R"({"a":1.})") && !parse(R"({"a":1e})") &&
            !parse(R"({"a":-})") && !parse(R"({"a":.5})"),
        "json: numbers outside JSON's grammar are not read as a prefix");

  // Each of these lines carries one value no field of its kind holds: each is malformed.
  const std::vector<std::string> bad = {
      R"({"k":"kernel","pid":7,"gpu":1e300,"name":"k","startNs":1,"endNs":2})",
      R"({"k":"kernel","pid":7,"gpu":4294967296,"name":"k","startNs":1,"endNs":2})",
      R"({"k":"kernel","pid":7,"gpu":0,"name":"k","startNs":1e999,"endNs":2})",
      R"({"k":"kernel","pid":7,"gpu":0,"name":"k","startNs":1,"endNs":-1e19})",
      R"({"k":"kernel","pid":7,"gpu":0,"name":"k","startNs":1,"endNs":2,"grid":[1e300,1,1]})",
      R"({"k":"kernel","pid":7,"gpu":0,"name":"k","startNs":1,"endNs":2,"grid":[1,1e999,1]})",
      R"({"k":"kernel","pid":7,"gpu":0,"name":"k","startNs":1,"endNs":2,"block":[1,1,-1e19]})",
      R"({"k":"kernel","pid":7,"gpu":0,"name":"k","startNs":1,"endNs":2,"block":[2147483648,1,1]})",
      R"({"k":"kernel","pid":7,"gpu":0,"name":"k","startNs":1,"endNs":2,"corr":1e300})",
      R"({"k":"kernel","pid":1e300,"gpu":0,"name":"k","startNs":1,"endNs":2})",
      R"({"k":"memcpy","pid":7,"src":1e300,"dst":0,"bytes":1,"startNs":1,"endNs":2})",
      R"({"k":"memcpy","pid":7,"src":0,"dst":-1e19,"bytes":1,"startNs":1,"endNs":2})",
      R"({"k":"memcpy","pid":7,"src":0,"dst":0,"bytes":1e999,"startNs":1,"endNs":2})",
      R"({"k":"dev","pid":7,"gpu":0,"cu":-1,"monoStartNs":1,"monoEndNs":2})",
      R"({"k":"dev","pid":7,"gpu":0,"cu":1e300,"monoStartNs":1,"monoEndNs":2})",
      R"({"k":"dev","pid":7,"gpu":0,"xcc":4294967296,"monoStartNs":1,"monoEndNs":2})",
      R"({"k":"dev","pid":7,"gpu":0,"peer":1e999,"monoStartNs":1,"monoEndNs":2})",
      R"({"k":"dev","pid":7,"gpu":-1e19,"monoStartNs":1,"monoEndNs":2})",
      R"({"k":"dev","pid":7,"gpu":0,"bytes":1e300,"monoStartNs":1,"monoEndNs":2})",
      R"({"k":"dev","pid":7,"gpu":0,"monoStartNs":-1e19,"monoEndNs":2})",
      R"({"k":"clock","pid":7,"cuptiNs":1e300,"monoNs":2})",
      R"({"k":"dev-end","pid":7,"gpu":0,"dropped":1e999})",
      R"({"k":"dev-end","pid":7,"gpu":0,"alignUncertaintyNs":-1e19})",
      R"({"k":"cupti-end","pid":7,"dropped":1e300})",
  };
  isolated("numbers out of range: each line malformed", 20, [&] {
    TraceCollector c(0);
    c.addLine(clockLine(0, 0));
    for (const std::string& line : bad) c.addLine(line);
    const Finished f = finish(c);
    printWarnings(f);
    check(f.d.empty() && f.c.empty() && f.spans.empty(), "out of range: no record made of them");
    check(warns(f, "trace-line-malformed", std::to_string(bad.size()) + " trace lines"),
          "out of range: all " + std::to_string(bad.size()) + " lines counted as malformed");
    check(!warns(f, "device-trace-dropped") && !warns(f, "cupti-dropped"),
          "out of range: no dropped count taken from them");
  });

  // The parser stays linear: a key repeated 10000 times, a number of 60000 digits.
  std::string repeated = "{";
  for (int i = 0; i < 10000; ++i) repeated += R"("k":"x",)";
  repeated += R"("k":"dev"})";
  std::string digits = R"({"k":"dev","monoStartNs":1)" + std::string(60000, '0') + R"(,"monoEndNs":2})";
  const auto t = std::chrono::steady_clock::now();
  const auto r = sdma::ndjson::parseLine(repeated);
  const auto d = sdma::ndjson::parseLine(digits);
  check(r && sdma::ndjson::stringField(*r, "k") == std::string("dev"), "json: a repeated key keeps its last value");
  check(d && !intField(*d, "monoStartNs"), "json: a number of 60000 digits parses, and is no integer");
  check(secondsSince(t) < 1, "json: both in under 1 s");
}

// ---------------------------------------------------------------------------------------
// The caps.

void caps() {
  isolated("caps: spans, pending CUPTI records, names", 30, [] {
    CollectorLimits limits;
    limits.maxDispatches = 10;
    limits.maxCopies = 10;
    limits.maxSpans = 5;
    TraceCollector c(0, limits);
    for (int i = 0; i < 8; ++i) c.addLine(devLine(1000000LL * i, 1000000LL * i + 10));
    c.addLine(clockLine(0, 0));
    for (int i = 0; i < 30; ++i) c.addLine(kernelLine(1000000LL * i, 1000000LL * i + 500));
    const Finished f = finish(c);
    printWarnings(f);
    check(f.spans.size() == 5, "caps: 5 spans kept of 8");
    check(f.d.size() == 10, "caps: 10 dispatches kept of 30 kernels");
    check(f.c.size() == 5, "caps: the 5 spans' copies");
    // 30 kernels: 20 wait (dispatches + copies), 10 of them kept.
    check(warns(f, "records-capped", "at most 10 dispatches, 10 copies and 5 device-trace spans") &&
              warns(f, "records-capped", "20 dispatches, 0 copies and 3 spans more were left out"),
          "caps: one warning says what was left out, and the caps");
    std::size_t capped = 0;
    for (const CollectorWarning& w : f.warnings) capped += w.code == "records-capped" ? 1 : 0;
    check(capped == 1, "caps: said once");
  });
  isolated("caps: memory copies wait within the cap too", 30, [] {
    CollectorLimits limits;
    limits.maxDispatches = 3;
    limits.maxCopies = 4;
    TraceCollector c(0, limits);
    c.addLine(clockLine(0, 0));
    for (int i = 0; i < 100; ++i) c.addLine(memcpyLine(i * 10, i * 10 + 5));
    const Finished f = finish(c);
    check(f.c.size() == 4 && warns(f, "records-capped", "0 dispatches, 96 copies"), "caps: 4 copies kept, 96 said");
  });
  isolated("caps: kernel names held", 30, [] {
    CollectorLimits limits;
    limits.maxTextBytes = 1000;
    TraceCollector c(0, limits);
    c.addLine(clockLine(0, 0));
    const std::string name(300, 'k');
    for (int i = 0; i < 10; ++i) c.addLine(kernelLine(i * 10, i * 10 + 5, name));
    const Finished f = finish(c);
    check(f.d.size() == 3 && warns(f, "records-capped", "7 dispatches"),
          "caps: names up to 1000 bytes held (3), 7 said");
  });
  isolated("caps: a span keeps a label, not a line", 60, [] {
    // trace.h's labels are at most 200 bytes; a line may carry 64 KiB of one.
    TraceCollector c(0);
    const std::string label(60000, 'L');
    for (int i = 0; i < 5000; ++i)
      c.addLine(devLine(i * 100000LL, i * 100000LL + 10, label + std::to_string(i), 0, 1, 1));
    const Finished f = finish(c);
    bool cut = f.spans.size() == 5000;
    for (const DeviceSpanRecord& s : f.spans) cut = cut && s.label.size() == 256;
    check(cut, "long labels: 5000 spans kept, each label cut to 256 bytes");
#if !defined(__SANITIZE_ADDRESS__)
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    check(u.ru_maxrss < 100 * 1024, "long labels: peak RSS " + std::to_string(u.ru_maxrss / 1024) +
                                        " MiB (under 100; 5000 lines of 60 kB held would be 300)");
#endif
  });
  isolated("caps: a flood of spans stays within memory", 120, [] {
    CollectorLimits limits;
    limits.maxSpans = 1000;
    TraceCollector c(0, limits);
    const std::string label(200, 'L');
    for (int i = 0; i < 1000000; ++i) c.addLine(devLine(i * 100LL, i * 100LL + 10, label, 0, 1, 1, i % 256));
    const Finished f = finish(c);
    check(f.spans.size() == 1000 && warns(f, "records-capped", "999000 spans"),
          "flood: 1000 spans kept, the rest said");
#if !defined(__SANITIZE_ADDRESS__)  // its allocator holds freed memory back on purpose
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    check(u.ru_maxrss < 200 * 1024, "flood: peak RSS " + std::to_string(u.ru_maxrss / 1024) + " MiB (under 200)");
#endif
  });
}

// ---------------------------------------------------------------------------------------
// The trace file: links, FIFOs, overlong lines, cancellation.

void traceFile() {
  isolated("trace file: a link to /dev/zero is refused at once", 10, [] {
    TempDir dir;
    const std::string path = dir.path + "/sdma-lens-trace.ndjson";
    check(symlink("/dev/zero", path.c_str()) == 0, "link made");
    TraceCollector c(0);
    std::vector<CollectorWarning> warnings;
    Control control = Control::detached();
    const auto t = std::chrono::steady_clock::now();
    const auto r = sdma::runmode::readTraceFile(path, sdma::runmode::kMaxTraceFileBytes, c, control, warnings);
    check(secondsSince(t) < 2 && r.lines == 0, "link: nothing read, at once");
    check(warns(warnings, "trace-file-unreadable", "symbolic link"), "link: said, with the reason");
  });
  isolated("trace file: a FIFO is refused at once", 10, [] {
    TempDir dir;
    const std::string path = dir.path + "/sdma-lens-trace.ndjson";
    check(mkfifo(path.c_str(), 0600) == 0, "FIFO made");
    TraceCollector c(0);
    std::vector<CollectorWarning> warnings;
    Control control = Control::detached();
    const auto t = std::chrono::steady_clock::now();
    const auto r = sdma::runmode::readTraceFile(path, sdma::runmode::kMaxTraceFileBytes, c, control, warnings);
    check(secondsSince(t) < 2 && r.lines == 0, "FIFO: nothing read, at once (no writer awaited)");
    check(warns(warnings, "trace-file-unreadable", "FIFO"), "FIFO: said, with the reason");
  });
  {
    TempDir dir;
    TraceCollector c(0);
    std::vector<CollectorWarning> warnings;
    Control control = Control::detached();
    const auto r = sdma::runmode::readTraceFile(dir.path + "/none.ndjson", 1024, c, control, warnings);
    check(r.lines == 0 && warnings.empty(), "no trace file: nothing to say (the lines came through the pipe)");
    const std::string big = dir.write("big.ndjson", std::string(2000, '\n'));
    sdma::runmode::readTraceFile(big, 1024, c, control, warnings);
    check(warns(warnings, "trace-file-unreadable", "more than"), "trace file over the cap: refused, said");
  }
  isolated("trace file: an overlong line is counted, the rest read", 20, [] {
    TempDir dir;
    const std::string path =
        dir.write("t.ndjson", devLine(1000, 2000) + "\n" + std::string(200 * KiB, 'x') + "\n" + devLine(3000, 4000) +
                                  "\n" + std::string(3 * MiB, '{') + "\n" + devLine(5000, 6000));
    TraceCollector c(0);
    std::vector<CollectorWarning> warnings;
    Control control = Control::detached();
    const auto r = sdma::runmode::readTraceFile(path, sdma::runmode::kMaxTraceFileBytes, c, control, warnings);
    check(r.lines == 5 && !r.cancelled, "overlong: 5 lines seen");
    Finished f = finish(c);
    printWarnings(f);
    check(f.spans.size() == 3, "overlong: the 3 good lines read, the last one without its newline too");
    check(warns(f, "trace-line-overlong", "2 trace lines") && !warns(f, "trace-line-malformed"),
          "overlong: 2 counted as overlong, not as malformed");
    // addLine itself takes no more than a line's worth.
    TraceCollector direct(0);
    direct.addLine(std::string(sdma::runmode::kMaxTraceLineBytes + 1, ' ') + "x");
    check(warns(finish(direct), "trace-line-overlong", "1 trace lines"), "overlong: addLine counts a longer line too");
  });
  isolated("trace file: a cancel stops the read", 30, [] {
    TempDir dir;
    std::string text;
    for (int i = 0; i < 200000; ++i) text += devLine(i * 100LL, i * 100LL + 10) + "\n";
    const std::string path = dir.write("t.ndjson", text);
    TraceCollector c(0);
    std::vector<CollectorWarning> warnings;
    Control control = Control::detached(1000);  // cancelled at its 1000th poll
    const auto r = sdma::runmode::readTraceFile(path, sdma::runmode::kMaxTraceFileBytes, c, control, warnings);
    check(r.cancelled && control.cancelled(), "cancel: the read says it was cancelled");
    check(c.linesSeen() < 1000, "cancel: stopped at once (" + std::to_string(c.linesSeen()) + " of 200000 lines read)");
    // The process's own control: the cancel flag is asked every 256 polls.
    bool asked = false;
    Control flagged([&] { return asked = true; }, nullptr);
    TraceCollector c2(0);
    const auto r2 = sdma::runmode::readTraceFile(path, sdma::runmode::kMaxTraceFileBytes, c2, flagged, warnings);
    check(asked && r2.cancelled && c2.linesSeen() < 1000, "cancel: a cancel flag set stops the read within 256 lines");
  });
}

}  // namespace

TEST_CASE("reversedSpan") { reversedSpan(); }
TEST_CASE("overlappingSpans") { overlappingSpans(); }
TEST_CASE("int64Extremes") { int64Extremes(); }
TEST_CASE("numbersOutOfRange") { numbersOutOfRange(); }
TEST_CASE("caps") { caps(); }
TEST_CASE("traceFile") { traceFile(); }
