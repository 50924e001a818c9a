// The run mode's parts that need no GPU: trace-line parsing, CUPTI clock mapping, folding
// device-trace spans into dispatches, trace.h's own windows, and rocprofv3 CSV reading on
// the public format samples in test/fixtures/rocprofv3, and rocpd (SQLite) reading on our own
// format fixture test/fixtures/rocpd (built here from its SQL script, then changed to miss
// views and columns).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#if SDMA_PROBE_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "profile/device_spans.hpp"
#include "util/ndjson_reader.hpp"
#include "profile/rocm_sources.hpp"
#include "profile/rocpd_reader.hpp"
#include "profile/trace_collector.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma::runmode;

void jsonLines() {
  using namespace sdma::ndjson;
  const auto o = parseLine(R"({"k":"kernel","startNs":1764470000123456789,"grid":[64,1,1],"ok":true,"s":"a\"b"})");
  CHECK(o.has_value());
  CHECK(intField(*o, "startNs") == 1764470000123456789LL);  // beyond 2^53, exact
  CHECK(numbersField(*o, "grid")->size() == 3);
  CHECK(boolField(*o, "ok") == true);
  CHECK(stringField(*o, "s") == std::string("a\"b"));
  CHECK(!parseLine("{\"k\":1").has_value());
  CHECK(!parseLine("not json").has_value());
  CHECK(!parseLine("{\"k\":1} trailing").has_value());
}

bool hasWarning(const std::vector<CollectorWarning>& warnings, const std::string& code, const std::string& text = "") {
  for (const auto& w : warnings)
    if (w.code == code && w.message.find(text) != std::string::npos) return true;
  return false;
}

void cuptiClockAndFolding() {
  // Program started at mono 1'000'000. CUPTI's clock runs 5'000'000 ahead of mono and 0.1% fast.
  TraceCollector c(1000000);
  c.addLine(R"({"k":"clock","pid":7,"when":"start","cuptiNs":6000000,"monoNs":1000000,"uncertaintyNs":20})");
  c.addLine(R"({"k":"clock","pid":7,"when":"exit","cuptiNs":7001000,"monoNs":2000000,"uncertaintyNs":20})");
  c.addLine(
      R"({"k":"kernel","pid":7,"gpu":1,"name":"_Z6fusedAPf","startNs":6100100,"endNs":6200200,"grid":[64,1,1],"block":[256,1,1],"corr":9,"stream":13})");
  c.addLine(
      R"({"k":"memcpy","pid":7,"kind":"PtoP","gpu":1,"src":1,"dst":0,"bytes":4096,"startNs":6300300,"endNs":6400400,"corr":10})");
  // trace.h's own ping kernel, inside its setup window: left out.
  c.addLine(
      R"({"k":"kernel","pid":7,"gpu":1,"name":"ping","startNs":6010010,"endNs":6011011,"grid":[1,1,1],"block":[1,1,1],"corr":2})");
  c.addLine(R"({"k":"dev-window","pid":7,"monoStartNs":1005000,"monoEndNs":1020000})");
  // Two CUs of the kernel: a scope and a put to GPU 0 each.
  for (int cu : {4, 9}) {
    c.addLine(R"({"k":"dev","pid":7,"gpu":1,"label":"a2a","cu":)" + std::to_string(cu) +
              R"(,"xcc":0,"monoStartNs":1110000,"monoEndNs":1150000,"bytes":1024,"peer":0,"mover":"cu","pull":false})");
  }
  c.addLine(R"({"k":"dev-end","pid":7,"gpu":1,"records":2,"dropped":0,"alignUncertaintyNs":500})");
  c.addLine("garbage");
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> copies;
  std::vector<CollectorWarning> warnings;
  c.finish(d, copies, warnings);
  CHECK((d.size() == 1));
  CHECK((c.ownRecordsLeftOut() == 1));
  if (d.size() == 1) {
    CHECK((d[0].name == "fusedA(float*)"));
    CHECK((d[0].mangled == "_Z6fusedAPf"));
    CHECK((d[0].startNs == 100000));  // (6100100 - 6000000) / 1.001
    CHECK((d[0].endNs == 200000));
    CHECK((d[0].cusSeen == 2));
    CHECK((d[0].correlationId == 9));
  }
  CHECK((copies.size() == 2));
  bool sawDevice = false, sawPeer = false;
  for (const CopyRecord& x : copies) {
    if (x.source == "device-trace") {
      sawDevice = true;
      CHECK((x.bytes == 2048 && x.srcGpu == 1 && x.dstGpu == 0 && x.initiator == "device" && x.label == "a2a"));
      CHECK((x.startNs == 110000 && x.endNs == 150000));
    } else {
      sawPeer = true;
      CHECK((x.mover == "engine" && x.initiator == "host" && x.srcGpu == 1 && x.dstGpu == 0 && x.label == "PtoP"));
      CHECK((x.startNs == 300000));
    }
  }
  CHECK((sawDevice && sawPeer));
  CHECK((warnings.size() == 1 && warnings[0].code == "trace-line-malformed"));
}

std::string devLine(int gpu, const std::string& label, int cu, int xcc, long long start, long long end, long long bytes,
                    int peer, const std::string& mover = "cu", bool pull = false) {
  return R"({"k":"dev","pid":7,"gpu":)" + std::to_string(gpu) + R"(,"label":")" + label + R"(","cu":)" +
         std::to_string(cu) + R"(,"xcc":)" + std::to_string(xcc) + R"(,"monoStartNs":)" + std::to_string(start) +
         R"(,"monoEndNs":)" + std::to_string(end) + R"(,"bytes":)" + std::to_string(bytes) + R"(,"peer":)" +
         std::to_string(peer) + R"(,"mover":")" + mover + R"(","pull":)" + (pull ? "true" : "false") + "}";
}

// The spans themselves: every one comes back on the program's time line, the fold into
// dispatches and copies is unchanged, and spans of one CU and label merge only where they touch.
void deviceSpans() {
  TraceCollector c(1000000);
  // CU 4 of XCC 1: two blocks back to back (touching), one side by side (overlapping), then a
  // gap; CU 5: the same times, kept apart from CU 4; a put from CU 4 that touches a scope of
  // another label; a pull by the copy engine.
  c.addLine(devLine(0, "a2a", 4, 1, 1100000, 1200000, 100, 1));
  c.addLine(devLine(0, "a2a", 4, 1, 1200000, 1300000, 200, 1));
  c.addLine(devLine(0, "a2a", 4, 1, 1150000, 1250000, 400, 1));
  c.addLine(devLine(0, "a2a", 4, 1, 1300001, 1400000, 800, 1));
  c.addLine(devLine(0, "a2a", 5, 1, 1100000, 1200000, 1000, 1));
  // CU 6: two blocks that only touch.
  c.addLine(devLine(0, "a2a", 6, 1, 1100000, 1200000, 10, 1));
  c.addLine(devLine(0, "a2a", 6, 1, 1200000, 1250000, 20, 1));
  c.addLine(devLine(0, "compute", 4, 1, 1050000, 1100000, 0, -1));
  c.addLine(devLine(0, "a2a", 4, 1, 1350000, 1360000, 3000, 1, "engine", true));
  // The same CU number on another XCC or GPU is another CU.
  c.addLine(devLine(0, "a2a", 4, 0, 1400000, 1500000, 50, 1));
  c.addLine(devLine(1, "a2a", 4, 1, 1400000, 1500000, 60, 0));
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> copies;
  std::vector<CollectorWarning> warnings;
  std::vector<DeviceSpanRecord> raw;
  c.finish(d, copies, warnings, &raw);
  CHECK((raw.size() == 11));
  bool sawShifted = false;
  for (const DeviceSpanRecord& s : raw)
    sawShifted = sawShifted || (s.startNs == 350000 && s.mover == "engine" && s.pull);
  CHECK((sawShifted));
  // The fold is what it was without the spans: the compute scope is a dispatch of its own
  // (no profiler here), the transfers copies by label, GPU, peer, mover and direction.
  std::uint64_t copiedBytes = 0;
  for (const CopyRecord& x : copies) copiedBytes += x.bytes;
  CHECK((copiedBytes == 100 + 200 + 400 + 800 + 1000 + 10 + 20 + 3000 + 50 + 60));
  CHECK((d.size() == 1 && d[0].name == "compute" && d[0].cusSeen == 1));

  const std::vector<DeviceSpanRecord> merged = mergeTouchingSpans(raw);
  CHECK((merged.size() == 8));
  for (std::size_t i = 1; i < merged.size(); ++i) CHECK((merged[i - 1].startNs <= merged[i].startNs));
  const auto find = [&](int gpu, unsigned xcc, unsigned cu, const std::string& label, const std::string& mover,
                        std::int64_t start) {
    for (const DeviceSpanRecord& s : merged)
      if (s.gpu == gpu && s.xcc == xcc && s.cu == cu && s.label == label && s.mover == mover && s.startNs == start)
        return &s;
    return static_cast<const DeviceSpanRecord*>(nullptr);
  };
  const DeviceSpanRecord* busy = find(0, 1, 4, "a2a", "cu", 100000);
  CHECK((busy && busy->endNs == 300000 && busy->bytes == 700 && busy->peer == 1 && !busy->pull));
  const DeviceSpanRecord* afterGap = find(0, 1, 4, "a2a", "cu", 300001);
  CHECK((afterGap && afterGap->endNs == 400000 && afterGap->bytes == 800));
  const DeviceSpanRecord* other = find(0, 1, 5, "a2a", "cu", 100000);
  CHECK((other && other->bytes == 1000));
  const DeviceSpanRecord* touching = find(0, 1, 6, "a2a", "cu", 100000);
  CHECK((touching && touching->endNs == 250000 && touching->bytes == 30));
  const DeviceSpanRecord* scope = find(0, 1, 4, "compute", "cu", 50000);
  CHECK((scope && scope->endNs == 100000 && scope->peer == -1 && scope->bytes == 0));
  const DeviceSpanRecord* pulled = find(0, 1, 4, "a2a", "engine", 350000);
  CHECK((pulled && pulled->pull && pulled->bytes == 3000));
  CHECK((find(0, 0, 4, "a2a", "cu", 400000) != nullptr && find(1, 1, 4, "a2a", "cu", 400000) != nullptr));

  // The cap keeps the first N in time order and says how many it dropped.
  std::vector<DeviceSpanRecord> capped = merged;
  std::vector<CollectorWarning> capWarnings;
  capSpans(capped, 3, capWarnings);
  CHECK((capped.size() == 3));
  for (std::size_t i = 0; i < capped.size(); ++i)
    CHECK((capped[i].startNs == merged[i].startNs && capped[i].cu == merged[i].cu));
  CHECK((hasWarning(capWarnings, "device-spans-capped", "5 of 8 device-trace spans")));
  std::vector<DeviceSpanRecord> all = merged;
  std::vector<CollectorWarning> none;
  capSpans(all, merged.size(), none);
  CHECK((all.size() == merged.size() && none.empty()));
  capSpans(all, 0, none);
  CHECK((all.empty() && none.empty()));
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void rocprofSamples(const std::string& fixtures) {
  const auto rows = parseCsv(readAll(fixtures + "/kernel_trace.csv"));
  CHECK((rows.size() >= 2));
  if (!rows.empty()) {
    // Quoted names keep their commas.
    CHECK((rows[0].at("Kernel_Name") == "void addition_kernel<float>(float*, float const*, float const*, int, int)"));
    CHECK((rows[0].at("Agent_Id") == "2"));
  }
  char dir[] = "/tmp/sdma-run-test-XXXXXX";
  REQUIRE_MESSAGE(mkdtemp(dir) != nullptr, "a temporary directory");
  const std::string sub = std::string(dir) + "/node/1234";
  CHECK((std::system(("mkdir -p " + sub + " && cp " + fixtures + "/kernel_trace.csv " + sub +
                      "/1234_kernel_trace.csv && cp " + fixtures + "/memory_copy_trace.csv " + sub +
                      "/1234_memory_copy_trace.csv")
                         .c_str()) == 0));
  TraceCollector c(0);
  std::vector<CollectorWarning> warnings;
  sdma::ingest::Control control = sdma::ingest::Control::detached();
  const std::size_t n = readRocprofDir(dir, 0, c, warnings, control);
  CHECK((n == rows.size() + parseCsv(readAll(fixtures + "/memory_copy_trace.csv")).size()));
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> copies;
  c.finish(d, copies, warnings);
  CHECK((!d.empty() && d[0].source == "rocprofv3" && d[0].gpu == 0 && d[0].block[0] == 64 && d[0].grid[0] == 1024));
  CHECK((!copies.empty() && copies[0].srcGpu == -1 && copies[0].dstGpu == 0 && copies[0].label == "HOST_TO_DEVICE"));
  bool noBytes = false;
  for (const auto& w : warnings) noBytes = noBytes || w.code == "rocprofv3-no-bytes";
  CHECK((noBytes));  // the sample predates the Bytes column
  removeTree(dir);
  CHECK((access(dir, F_OK) != 0));
}

#if SDMA_PROBE_HAVE_SQLITE
// A database from SQL text (the fixture script, then changes to it).
bool makeDb(const std::string& path, const std::string& sql) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return false;
  char* error = nullptr;
  const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK;
  if (!ok) std::fprintf(stderr, "sql: %s\n", error ? error : "?");
  sqlite3_free(error);
  sqlite3_close(db);
  return ok;
}

struct Read {
  std::size_t count = 0;
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> c;
  std::vector<CollectorWarning> warnings;
};

Read readDb(const std::string& path, std::int64_t programStart = 0, std::int64_t offset = 0) {
  Read r;
  TraceCollector collector(programStart);
  sdma::ingest::Control control = sdma::ingest::Control::detached();
  r.count = readRocpdDatabase(path, offset, collector, r.warnings, control);
  collector.finish(r.d, r.c, r.warnings);
  return r;
}

void rocpdFixture(const std::string& fixtures) {
  const std::string script = readAll(fixtures + "/make-fixture.sql");
  CHECK((!script.empty()));
  char dir[] = "/tmp/sdma-rocpd-test-XXXXXX";
  REQUIRE_MESSAGE(mkdtemp(dir) != nullptr, "a temporary directory");
  const std::string db = std::string(dir) + "/1234_results.db";
  CHECK((makeDb(db, script)));

  // Program started at rocprofv3 time 9007199254740000; the clocks differ by 500 ns.
  const Read r = readDb(db, 9007199254740000LL, 500);
  CHECK((r.count == 7));
  CHECK((r.warnings.empty()));
  CHECK((r.d.size() == 4 && r.c.size() == 3));
  if (r.d.size() == 4 && r.c.size() == 3) {
    const DispatchRecord& k = r.d[0];
    CHECK((k.name == "fusedComputeA2a(float const*, float* const*, int, int, unsigned long)"));
    CHECK((k.mangled == "_Z15fusedComputeA2aPKfPKPfiim"));
    CHECK((k.source == "rocprofv3"));
    CHECK((k.startNs == 1500 && k.endNs == 181500));  // exact beyond 2^53
    CHECK((k.gpu == 0 && r.d[1].gpu == 1));
    CHECK((k.grid[0] == 65536 && k.block[0] == 256 && k.correlationId == 12));
    // Process 2's agent 5 is absolute index 2: GPU 1.
    CHECK((r.d[2].name == "computeKernel(float*, int)" && r.d[2].gpu == 1));
    CHECK((r.d[2].grid[1] == 8 && r.d[2].block[1] == 2 && r.d[2].correlationId == 15));
    CHECK((r.d[3].startNs == 560501 && r.d[3].endNs == 741499));
    CHECK((r.c[0].srcGpu == -1 && r.c[0].dstGpu == 0 && r.c[0].bytes == 8388608 && r.c[0].label == "HOST_TO_DEVICE"));
    CHECK((r.c[0].startNs == 1493 && r.c[0].endNs == 2000));
    CHECK((r.c[0].mover == "engine" && r.c[0].initiator == "host" && r.c[0].source == "rocprofv3"));
    CHECK((r.c[1].srcGpu == 0 && r.c[1].dstGpu == 1 && r.c[1].bytes == 16777216 && r.c[1].label == "DEVICE_TO_DEVICE"));
    CHECK((r.c[2].srcGpu == 1 && r.c[2].dstGpu == -1 && r.c[2].bytes == 4096 && r.c[2].label == "DEVICE_TO_HOST"));
  }

  // The committed fixture.db is this script's output.
  const Read committed = readDb(fixtures + "/fixture.db", 9007199254740000LL, 500);
  CHECK((committed.count == r.count && committed.warnings.empty()));
  for (std::size_t i = 0; i < committed.d.size() && i < r.d.size(); ++i) {
    CHECK((committed.d[i].name == r.d[i].name && committed.d[i].startNs == r.d[i].startNs &&
           committed.d[i].gpu == r.d[i].gpu));
  }

  // Run mode finds a database where rocprofv3 left one instead of CSV files.
  {
    TraceCollector c(0);
    std::vector<CollectorWarning> warnings;
    sdma::ingest::Control control = sdma::ingest::Control::detached();
    CHECK((readRocprofDir(dir, 0, c, warnings, control) == 7));
    CHECK((warnings.empty()));
  }

  // Without the views: the same launches, since only the tables are read (views never are).
  CHECK((makeDb(db, script + "DROP VIEW kernels; DROP VIEW memory_copies;")));
  const Read tables = readDb(db, 9007199254740000LL, 500);
  CHECK((tables.count == 7 && tables.warnings.empty()));
  if (tables.d.size() == 4 && tables.c.size() == 3) {
    CHECK((tables.d[0].name == r.d[0].name && tables.d[0].startNs == 1500 && tables.d[2].gpu == 1));
    CHECK((tables.d[0].correlationId == r.d[0].correlationId && tables.d[0].correlationId == 12));
    CHECK((tables.c[1].label == "DEVICE_TO_DEVICE" && tables.c[1].dstGpu == 1));
  }

  // No kernels anywhere: a warning naming what is missing; the copies still come.
  CHECK((makeDb(db, script + "DROP VIEW kernels; DROP TABLE rocpd_kernel_dispatch;")));
  const Read noKernels = readDb(db);
  CHECK((noKernels.d.empty() && noKernels.c.size() == 3));
  CHECK((hasWarning(noKernels.warnings, "rocpd-schema", "no table rocpd_kernel_dispatch")));

  // A column missing from both the view and the table.
  CHECK((makeDb(db, script + "DROP VIEW memory_copies; ALTER TABLE rocpd_memory_copy DROP COLUMN size;"
                             "CREATE VIEW memory_copies AS SELECT id, start, \"end\", src_agent_id, dst_agent_id "
                             "FROM rocpd_memory_copy;")));
  const Read noSize = readDb(db);
  CHECK((noSize.c.empty() && noSize.d.size() == 4));
  CHECK((hasWarning(noSize.warnings, "rocpd-schema", "table rocpd_memory_copy lacks size")));

  // No agent table: the agents that ran kernels are the GPUs, and the warning says so.
  CHECK((makeDb(db, script + "DROP TABLE rocpd_info_agent;")));
  const Read noAgents = readDb(db);
  CHECK((noAgents.d.size() == 4 && hasWarning(noAgents.warnings, "rocpd-schema", "no table rocpd_info_agent")));
  CHECK((noAgents.d.size() == 4 && noAgents.d[2].gpu == 2));

  // Nothing rocpd about it, or not a database at all.
  CHECK((makeDb(db, "CREATE TABLE other (x INTEGER);")));
  const Read other = readDb(db);
  CHECK((other.count == 0 && hasWarning(other.warnings, "rocpd-schema", "not a rocpd database")));
  {
    std::FILE* f = std::fopen(db.c_str(), "w");
    if (f) {
      std::fputs("Kernel_Name,Start_Timestamp\n", f);
      std::fclose(f);
    }
  }
  const Read text = readDb(db);
  CHECK((text.count == 0 && hasWarning(text.warnings, "rocpd-unreadable")));
  const Read missing = readDb(std::string(dir) + "/none.db");
  CHECK((missing.count == 0 && hasWarning(missing.warnings, "rocpd-unreadable")));
  removeTree(dir);
}
#else
void rocpdFixture(const std::string& fixtures) {
  // Built without SQLite3: the reader says so instead of reading nothing quietly.
  TraceCollector c(0);
  std::vector<CollectorWarning> warnings;
  CHECK((!rocpdSupported()));
  sdma::ingest::Control control = sdma::ingest::Control::detached();
  CHECK((readRocpdDatabase(fixtures + "/fixture.db", 0, c, warnings, control) == 0));
  CHECK((hasWarning(warnings, "rocpd-unsupported", "without SQLite3")));
}
#endif

}  // namespace

TEST_CASE("jsonLines") { jsonLines(); }
TEST_CASE("cuptiClockAndFolding") { cuptiClockAndFolding(); }
TEST_CASE("deviceSpans") { deviceSpans(); }
// The fixture directories are the test's arguments (ctest passes test/fixtures/rocprofv3 and test/fixtures/rocpd).
TEST_CASE("rocprofSamples") { rocprofSamples(sdma::testing::appArg(0, "test/fixtures/rocprofv3")); }
TEST_CASE("rocpdFixture") { rocpdFixture(sdma::testing::appArg(1, "test/fixtures/rocpd")); }
