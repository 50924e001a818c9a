// rocprofv3's rocpd database (native/src/profile/rocpd_reader.hpp), built from the input: random
// bytes seldom make an SQLite file, so here the input chooses the schema and every row, then
// the reader reads the database from a temporary file. Reaches the reader's row loops and
// conversions, which fuzz_rocpd_file rarely gets to. The input chooses:
//   - one to three per-process table sets: the tables rocprofv3 writes (those of
//     test/fixtures/rocpd/make-fixture.sql), un-suffixed or with a suffix as rocprofv3 names
//     them per process, or with one the reader must not take;
//   - per table: which columns exist, their declared types (rocprofv3's, none, TEXT, REAL),
//     how `id` is declared (the rowid, no key, a DESC or TEXT key, WITHOUT ROWID), now and then
//     a generated column, or a virtual table in its place;
//   - every cell: NULL, int64 extremes, reals (1e300, inf, NaN, -1e19), text (short, known
//     names, one of up to 2 MiB), blobs, times near 2^53;
//   - views with the documented names: the fixture's, endless recursive ones, or broken ones
//     (a reader must never read views);
//   - the clock move and the collector's program start.
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "util/read_control.hpp"
#include "profile/rocpd_reader.hpp"
#include "profile/trace_collector.hpp"
#include "temp_file.hpp"

namespace {

struct Table {
  const char* name;
  // `id` first (where the table has one), each column with the type rocprofv3 declares.
  std::vector<std::pair<const char*, const char*>> columns;
};

const std::vector<Table>& tables() {
  static const std::vector<Table> kTables = {
      {"rocpd_info_agent",
       {{"id", "INTEGER"}, {"pid", "INTEGER"}, {"type", "TEXT"}, {"absolute_index", "INTEGER"}, {"name", "TEXT"}}},
      {"rocpd_string", {{"id", "INTEGER"}, {"string", "TEXT"}}},
      {"rocpd_info_kernel_symbol", {{"id", "INTEGER"}, {"kernel_name", "TEXT"}, {"display_name", "TEXT"}}},
      {"rocpd_event", {{"id", "INTEGER"}, {"correlation_id", "INTEGER"}}},
      {"rocpd_kernel_dispatch",
       {{"id", "INTEGER"},
        {"agent_id", "INTEGER"},
        {"kernel_id", "INTEGER"},
        {"start", "INTEGER"},
        {"end", "INTEGER"},
        {"workgroup_size_x", "INTEGER"},
        {"workgroup_size_y", "INTEGER"},
        {"workgroup_size_z", "INTEGER"},
        {"grid_size_x", "INTEGER"},
        {"grid_size_y", "INTEGER"},
        {"grid_size_z", "INTEGER"},
        {"event_id", "INTEGER"}}},
      {"rocpd_memory_copy",
       {{"id", "INTEGER"},
        {"name_id", "INTEGER"},
        {"src_agent_id", "INTEGER"},
        {"dst_agent_id", "INTEGER"},
        {"size", "INTEGER"},
        {"start", "INTEGER"},
        {"end", "INTEGER"},
        {"event_id", "INTEGER"}}},
  };
  return kTables;
}

// Per-process suffixes as rocprofv3 writes them, and ones outside the reader's name rule.
constexpr const char* kSuffixes[] = {"",
                                     "_00000000_0000_0000_0000_0000000000a1",
                                     "_7f3e2a90_1c51_4a2c_bd36_9c2b0b2c7d23",
                                     "_p-2",
                                     "_",
                                     "_a.b",
                                     "_\xc3\xa9",
                                     "_\"x\"",
                                     "X"};

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInts[] = {0,
                                  1,
                                  -1,
                                  kMin,
                                  kMax,
                                  kMin + 1,
                                  kMax - 1,
                                  std::numeric_limits<std::int32_t>::max(),
                                  std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1,
                                  std::numeric_limits<std::int32_t>::min(),
                                  std::int64_t{std::numeric_limits<std::int32_t>::min()} - 1,
                                  std::numeric_limits<std::uint32_t>::max(),
                                  std::int64_t{1} << 53,
                                  (std::int64_t{1} << 53) + 1,
                                  1000000000000000000};
const double kReals[] = {1e300,
                         -1e300,
                         -1e19,
                         1e19,
                         9223372036854775808.0,
                         -9223372036854775808.0,
                         std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN(),
                         0.5,
                         -0.5,
                         4294967296.5,
                         9007199254741000.0};
constexpr const char* kTexts[] = {"GPU",
                                  "CPU",
                                  "",
                                  "_Z15fusedComputeA2aPKfPKPfiim",
                                  "fusedComputeA2a(float const*, float* const*, int, int, unsigned long)",
                                  "MEMORY_COPY_HOST_TO_DEVICE",
                                  "MEMORY_COPY_DEVICE_TO_DEVICE",
                                  "MEMORY_COPY_",
                                  "9223372036854775808",
                                  "-9223372036854775809",
                                  "1e300",
                                  "12",
                                  "_Z",
                                  "_ZN1a1bILi1EEEvv",
                                  "a\0b"};

// At most one text over 256 bytes per database (up to 2 MiB: over the reader's 1 MiB value
// cap); more only slow the fuzzing down.
struct Budget {
  bool hugeTextLeft = true;
};

void bindCell(FuzzedDataProvider& in, sqlite3_stmt* s, int index, Budget& budget) {
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      sqlite3_bind_null(s, index);
      break;
    case 1:  // ids that join
      sqlite3_bind_int64(s, index, in.ConsumeIntegralInRange<std::int64_t>(-2, 8));
      break;
    case 2:
      sqlite3_bind_int64(s, index, in.PickValueInArray(kInts));
      break;
    case 3:
      sqlite3_bind_int64(s, index, in.ConsumeIntegral<std::int64_t>());
      break;
    case 4:
      sqlite3_bind_double(s, index, in.ConsumeBool() ? in.PickValueInArray(kReals) : in.ConsumeFloatingPoint<double>());
      break;
    case 5: {
      const std::string text = in.ConsumeRandomLengthString(64);
      sqlite3_bind_text(s, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case 6: {
      const char* text = in.PickValueInArray(kTexts);
      sqlite3_bind_text(s, index, text, text[0] == 'a' ? 3 : -1, SQLITE_STATIC);
      break;
    }
    case 7: {
      const std::size_t length = std::size_t{1} << (budget.hugeTextLeft ? in.ConsumeIntegralInRange(8, 21) : 8);
      budget.hugeTextLeft = length <= 256;
      const std::string text(length, in.ConsumeBool() ? 'A' : '\x80');
      sqlite3_bind_text(s, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case 8: {
      const std::string blob = in.ConsumeRandomLengthString(32);
      sqlite3_bind_blob(s, index, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
      break;
    }
    default:  // a time near the fixture's, beyond 2^53
      sqlite3_bind_int64(s, index, 9007199254741000 + in.ConsumeIntegralInRange<std::int64_t>(-1000, 1000000));
      break;
  }
}

bool exec(sqlite3* db, const std::string& sql) {
  // A statement the choices made invalid (a view over a missing column) just fails.
  return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
}

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (const char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void addTable(FuzzedDataProvider& in, sqlite3* db, const Table& table, const std::string& name, Budget& budget) {
  if (in.ConsumeIntegralInRange(0, 15) == 0) {
    // A virtual table (a module's code, not rows) where the reader looks for a real one.
    exec(db, "CREATE VIRTUAL TABLE " + quoted(name) +
                 (in.ConsumeBool() ? " USING fts5(id, start)" : " USING rtree(id, a, b)"));
    return;
  }
  // Declared types: 0 rocprofv3's, 1 none, 2 all TEXT, 3 all REAL.
  const int types = in.ConsumeIntegralInRange(0, 3);
  // `id`: 0 the rowid (INTEGER PRIMARY KEY), 1 no key, 2 INTEGER PRIMARY KEY DESC, 3 a TEXT
  // key, 4 WITHOUT ROWID.
  const int key = in.ConsumeIntegralInRange(0, 4);
  std::vector<std::string> stored;
  std::string sql = "CREATE TABLE " + quoted(name) + " (";
  bool haveKey = false, first = true;
  for (const auto& [column, type] : table.columns) {
    if (!in.ConsumeIntegralInRange(0, 7)) continue;  // now and then a column is missing
    const std::string declared = types == 0 ? type : types == 1 ? "" : types == 2 ? "TEXT" : "REAL";
    sql += std::string(first ? "" : ", ") + quoted(column) + " ";
    first = false;
    if (std::string(column) == "id" && key != 1) {
      sql += key == 3 ? "TEXT PRIMARY KEY" : key == 2 ? "INTEGER PRIMARY KEY DESC" : "INTEGER PRIMARY KEY";
      haveKey = true;
    } else if (in.ConsumeIntegralInRange(0, 15) == 0) {
      // A generated column: the file's own expression, not stored rows.
      sql += declared + " GENERATED ALWAYS AS (" + (in.ConsumeBool() ? "9223372036854775807 + 1" : "1") + ") " +
             (in.ConsumeBool() ? "VIRTUAL" : "STORED");
      continue;
    } else {
      sql += declared;
    }
    stored.emplace_back(column);
  }
  if (stored.empty()) return;
  sql += ")";
  if (key == 4 && haveKey) sql += " WITHOUT ROWID";
  if (!exec(db, sql)) return;
  std::string insert = "INSERT INTO " + quoted(name) + " (";
  std::string values = ") VALUES (";
  for (std::size_t i = 0; i < stored.size(); ++i) {
    insert += (i ? ", " : "") + quoted(stored[i]);
    values += i ? ", ?" : "?";
  }
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, (insert + values + ")").c_str(), -1, &s, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s);
    return;
  }
  const int rows = in.ConsumeIntegralInRange(0, 12);
  for (int r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < stored.size(); ++c) bindCell(in, s, static_cast<int>(c) + 1, budget);
    sqlite3_step(s);  // a row the key refuses (a duplicate, a non-integer rowid) is left out
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
  sqlite3_finalize(s);
}

// The documented views over one table set, as the fixture defines them.
std::string fixtureViews(const std::string& suffix) {
  const auto t = [&](const char* base) { return quoted(base + suffix); };
  return "CREATE VIEW kernels AS SELECT K.id, S.display_name AS name, K.agent_id, K.kernel_id, K.start, K.\"end\", "
         "K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z, K.workgroup_size_x AS "
         "workgroup_x, K.workgroup_size_y AS workgroup_y, K.workgroup_size_z AS workgroup_z, E.correlation_id FROM " +
         t("rocpd_kernel_dispatch") + " K JOIN " + t("rocpd_info_kernel_symbol") +
         " S ON S.id = K.kernel_id LEFT JOIN " + t("rocpd_event") + " E ON E.id = K.event_id;" +
         "CREATE VIEW memory_copies AS SELECT M.id, N.string AS name, M.start, M.\"end\", M.size, M.src_agent_id, "
         "M.dst_agent_id FROM " +
         t("rocpd_memory_copy") + " M LEFT JOIN " + t("rocpd_string") + " N ON N.id = M.name_id;";
}

// Views with the documented names and columns whose rows never end.
constexpr const char* kEndlessViews =
    "CREATE VIEW kernels AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
    "SELECT n AS id, 'k' AS name, 1 AS agent_id, 1 AS kernel_id, n AS start, n + 1 AS \"end\", 1 AS grid_x, "
    "1 AS grid_y, 1 AS grid_z, 1 AS workgroup_x, 1 AS workgroup_y, 1 AS workgroup_z, n AS correlation_id FROM r;"
    "CREATE VIEW memory_copies AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
    "SELECT n AS id, 'MEMORY_COPY_HOST_TO_DEVICE' AS name, n AS start, n + 1 AS \"end\", 8 AS size, "
    "1 AS src_agent_id, 2 AS dst_agent_id FROM r;"
    "CREATE VIEW rocpd_kernel_dispatch AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
    "SELECT n AS id, 1 AS agent_id, 1 AS kernel_id, n AS start, n + 1 AS \"end\" FROM r;";

// A view over a table that is gone: reading it fails.
constexpr const char* kBrokenViews =
    "CREATE TABLE gone (x); CREATE VIEW kernels AS SELECT * FROM gone; "
    "CREATE VIEW memory_copies AS SELECT x AS start FROM gone; DROP TABLE gone;";

std::int64_t clockNumber(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return 0;
    case 1:  // CLOCK_MONOTONIC - CLOCK_BOOTTIME, or a program start: days, not centuries
      return in.ConsumeIntegralInRange<std::int64_t>(-(std::int64_t{1} << 50), std::int64_t{1} << 50);
    case 2:
      return in.PickValueInArray(kInts);
    default:
      return in.ConsumeIntegral<std::int64_t>();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sdma::runmode;
  FuzzedDataProvider in(data, size);
  const std::int64_t clockToMono = clockNumber(in);
  const std::int64_t start = clockNumber(in);
  sdma::fuzz::TempFile file;
  {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(file.path().c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      std::fprintf(stderr, "cannot open %s: %s\n", file.path().c_str(), db ? sqlite3_errmsg(db) : "no memory");
      std::abort();
    }
    exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN");
    Budget budget;
    const int sets = in.ConsumeIntegralInRange(1, 3);
    std::string firstSuffix;
    for (int k = 0; k < sets; ++k) {
      const std::string suffix = in.PickValueInArray(kSuffixes);
      if (k == 0) firstSuffix = suffix;
      for (const Table& table : tables()) {
        if (in.ConsumeIntegralInRange(0, 7)) addTable(in, db, table, table.name + suffix, budget);
      }
    }
    switch (in.ConsumeIntegralInRange(0, 3)) {
      case 1:
        exec(db, fixtureViews(firstSuffix));
        break;
      case 2:
        exec(db, kEndlessViews);
        break;
      case 3:
        exec(db, kBrokenViews);
        break;
      default:
        break;
    }
    exec(db, "COMMIT");
    sqlite3_close(db);
  }

  TraceCollector collector(start, CollectorLimits{64, 64, 128, 1 << 20});
  std::vector<CollectorWarning> warnings;
  sdma::ingest::Control control = sdma::ingest::Control::detached();
  readRocpdDatabase(file.path(), clockToMono, collector, warnings, control);

  std::vector<DispatchRecord> dispatches;
  std::vector<CopyRecord> copies;
  collector.finish(dispatches, copies, warnings);
  for (const DispatchRecord& d : dispatches) {
    sdma::fuzz::touch(d.name);
    sdma::fuzz::touch(d.mangled);
  }
  for (const CopyRecord& c : copies) sdma::fuzz::touch(c.label);
  for (const CollectorWarning& w : warnings) sdma::fuzz::touch(w.message);
  return 0;
}
