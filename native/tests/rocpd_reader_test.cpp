// The rocpd (SQLite) reader on hostile input: recursive views named like what it reads, a
// virtual table, a value over SQLite's length limit, times at the ends of int64, spans that
// end before they start, grid sizes no int holds, table names made to break out of SQL, a
// FIFO and a link to /dev/zero, cancellation and the collector's cap; and on good input: the
// format fixture, and the per-process (suffixed) tables rocprofv3 really writes. Each case
// names what the reader must say instead of looping, flooding memory or disk, wrapping a
// number or reading what it must not.
//
// The cases that could loop or eat memory run in a child process with a time limit and
// address-space and file-size limits, so a regression fails here instead of taking the
// machine down.
//
// Usage: rocpd_reader_test FIXTURES [doctest options]   (a failed check names its case)
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#if SDMA_PROBE_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "util/read_control.hpp"
#include "profile/rocpd_reader.hpp"
#include "profile/trace_collector.hpp"
#include "doctest_support.hpp"

using sdma::ingest::Control;
using sdma::runmode::CollectorLimits;
using sdma::runmode::CollectorWarning;
using sdma::runmode::CopyRecord;
using sdma::runmode::DispatchRecord;
using sdma::runmode::readRocpdDatabase;
using sdma::runmode::TraceCollector;
using sdma::testing::GiB;
using sdma::testing::MiB;

namespace {

std::string gFixtures;

// A doctest check that also counts its failures: a child of isolated() exits with whether its
// own checks passed.
int gFailures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) ++gFailures;
  CHECK_MESSAGE(ok, what);
}

bool warns(const std::vector<CollectorWarning>& warnings, const std::string& code, const std::string& text = "") {
  for (const CollectorWarning& w : warnings)
    if (w.code == code && w.message.find(text) != std::string::npos) return true;
  return false;
}

#if SDMA_PROBE_HAVE_SQLITE

void printWarnings(const std::vector<CollectorWarning>& warnings) {
  for (const CollectorWarning& w : warnings) {
    std::printf("      warning %s: %s\n", w.code.c_str(), w.message.substr(0, 300).c_str());
  }
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

long maxRssKiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Runs `body` in a child process limited to `seconds` of time, 2 GiB of address space and
// 256 MiB per file written (the old reader spilled an endless view into a temporary file);
// the child's own checks print as usual and its exit status says whether they passed.
void isolated(const std::string& what, unsigned seconds, const std::function<void()>& body) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    rlimit as{2 * GiB, 2 * GiB};
    setrlimit(RLIMIT_AS, &as);
    rlimit fsize{256 * MiB, 256 * MiB};
    setrlimit(RLIMIT_FSIZE, &fsize);
    alarm(seconds);
    gFailures = 0;  // the child's own checks only
    body();
    std::fflush(stdout);
    _exit(gFailures == 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const bool exited = WIFEXITED(status);
  expect((exited && WEXITSTATUS(status) == 0),
         what + (exited ? (WEXITSTATUS(status) == 0 ? "" : ": checks failed")
                        : std::string(": the child died of signal ") + std::to_string(WTERMSIG(status)) +
                              (WTERMSIG(status) == SIGALRM ? " (it ran past " + std::to_string(seconds) + " s)" : "")));
}

struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/sdma-rocpd-test-XXXXXX";
    path = mkdtemp(name) != nullptr ? name : "/tmp";
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// A database from SQL text, written with SQLite's defaults (what any tool could write).
bool makeDb(const std::string& path, const std::string& sql) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  char* error = nullptr;
  const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK;
  if (!ok) std::printf("      sql: %s\n", error ? error : "?");
  sqlite3_free(error);
  sqlite3_close(db);
  return ok;
}

std::string fixtureScript() { return readAll(gFixtures + "/rocpd/make-fixture.sql"); }

struct Read {
  std::size_t count = 0;
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> c;
  std::vector<CollectorWarning> warnings;
  double seconds = 0;
  std::uint64_t polls = 0;
  bool cancelled = false;
};

Read readDb(const std::string& path, std::int64_t programStart = 0, std::int64_t offset = 0,
            std::uint64_t cancelAfter = 0, CollectorLimits limits = {}) {
  Read r;
  TraceCollector collector(programStart, limits);
  Control control = Control::detached(cancelAfter);
  const auto t0 = std::chrono::steady_clock::now();
  r.count = readRocpdDatabase(path, offset, collector, r.warnings, control);
  r.seconds = secondsSince(t0);
  r.polls = control.polls();
  r.cancelled = control.cancelled();
  collector.finish(r.d, r.c, r.warnings);
  return r;
}

// The checks of the fixture's seven records as the reader has always read them (program
// started at rocprofv3 time 9007199254740000, the clocks 500 ns apart).
void checkFixtureRecords(const Read& r, const std::string& what) {
  expect((r.count == 7 && r.d.size() == 4 && r.c.size() == 3), what + ": 4 dispatches and 3 copies");
  if (r.d.size() != 4 || r.c.size() != 3) {
    printWarnings(r.warnings);
    return;
  }
  const DispatchRecord& k = r.d[0];
  expect((k.name == "fusedComputeA2a(float const*, float* const*, int, int, unsigned long)" &&
          k.mangled == "_Z15fusedComputeA2aPKfPKPfiim" && k.source == "rocprofv3"),
         what + ": names");
  expect((k.startNs == 1500 && k.endNs == 181500), what + ": times exact beyond 2^53");
  expect((k.gpu == 0 && r.d[1].gpu == 1), what + ": GPUs by absolute index");
  expect((k.grid[0] == 65536 && k.block[0] == 256 && k.correlationId == 12), what + ": sizes and correlation id");
  expect((r.d[2].name == "computeKernel(float*, int)" && r.d[2].gpu == 1 && r.d[2].grid[1] == 8 &&
          r.d[2].block[1] == 2 && r.d[2].correlationId == 15),
         what + ": process 2's agent 5 is GPU 1");
  expect((r.d[3].startNs == 560501 && r.d[3].endNs == 741499), what + ": the last dispatch's times");
  expect((r.c[0].srcGpu == -1 && r.c[0].dstGpu == 0 && r.c[0].bytes == 8388608 && r.c[0].label == "HOST_TO_DEVICE" &&
          r.c[0].startNs == 1493 && r.c[0].endNs == 2000 && r.c[0].mover == "engine" && r.c[0].initiator == "host" &&
          r.c[0].source == "rocprofv3"),
         what + ": the host-to-device copy");
  expect((r.c[1].srcGpu == 0 && r.c[1].dstGpu == 1 && r.c[1].bytes == 16777216 && r.c[1].label == "DEVICE_TO_DEVICE"),
         what + ": the device-to-device copy");
  expect((r.c[2].srcGpu == 1 && r.c[2].dstGpu == -1 && r.c[2].bytes == 4096 && r.c[2].label == "DEVICE_TO_HOST"),
         what + ": the device-to-host copy");
}

// An endless view: every row leads to one more.
std::string endlessSelect(const std::string& columns) {
  return "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT " + columns + " FROM r";
}

// ---------------------------------------------------------------------------------------
// The fixture reads as it always did.

void fixture() {
  TempDir dir;
  const std::string db = dir.path + "/1234_results.db";
  expect((makeDb(db, fixtureScript())), "fixture: built from its script");
  const Read r = readDb(db, 9007199254740000LL, 500);
  checkFixtureRecords(r, "fixture");
  expect((r.warnings.empty()), "fixture: no warning");
  printWarnings(r.warnings);
  const Read committed = readDb(gFixtures + "/rocpd/fixture.db", 9007199254740000LL, 500);
  checkFixtureRecords(committed, "committed fixture.db");
  expect((committed.warnings.empty()), "committed fixture.db: no warning");

  // Without the views: the same records (they come from the tables either way).
  expect((makeDb(db, fixtureScript() + "DROP VIEW kernels; DROP VIEW memory_copies;")), "fixture without views: built");
  const Read tables = readDb(db, 9007199254740000LL, 500);
  checkFixtureRecords(tables, "fixture without views");
  expect((tables.warnings.empty()), "fixture without views: no warning");

  // No agent table: the agents that ran kernels are the GPUs, and the warning says so.
  expect((makeDb(db, fixtureScript() + "DROP TABLE rocpd_info_agent;")), "fixture without agents: built");
  const Read noAgents = readDb(db);
  expect((noAgents.d.size() == 4 && noAgents.d[2].gpu == 2 &&
          warns(noAgents.warnings, "rocpd-schema", "no table rocpd_info_agent")),
         "fixture without agents: GPUs numbered by the agents that ran kernels");

#if SQLITE_VERSION_NUMBER >= 3031000
  // The heap limit is the process's: put back as it was.
  const sqlite3_int64 before = sqlite3_hard_heap_limit64(-1);
  readDb(db);
  expect((sqlite3_hard_heap_limit64(-1) == before), "SQLite's heap limit is put back after the read");
#endif
}

// The fixture moved into tables with `suffix`, and rocprofv3's views over them.
std::string suffixed(const std::string& suffix) {
  std::string sql = fixtureScript() + "DROP VIEW kernels; DROP VIEW memory_copies;";
  for (const char* t : {"rocpd_info_agent", "rocpd_string", "rocpd_info_kernel_symbol", "rocpd_event",
                        "rocpd_kernel_dispatch", "rocpd_memory_copy"}) {
    sql += std::string("ALTER TABLE ") + t + " RENAME TO \"" + t + suffix + "\";";
    sql += std::string("CREATE VIEW ") + t + " AS SELECT * FROM \"" + t + suffix + "\";";
  }
  // rocprofv3's convenience views, over the unsuffixed views.
  sql +=
      "CREATE VIEW kernels AS SELECT K.id, S.display_name AS name, K.agent_id, K.start, K.\"end\", "
      "E.correlation_id FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id "
      "LEFT JOIN rocpd_event E ON E.id = K.event_id;"
      "CREATE VIEW memory_copies AS SELECT M.id, N.string AS name, M.start, M.\"end\", M.size, M.src_agent_id, "
      "M.dst_agent_id FROM rocpd_memory_copy M LEFT JOIN rocpd_string N ON N.id = M.name_id;";
  return sql;
}

// ---------------------------------------------------------------------------------------
// Views: never read.

void recursiveViews() {
  // The old reader read the documented `kernels` view first: this one never ends, and it
  // held every row until memory was gone (22.5 GB from a 4 KB file).
  isolated("a recursive view named kernels: not read, memory and time bounded", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/kernels.db";
    expect((makeDb(db, "CREATE VIEW kernels AS " +
                           endlessSelect(
                               "printf('%.200c', 'k') || n AS name, 1 AS agent_id, n AS start, n + 1 AS \"end\"") +
                           ";")),
           "built");
    const long rss0 = maxRssKiB();
    const Read r = readDb(db);
    const long grown = maxRssKiB() - rss0;
    expect((r.count == 0 && r.d.empty()), "nothing read");
    expect((warns(r.warnings, "rocpd-schema", "not a rocpd database") && warns(r.warnings, "rocpd-schema", "view")),
           "the warning says the view was not read");
    expect((grown < 64 * 1024), "memory grew " + std::to_string(grown) + " KiB (< 64 MiB)");
    expect((r.seconds < 5), "returned in " + std::to_string(r.seconds) + " s");
    printWarnings(r.warnings);
  });

  // Named like the table itself, with no `kernels`: the old reader joined it to the symbol
  // table, and SQLite materialised the endless view into a temporary file on disk.
  isolated("a recursive view named rocpd_kernel_dispatch: not read, memory and time bounded", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/dispatch-view.db";
    expect(
        (makeDb(db,
                "CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, kernel_name TEXT, display_name TEXT);"
                "INSERT INTO rocpd_info_kernel_symbol VALUES (1, '_Z1kv', 'k()');"
                "CREATE VIEW rocpd_kernel_dispatch AS " +
                    endlessSelect("n AS id, 1 AS agent_id, 1 AS kernel_id, n AS start, n + 1 AS \"end\"") +
                    ";"
                    "CREATE VIEW rocpd_memory_copy_0123abcd AS " +
                    endlessSelect("n AS id, n AS start, n + 1 AS \"end\", 8 AS size, 1 AS src_agent_id, "
                                  "2 AS dst_agent_id") +
                    ";")),
        "built");
    const long rss0 = maxRssKiB();
    const Read r = readDb(db);
    const long grown = maxRssKiB() - rss0;
    expect((r.count == 0), "nothing read");
    expect((warns(r.warnings, "rocpd-schema", "2 views")), "the warning counts the views not read");
    expect((grown < 64 * 1024), "memory grew " + std::to_string(grown) + " KiB (< 64 MiB)");
    expect((r.seconds < 5), "returned in " + std::to_string(r.seconds) + " s");
    printWarnings(r.warnings);
  });

  // A view whose sqlite_master row says "table" (a file can say anything there): SQLite
  // itself refuses that schema; either way the endless view is never run.
  isolated("a view listed as a table in sqlite_master: never run", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/listed-as-table.db";
    expect((makeDb(db, suffixed("_0123abcd") +
                           "DROP VIEW kernels; DROP VIEW rocpd_kernel_dispatch;"
                           "CREATE VIEW rocpd_kernel_dispatch AS " +
                           endlessSelect("n AS id, 2 AS agent_id, 1 AS kernel_id, n AS start, n + 1 AS \"end\"") +
                           ";"
                           "PRAGMA writable_schema = ON;"
                           "UPDATE sqlite_master SET type = 'table' WHERE name = 'rocpd_kernel_dispatch';"
                           "PRAGMA writable_schema = OFF;")),
           "built");
    const Read r = readDb(db);
    expect((r.d.size() <= 4), "no record from the view (" + std::to_string(r.d.size()) + " dispatches)");
    expect((r.seconds < 5), "returned in " + std::to_string(r.seconds) + " s");
    printWarnings(r.warnings);
  });

  // A virtual table runs its module's code over the file's data: not read either.
  isolated("a virtual table named rocpd_kernel_dispatch: not read", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/virtual.db";
    expect(
        (makeDb(db,
                "CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, kernel_name TEXT, display_name TEXT);"
                "INSERT INTO rocpd_info_kernel_symbol VALUES (1, '_Z1kv', 'k()');"
                "CREATE VIRTUAL TABLE rocpd_kernel_dispatch USING fts5(agent_id, kernel_id, start, \"end\");"
                "INSERT INTO rocpd_kernel_dispatch VALUES (1, 1, 100, 200);")),
        "built");
    const Read r = readDb(db);
    expect((r.count == 0 && r.d.empty()), "nothing read from it (" + std::to_string(r.d.size()) + " dispatches)");
    expect((warns(r.warnings, "rocpd-schema", "not a rocpd database")), "said: not a rocpd database");
    printWarnings(r.warnings);
  });
}

// ---------------------------------------------------------------------------------------
// Values over SQLite's length limit.

void hugeCells() {
  isolated("a kernel name of 4 MiB: a limit warning, no crash, the rest read", 60, [] {
    TempDir dir;
    const std::string db = dir.path + "/huge-name.db";
    expect(
        (makeDb(db,
                fixtureScript() +
                    "UPDATE rocpd_info_kernel_symbol SET display_name = printf('%.*c', 4194304, 'x') WHERE id = 2;")),
        "built");
    const Read r = readDb(db);
    expect((warns(r.warnings, "rocpd-limit", "1 MiB") && warns(r.warnings, "rocpd-limit", "incomplete")),
           "rocpd-limit says the 1 MiB limit and that records may be incomplete");
    expect((r.c.size() == 3), "the copies still read");
    bool huge = false;
    for (const DispatchRecord& d : r.d) huge = huge || d.name.size() > 1024 * 1024;
    expect((!huge), "no 4 MiB name kept");
    printWarnings(r.warnings);
  });

  isolated("a 64 MiB copy name: a limit warning, memory bounded", 60, [] {
    TempDir dir;
    const std::string db = dir.path + "/huge-blob.db";
    expect((makeDb(db, fixtureScript() + "UPDATE rocpd_string SET string = zeroblob(64 * 1024 * 1024) WHERE id = 2;")),
           "built");
    const long rss0 = maxRssKiB();
    const Read r = readDb(db);
    const long grown = maxRssKiB() - rss0;
    expect((warns(r.warnings, "rocpd-limit", "1 MiB")), "rocpd-limit names the 1 MiB limit");
    expect((r.d.size() == 4), "the dispatches still read");
    expect((grown < 32 * 1024), "memory grew " + std::to_string(grown) + " KiB (< 32 MiB)");
    printWarnings(r.warnings);
  });

  // A huge value in a column this reader does not ask for is never decoded.
  isolated("a 64 MiB blob in a column not read: everything read, memory bounded", 60, [] {
    TempDir dir;
    const std::string db = dir.path + "/unread-blob.db";
    expect((makeDb(db, fixtureScript() +
                           "ALTER TABLE rocpd_memory_copy ADD COLUMN extdata BLOB;"
                           "UPDATE rocpd_memory_copy SET extdata = zeroblob(64 * 1024 * 1024) WHERE id = 2;")),
           "built");
    const long rss0 = maxRssKiB();
    const Read r = readDb(db);
    const long grown = maxRssKiB() - rss0;
    expect((r.count == 7 && r.warnings.empty()), "all 7 records, no warning");
    expect((grown < 32 * 1024), "memory grew " + std::to_string(grown) + " KiB (< 32 MiB)");
    printWarnings(r.warnings);
  });
}

// ---------------------------------------------------------------------------------------
// Numbers.

void int64Extremes() {
  isolated("times at the ends of int64: dropped with a warning, never wrapped", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/extremes.db";
    const std::string min = "-9223372036854775808", max = "9223372036854775807";
    expect((makeDb(db, fixtureScript() +
                           "INSERT INTO rocpd_kernel_dispatch VALUES"
                           // its length does not fit
                           " (10, 2, 1, " +
                           min + ", " + max +
                           ", 256, 1, 1, 1, 1, 1, NULL),"
                           // fits, until the clock offset below is added
                           " (11, 2, 1, 9223372036854775000, " +
                           max +
                           ", 256, 1, 1, 1, 1, 1, NULL),"
                           // a time as a real beyond int64, and as text
                           " (12, 2, 1, 1e300, 2e300, 256, 1, 1, 1, 1, 1, NULL),"
                           " (13, 2, 1, 'soon', 'later', 256, 1, 1, 1, 1, 1, NULL);"
                           "INSERT INTO rocpd_memory_copy VALUES (10, 1, 1, 2, 64, " +
                           min + ", " + max + ", NULL);")),
           "built");
    const Read r = readDb(db, 0, 1000);
    expect((r.d.size() == 4 && r.c.size() == 3),
           "only the fixture's records kept (" + std::to_string(r.d.size()) + ", " + std::to_string(r.c.size()) + ")");
    expect((warns(r.warnings, "rocpd-time-out-of-range", "5 rows")), "rocpd-time-out-of-range counts the 5 rows");
    bool ordered = true;
    for (const DispatchRecord& d : r.d) ordered = ordered && d.endNs >= d.startNs;
    for (const CopyRecord& c : r.c) ordered = ordered && c.endNs >= c.startNs;
    expect((ordered), "every record kept ends after it starts");
    printWarnings(r.warnings);

    // The largest offset the other way round: the negative times no longer fit.
    const Read back = readDb(db, 0, std::numeric_limits<std::int64_t>::min());
    bool backOrdered = true;
    for (const DispatchRecord& d : back.d) backOrdered = backOrdered && d.endNs >= d.startNs;
    expect((backOrdered && warns(back.warnings, "rocpd-time-out-of-range")), "an offset of INT64_MIN: no wrap, said");
  });

  isolated("a span that ends before it starts: dropped with a warning", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/reversed.db";
    expect(
        (makeDb(db, fixtureScript() +
                        "INSERT INTO rocpd_kernel_dispatch VALUES (10, 2, 1, 9007199256000000, 9007199255000000, 256, "
                        "1, 1, 1, 1, 1, NULL);"
                        "INSERT INTO rocpd_memory_copy VALUES (10, 1, 1, 2, 64, 2000, 1000, NULL);")),
        "built");
    const Read r = readDb(db);
    expect((r.d.size() == 4 && r.c.size() == 3), "the reversed rows not kept");
    expect((warns(r.warnings, "rocpd-span-reversed", "2 rows")), "rocpd-span-reversed counts both");
    printWarnings(r.warnings);
  });

  isolated("grid sizes no int holds: read as 0 with a warning", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/grid.db";
    expect(
        (makeDb(db, fixtureScript() +
                        "UPDATE rocpd_kernel_dispatch SET grid_size_x = 4294967296, grid_size_y = -1 WHERE id = 1;")),
        "built");
    const Read r = readDb(db);
    expect((r.d.size() == 4 && r.d[0].grid[0] == 0 && r.d[0].grid[1] == 0 && r.d[0].grid[2] == 1),
           "the dispatch kept, its impossible sizes 0");
    expect((warns(r.warnings, "rocpd-grid-out-of-range", "2 grid")), "rocpd-grid-out-of-range counts both sizes");
    printWarnings(r.warnings);
  });
}

// ---------------------------------------------------------------------------------------
// Tables as rocprofv3 writes them: per process, suffixed, with views over them.

void suffixedTables() {
  TempDir dir;
  const std::string db = dir.path + "/suffixed.db";
  expect((makeDb(db, suffixed("_0123abcd"))), "suffixed: built");
  const Read r = readDb(db, 9007199254740000LL, 500);
  checkFixtureRecords(r, "suffixed tables with rocprofv3's views");
  expect((r.warnings.empty()), "suffixed: no warning");
  printWarnings(r.warnings);

  // A merged database: a second process's tables (a suffix with '-' in it), no views over
  // them. Its agent ids mean other GPUs: its agent 2 is absolute index 2 (GPU 1).
  const std::string more =
      "CREATE TABLE \"rocpd_info_agent_fedc-ba98\" (id INTEGER PRIMARY KEY, pid INTEGER, type TEXT, "
      "absolute_index INTEGER, name TEXT);"
      "INSERT INTO \"rocpd_info_agent_fedc-ba98\" VALUES (1, 3, 'CPU', 0, 'cpu'), (2, 3, 'GPU', 2, 'gfx950');"
      "CREATE TABLE \"rocpd_info_kernel_symbol_fedc-ba98\" (id INTEGER PRIMARY KEY, kernel_name TEXT, display_name "
      "TEXT);"
      "INSERT INTO \"rocpd_info_kernel_symbol_fedc-ba98\" VALUES (1, '_Z5otherv', 'other()');"
      "CREATE TABLE \"rocpd_kernel_dispatch_fedc-ba98\" (id INTEGER PRIMARY KEY, agent_id INTEGER, kernel_id INTEGER, "
      "start INTEGER, \"end\" INTEGER);"
      "INSERT INTO \"rocpd_kernel_dispatch_fedc-ba98\" VALUES (1, 2, 1, 9007199256000000, 9007199256100000);";
  expect((makeDb(db, suffixed("_0123abcd") + more)), "merged: built");
  const Read merged = readDb(db, 9007199254740000LL, 500);
  expect((merged.count == 8 && merged.d.size() == 5),
         "merged: both processes' dispatches (" + std::to_string(merged.count) + ")");
  if (merged.d.size() == 5) {
    expect((merged.d[4].name == "other()" && merged.d[4].gpu == 1 && merged.d[4].correlationId == -1),
           "merged: the second process's agent 2 is GPU 1, no correlation id without an event table");
    expect((merged.d[0].gpu == 0 && merged.d[0].correlationId == 12),
           "merged: the first process's agent 2 is still GPU 0");
  }
  expect((merged.warnings.empty()), "merged: no warning");
  printWarnings(merged.warnings);
}

// Names made to break out of the SQL they are put into: never used.
void craftedNames() {
  TempDir dir;
  const std::string db = dir.path + "/names.db";
  std::string sql = fixtureScript();
  for (const char* name :
       {"rocpd_kernel_dispatch_x\"\" FROM rocpd_string; --", "rocpd_kernel_dispatch_a;DROP TABLE rocpd_string",
        "rocpd_kernel_dispatch_q'x", "rocpd_memory_copy_a b", "rocpd_memory_copy_\xc3\xa9"}) {
    sql += std::string("CREATE TABLE \"") + name +
           "\" (id INTEGER PRIMARY KEY, agent_id INTEGER, kernel_id INTEGER, start INTEGER, \"end\" INTEGER, "
           "size INTEGER, src_agent_id INTEGER, dst_agent_id INTEGER);"
           "INSERT INTO \"" +
           name + "\" VALUES (1, 2, 1, 100, 200, 8, 1, 2);";
  }
  expect((makeDb(db, sql)), "crafted names: built");
  const Read r = readDb(db, 9007199254740000LL, 500);
  checkFixtureRecords(r, "crafted names");
  expect((r.warnings.empty()), "crafted names: not used, nothing said");
  printWarnings(r.warnings);
}

// Ids the file claims are keys but repeats: one record per dispatch and copy all the same
// (a join would give one per repeat: 1000 dispatches x 1000 repeats from a 100 kB file).
void repeatedIds() {
  TempDir dir;
  const std::string db = dir.path + "/repeated.db";
  std::string sql = fixtureScript() + "DROP VIEW kernels; DROP VIEW memory_copies;";
  for (const char* t : {"rocpd_info_kernel_symbol", "rocpd_string", "rocpd_event"}) {
    sql += std::string("CREATE TABLE copy AS SELECT * FROM ") + t + "; DROP TABLE " + t + ";" + "CREATE TABLE " + t +
           " AS SELECT * FROM copy; DROP TABLE copy;"
           "INSERT INTO " +
           t + " SELECT * FROM " + t + "; INSERT INTO " + t + " SELECT * FROM " + t + ";";
  }
  expect((makeDb(db, sql)), "repeated ids: built");
  const Read r = readDb(db, 9007199254740000LL, 500);
  checkFixtureRecords(r, "repeated ids");
  expect((r.warnings.empty()), "repeated ids: no warning");
  printWarnings(r.warnings);
}

// ---------------------------------------------------------------------------------------
// The file itself.

void notAFile() {
  isolated("a FIFO: refused at once", 10, [] {
    TempDir dir;
    const std::string path = dir.path + "/fifo.db";
    expect((mkfifo(path.c_str(), 0600) == 0), "FIFO made");
    const Read r = readDb(path);
    expect((r.count == 0 && warns(r.warnings, "rocpd-unreadable", "FIFO")), "rocpd-unreadable: is a FIFO");
    expect((r.seconds < 1), "returned in " + std::to_string(r.seconds) + " s");
  });
  isolated("a link to /dev/zero: refused at once", 10, [] {
    TempDir dir;
    const std::string path = dir.path + "/zero.db";
    expect((symlink("/dev/zero", path.c_str()) == 0), "link made");
    const Read r = readDb(path);
    expect((r.count == 0 && warns(r.warnings, "rocpd-unreadable", "symbolic link")), "rocpd-unreadable: is a link");
  });
  {
    TempDir dir;
    const std::string path = dir.path + "/text.db";
    if (std::FILE* f = std::fopen(path.c_str(), "w")) {
      std::fputs("Kernel_Name,Start_Timestamp\n", f);
      std::fclose(f);
    }
    const Read text = readDb(path);
    expect((text.count == 0 && warns(text.warnings, "rocpd-unreadable", "not a database")),
           "a text file: not a database");
    const Read missing = readDb(dir.path + "/none.db");
    expect((missing.count == 0 && warns(missing.warnings, "rocpd-unreadable")), "no file: rocpd-unreadable");
    // A database left in WAL mode reads as it is (no -wal file is looked for).
    const std::string wal = dir.path + "/wal.db";
    expect((makeDb(wal, "PRAGMA journal_mode = WAL;" + fixtureScript())), "WAL database: built");
    const Read w = readDb(wal, 9007199254740000LL, 500);
    checkFixtureRecords(w, "WAL database");
  }
}

// ---------------------------------------------------------------------------------------
// Cancellation and the cap.

std::string manyDispatches(int n) {
  return fixtureScript() + "INSERT INTO rocpd_kernel_dispatch SELECT 100 + n, 2, 1, 9007199256000000 + 1000 * n, " +
         "9007199256000000 + 1000 * n + 500, 256, 1, 1, 64, 1, 1, NULL FROM (" +
         "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < " + std::to_string(n) +
         ") SELECT n FROM r);";
}

void cancellation() {
  isolated("a cancel stops the read within its polls", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/many.db";
    expect((makeDb(db, manyDispatches(20000))), "built");
    const Read all = readDb(db);
    expect((all.count == 20007), "uncancelled: all " + std::to_string(all.count) + " read");
    for (const std::uint64_t n : {1ULL, 3ULL, 50ULL, 5000ULL}) {
      const Read r = readDb(db, 0, 0, n);
      expect((r.cancelled && r.polls == n && r.count < n),
             "cancel at poll " + std::to_string(n) + ": stopped with " + std::to_string(r.count) + " records read");
      expect((warns(r.warnings, "rocpd-cancelled")), "cancel at poll " + std::to_string(n) + ": rocpd-cancelled said");
    }
    // The process's kind of control: a cancel flag asked every 256 polls.
    bool asked = false;
    Control flagged([&] { return asked = true; }, nullptr);
    TraceCollector c(0);
    std::vector<CollectorWarning> warnings;
    const std::size_t n = readRocpdDatabase(db, 0, c, warnings, flagged);
    expect((asked && flagged.cancelled() && n < 256),
           "a cancel flag set stops the read within 256 polls (" + std::to_string(n) + " records)");
  });

  isolated("the collector's cap stops the read", 30, [] {
    TempDir dir;
    const std::string db = dir.path + "/many.db";
    expect((makeDb(db, manyDispatches(20000))), "built");
    CollectorLimits limits;
    limits.maxDispatches = 10;
    const Read r = readDb(db, 0, 0, 0, limits);
    expect((r.d.size() == 10 && r.c.size() == 3), "10 dispatches kept, the copies still read");
    // One poll per row read: far fewer polls than rows means the read stopped at the cap.
    expect((r.polls > 0 && r.polls < 1000), "stopped reading at the cap (" + std::to_string(r.polls) + " polls)");
  });
}

#endif

}  // namespace

// One test case, in this order. The fixtures directory is the test's first argument (ctest
// passes test/fixtures).
TEST_CASE("rocpd reader") {
  gFixtures = sdma::testing::appArg(0, "the fixtures directory (test/fixtures)");
#if SDMA_PROBE_HAVE_SQLITE
  const std::vector<std::pair<const char*, std::function<void()>>> cases = {
      {"fixture", fixture},
      {"recursiveViews", recursiveViews},
      {"hugeCells", hugeCells},
      {"int64Extremes", int64Extremes},
      {"suffixedTables", suffixedTables},
      {"craftedNames", craftedNames},
      {"repeatedIds", repeatedIds},
      {"notAFile", notAFile},
      {"cancellation", cancellation},
  };
#else
  // Built without SQLite3: the reader says so instead of reading nothing quietly.
  const std::vector<std::pair<const char*, std::function<void()>>> cases = {
      {"unsupported",
       [] {
         TraceCollector c(0);
         std::vector<CollectorWarning> warnings;
         Control control = Control::detached();
         expect((readRocpdDatabase(gFixtures + "/rocpd/fixture.db", 0, c, warnings, control) == 0 &&
                 warns(warnings, "rocpd-unsupported", "without SQLite3")),
                "built without SQLite3: rocpd-unsupported");
       }},
  };
#endif
  for (const auto& [name, test] : cases) {
    INFO("case ", name);
    test();
  }
}
