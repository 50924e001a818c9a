// rocprofv3's rocpd database (native/src/run/rocpd_reader.hpp), built from the input: random
// bytes seldom make an SQLite file, so here the input chooses the schema (which of the tables
// and columns the reader reads exist, their declared types, the views over them) and every
// row's cells (NULL, int64 extremes, reals such as 1e300, inf and NaN, text up to 256 KiB,
// blobs, times near 2^53), then the reader reads the database from a temporary file. Reaches
// the reader's row loops and conversions that fuzz_rocpd_file rarely gets to.
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "ingest/control.hpp"
#include "run/rocpd_reader.hpp"
#include "run/trace_collector.hpp"
#include "temp_file.hpp"

namespace {

struct Table {
  const char* name;
  // First the id column, then the others, each with the type rocprofv3's schema gives it.
  std::vector<std::pair<const char*, const char*>> columns;
};

// The tables of test/fixtures/rocpd/make-fixture.sql (rocprofv3's names).
const std::vector<Table>& tables() {
  static const std::vector<Table> kTables = {
      {"rocpd_info_agent", {{"id", "INTEGER"}, {"pid", "INTEGER"}, {"type", "TEXT"}, {"absolute_index", "INTEGER"},
                            {"name", "TEXT"}}},
      {"rocpd_string", {{"id", "INTEGER"}, {"string", "TEXT"}}},
      {"rocpd_info_kernel_symbol", {{"id", "INTEGER"}, {"kernel_name", "TEXT"}, {"display_name", "TEXT"}}},
      {"rocpd_event", {{"id", "INTEGER"}, {"correlation_id", "INTEGER"}}},
      {"rocpd_kernel_dispatch",
       {{"id", "INTEGER"}, {"agent_id", "INTEGER"}, {"kernel_id", "INTEGER"}, {"start", "INTEGER"}, {"end", "INTEGER"},
        {"workgroup_size_x", "INTEGER"}, {"workgroup_size_y", "INTEGER"}, {"workgroup_size_z", "INTEGER"},
        {"grid_size_x", "INTEGER"}, {"grid_size_y", "INTEGER"}, {"grid_size_z", "INTEGER"}, {"event_id", "INTEGER"}}},
      {"rocpd_memory_copy",
       {{"id", "INTEGER"}, {"name_id", "INTEGER"}, {"src_agent_id", "INTEGER"}, {"dst_agent_id", "INTEGER"},
        {"size", "INTEGER"}, {"start", "INTEGER"}, {"end", "INTEGER"}, {"event_id", "INTEGER"}}},
  };
  return kTables;
}

// The documented views as the fixture defines them.
constexpr const char* kFixtureViews =
    "CREATE VIEW kernels AS SELECT K.id, S.display_name AS name, K.agent_id, K.kernel_id, K.start, K.\"end\", "
    "K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z, K.workgroup_size_x AS workgroup_x, "
    "K.workgroup_size_y AS workgroup_y, K.workgroup_size_z AS workgroup_z, E.correlation_id "
    "FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id "
    "LEFT JOIN rocpd_event E ON E.id = K.event_id;"
    "CREATE VIEW memory_copies AS SELECT M.id, N.string AS name, M.start, M.\"end\", M.size, M.src_agent_id, "
    "M.dst_agent_id FROM rocpd_memory_copy M LEFT JOIN rocpd_string N ON N.id = M.name_id;";

// Views with the documented names and columns whose rows never end: a reader must not read views.
constexpr const char* kEndlessViews =
    "CREATE VIEW kernels AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
    "SELECT n AS id, 'k' AS name, 1 AS agent_id, 1 AS kernel_id, n AS start, n + 1 AS \"end\", 1 AS grid_x, "
    "1 AS grid_y, 1 AS grid_z, 1 AS workgroup_x, 1 AS workgroup_y, 1 AS workgroup_z, n AS correlation_id FROM r;"
    "CREATE VIEW memory_copies AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
    "SELECT n AS id, 'MEMORY_COPY_HOST_TO_DEVICE' AS name, n AS start, n + 1 AS \"end\", 8 AS size, "
    "1 AS src_agent_id, 2 AS dst_agent_id FROM r;";

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
                                  "_ZN1a1bILi1EEEvv"};

// At most one text of up to 256 KiB per database (more only slow the fuzzing down); later ones are short.
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
    case 6:
      sqlite3_bind_text(s, index, in.PickValueInArray(kTexts), -1, SQLITE_STATIC);
      break;
    case 7: {
      const std::size_t length = std::size_t{1} << (budget.hugeTextLeft ? in.ConsumeIntegralInRange(8, 18) : 8);
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

void exec(sqlite3* db, const std::string& sql) {
  // A statement the schema choice made invalid (a view over a missing column) just fails.
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
}

void addTable(FuzzedDataProvider& in, sqlite3* db, const Table& table, Budget& budget) {
  // 0: rocprofv3's types, id the rowid; 1: no declared types; 2: all TEXT; 3: all REAL.
  const int types = in.ConsumeIntegralInRange(0, 3);
  const bool rowid = in.ConsumeBool();
  std::vector<const char*> names;
  std::string sql = std::string("CREATE TABLE ") + table.name + " (";
  for (const auto& [name, type] : table.columns) {
    if (!in.ConsumeIntegralInRange(0, 7)) continue;  // now and then a column is missing
    const char* declared = types == 0 ? type : types == 1 ? "" : types == 2 ? "TEXT" : "REAL";
    sql += std::string(names.empty() ? "" : ", ") + "\"" + name + "\" " + declared;
    if (names.empty() && rowid && std::string(name) == "id" && types == 0) sql += " PRIMARY KEY";
    names.push_back(name);
  }
  if (names.empty()) return;
  exec(db, sql + ")");
  std::string insert = std::string("INSERT INTO ") + table.name + " VALUES (";
  for (std::size_t i = 0; i < names.size(); ++i) insert += i ? ", ?" : "?";
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, (insert + ")").c_str(), -1, &s, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s);
    return;
  }
  const int rows = in.ConsumeIntegralInRange(0, 12);
  for (int r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < names.size(); ++c) bindCell(in, s, static_cast<int>(c) + 1, budget);
    sqlite3_step(s);  // a row the rowid refuses (a duplicate, a non-integer) is left out
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
  sqlite3_finalize(s);
}

std::int64_t clockNumber(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return 0;
    case 1:  // CLOCK_MONOTONIC - CLOCK_BOOTTIME, or a program start: hours, not centuries
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
    for (const Table& table : tables()) {
      if (in.ConsumeIntegralInRange(0, 7)) addTable(in, db, table, budget);
    }
    switch (in.ConsumeIntegralInRange(0, 3)) {
      case 1: exec(db, kFixtureViews); break;
      case 2: exec(db, kEndlessViews); break;
      case 3: exec(db, "CREATE VIEW kernels AS SELECT * FROM rocpd_kernel_dispatch_gone"); break;
      default: break;
    }
    exec(db, "COMMIT");
    sqlite3_close(db);
  }

  TraceCollector collector(start, CollectorLimits{64, 64, 128});
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
