#include "profile/rocpd_reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#if SDMA_PROBE_HAVE_SQLITE
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#endif

#include "util/checked.hpp"
#include "util/safe_file.hpp"
#include "profile/records.hpp"

namespace sdma::runmode {

#if !SDMA_PROBE_HAVE_SQLITE

bool rocpdSupported() { return false; }

std::size_t readRocpdDatabase(const std::string& path, std::int64_t, TraceCollector&,
                              std::vector<CollectorWarning>& warnings, ingest::Control&) {
  warnings.push_back(
      {"rocpd-unsupported", "this sdma-probe was built without SQLite3, so it cannot read the rocpd database " + path +
                                ": install SQLite3's headers (libsqlite3-dev) and rebuild the helper, or profile with "
                                "rocprofv3 --output-format csv"});
  return 0;
}

#else

bool rocpdSupported() { return true; }

namespace {

// ---------------------------------------------------------------------------------------------
// Limits. A rocpd file is outside data: whatever it holds, reading it takes bounded memory
// and stops when asked.

// SQLite's own heap, all of it (page cache, schema, sorters, temporary tables: temp_store is
// memory, so nothing spills to disk either). A real profile's queries need a few MiB.
constexpr sqlite3_int64 kHeapLimitBytes = 512LL * 1024 * 1024;
// The longest string or blob SQLite hands over: a longer value asked for fails the query
// (SQLITE_TOOBIG) before it is allocated; one in a column not asked for is never decoded.
// rocprofv3's longest values read here are kernel names, a few KiB even for deep templates.
constexpr int kMaxValueBytes = 1024 * 1024;
// The longest statement SQLite parses: ours are short, and the file's own CREATE statements
// (parsed when SQLite loads the schema) are a few KiB in rocprofv3's schema.
constexpr int kMaxSqlBytes = 1024 * 1024;
// Virtual-machine steps between two polls of the cancel control inside one query.
constexpr int kProgressSteps = 1000;
// Per-process table sets (rocprofv3 writes one per process; a merged database holds many).
constexpr std::size_t kMaxTableSets = 16384;
// A per-process suffix longer than this is not one rocprofv3 writes (a UUID and a '_').
constexpr std::size_t kMaxSuffixChars = 128;
// Agents kept for numbering GPUs, over all table sets.
constexpr std::size_t kMaxAgents = 65536;
// Text kept in records (kernel names, copy labels), over the whole read: the record cap
// bounds the count of records, this bounds what a file of huge names could make them hold.
constexpr std::size_t kMaxTextBytes = 256ULL * 1024 * 1024;
// Longer names are kept as written: the C++ runtime's demangler is not given them.
constexpr std::size_t kMaxDemangleBytes = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// SQLite reads the file through the descriptor SafeFile opened, never by path. Handing it
// "/proc/self/fd/N" is not enough: SQLite resolves that link to the path it names and opens
// the path again, so a FIFO or a device swapped in between would reach it. This VFS serves one
// file only, the main database, read-only and at most the size SafeFile saw; SQLite can open
// no other file through it (no journal, no WAL, no temporary file).

constexpr char kVfsName[] = "sdma-probe-fd";
constexpr char kVfsPrefix[] = "/sdma-probe-fd/";  // then "<fd>/<size>"

struct FdFile {
  sqlite3_file base;  // first: SQLite hands the same pointer back
  int fd;
  sqlite3_int64 size;
};

FdFile* asFdFile(sqlite3_file* f) { return reinterpret_cast<FdFile*>(f); }

int fdClose(sqlite3_file*) { return SQLITE_OK; }  // the descriptor belongs to the SafeFile

int fdRead(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
  const FdFile* file = asFdFile(f);
  if (amount < 0 || offset < 0) return SQLITE_IOERR_READ;
  auto* out = static_cast<unsigned char*>(buffer);
  int got = 0;
  while (got < amount) {
    const sqlite3_int64 at = offset + got;
    if (at >= file->size) break;  // a file that grew since it was opened is read as it was
    const sqlite3_int64 room = std::min<sqlite3_int64>(amount - got, file->size - at);
    const ssize_t n = ::pread(file->fd, out + got, static_cast<std::size_t>(room), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SQLITE_IOERR_READ;
    if (n == 0) break;
    got += static_cast<int>(n);
  }
  if (got < amount) {
    // SQLite's rule for a read past the end: zero the rest and say so.
    std::memset(out + got, 0, static_cast<std::size_t>(amount - got));
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

int fdWrite(sqlite3_file*, const void*, int, sqlite3_int64) { return SQLITE_IOERR_WRITE; }
int fdTruncate(sqlite3_file*, sqlite3_int64) { return SQLITE_IOERR_TRUNCATE; }
int fdSync(sqlite3_file*, int) { return SQLITE_OK; }
int fdFileSize(sqlite3_file* f, sqlite3_int64* size) {
  *size = asFdFile(f)->size;
  return SQLITE_OK;
}
int fdLock(sqlite3_file*, int) { return SQLITE_OK; }
int fdUnlock(sqlite3_file*, int) { return SQLITE_OK; }
int fdCheckReservedLock(sqlite3_file*, int* reserved) {
  *reserved = 0;
  return SQLITE_OK;
}
int fdFileControl(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int fdSectorSize(sqlite3_file*) { return 4096; }
// Immutable: SQLite takes no locks and looks for no journal or WAL beside the file.
int fdDeviceCharacteristics(sqlite3_file*) { return SQLITE_IOCAP_IMMUTABLE; }

const sqlite3_io_methods kFdMethods = {
    1,
    fdClose,
    fdRead,
    fdWrite,
    fdTruncate,
    fdSync,
    fdFileSize,
    fdLock,
    fdUnlock,
    fdCheckReservedLock,
    fdFileControl,
    fdSectorSize,
    fdDeviceCharacteristics,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

// "<fd>/<size>" after the prefix, as fdName() wrote it.
bool parseFdName(const char* name, int& fd, sqlite3_int64& size) {
  if (name == nullptr || std::strncmp(name, kVfsPrefix, sizeof kVfsPrefix - 1) != 0) return false;
  const char* p = name + sizeof kVfsPrefix - 1;
  const char* end = p + std::strlen(p);
  const auto a = std::from_chars(p, end, fd);
  if (a.ec != std::errc() || a.ptr == end || *a.ptr != '/' || fd < 0) return false;
  const auto b = std::from_chars(a.ptr + 1, end, size);
  return b.ec == std::errc() && b.ptr == end && size >= 0;
}

int fdOpen(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* outFlags) {
  int fd = -1;
  sqlite3_int64 size = 0;
  if ((flags & SQLITE_OPEN_MAIN_DB) == 0 || !parseFdName(name, fd, size)) return SQLITE_CANTOPEN;
  FdFile* file = asFdFile(f);
  file->fd = fd;
  file->size = size;
  file->base.pMethods = &kFdMethods;
  if (outFlags) *outFlags = SQLITE_OPEN_READONLY;
  return SQLITE_OK;
}

int fdDelete(sqlite3_vfs*, const char*, int) { return SQLITE_IOERR_DELETE; }
int fdAccess(sqlite3_vfs*, const char*, int, int* result) {
  *result = 0;  // no other file exists as far as SQLite can tell
  return SQLITE_OK;
}
int fdFullPathname(sqlite3_vfs*, const char* name, int size, char* out) {
  sqlite3_snprintf(size, out, "%s", name);
  return SQLITE_OK;
}
void* fdDlOpen(sqlite3_vfs*, const char*) { return nullptr; }
void fdDlError(sqlite3_vfs*, int size, char* out) { sqlite3_snprintf(size, out, "extensions are not loaded"); }
void (*fdDlSym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
void fdDlClose(sqlite3_vfs*, void*) {}
sqlite3_vfs* baseVfs(sqlite3_vfs* vfs) { return static_cast<sqlite3_vfs*>(vfs->pAppData); }
int fdRandomness(sqlite3_vfs* vfs, int n, char* out) { return baseVfs(vfs)->xRandomness(baseVfs(vfs), n, out); }
int fdSleep(sqlite3_vfs* vfs, int micros) { return baseVfs(vfs)->xSleep(baseVfs(vfs), micros); }
int fdCurrentTime(sqlite3_vfs* vfs, double* now) { return baseVfs(vfs)->xCurrentTime(baseVfs(vfs), now); }
int fdGetLastError(sqlite3_vfs*, int, char*) { return 0; }

// Registered once, not as the default; false when SQLite has no VFS to borrow a clock from.
bool registerFdVfs() {
  static const bool registered = [] {
    sqlite3_vfs* base = sqlite3_vfs_find(nullptr);
    if (base == nullptr) return false;
    static sqlite3_vfs vfs = {
        1,
        static_cast<int>(sizeof(FdFile)),
        512,
        nullptr,
        kVfsName,
        base,
        fdOpen,
        fdDelete,
        fdAccess,
        fdFullPathname,
        fdDlOpen,
        fdDlError,
        fdDlSym,
        fdDlClose,
        fdRandomness,
        fdSleep,
        fdCurrentTime,
        fdGetLastError,
        nullptr,
        nullptr,
        nullptr,
        nullptr,
    };
    return sqlite3_vfs_register(&vfs, 0) == SQLITE_OK;
  }();
  return registered;
}

std::string fdName(const ingest::SafeFile& file) {
  return std::string(kVfsPrefix) + std::to_string(file.fd()) + "/" + std::to_string(file.size());
}

// SQLite's hard heap limit is the process's; set for the read, then put back as it was.
class HeapLimit {
 public:
  HeapLimit() {
#if SQLITE_VERSION_NUMBER >= 3031000
    previous_ = sqlite3_hard_heap_limit64(-1);
    if (previous_ <= 0 || previous_ > kHeapLimitBytes) sqlite3_hard_heap_limit64(kHeapLimitBytes);
#else
    previous_ = sqlite3_soft_heap_limit64(-1);  // older SQLite: only a soft limit exists
    if (previous_ <= 0 || previous_ > kHeapLimitBytes) sqlite3_soft_heap_limit64(kHeapLimitBytes);
#endif
  }
  ~HeapLimit() {
#if SQLITE_VERSION_NUMBER >= 3031000
    sqlite3_hard_heap_limit64(previous_ < 0 ? 0 : previous_);
#else
    sqlite3_soft_heap_limit64(previous_ < 0 ? 0 : previous_);
#endif
  }
  HeapLimit(const HeapLimit&) = delete;
  HeapLimit& operator=(const HeapLimit&) = delete;

 private:
  sqlite3_int64 previous_ = 0;
};

// ---------------------------------------------------------------------------------------------

struct StatementDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

enum class Step { Row, Done, Failed };

int onProgress(void* control) { return static_cast<ingest::Control*>(control)->poll() ? 0 : 1; }

std::string mibText(sqlite3_int64 bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

class Database {
 public:
  Database(const ingest::SafeFile& file, ingest::Control& control) : control_(control) {
    if (!registerFdVfs()) {
      error_ = "SQLite offers no file system layer to read through";
      return;
    }
    const std::string name = fdName(file);
    const int rc = sqlite3_open_v2(name.c_str(), &db_, SQLITE_OPEN_READONLY, kVfsName);
    if (rc != SQLITE_OK) {
      error_ = db_ ? sqlite3_errmsg(db_) : "cannot open";
      return;
    }
    // Before anything reads the schema: what one value, row or statement may take.
    sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
    sqlite3_limit(db_, SQLITE_LIMIT_SQL_LENGTH, kMaxSqlBytes);
    sqlite3_limit(db_, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db_, SQLITE_LIMIT_VARIABLE_NUMBER, 8);
    sqlite3_limit(db_, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_limit(db_, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 256);
    sqlite3_limit(db_, SQLITE_LIMIT_VDBE_OP, 100000);
    sqlite3_limit(db_, SQLITE_LIMIT_WORKER_THREADS, 0);
    // The file's schema is not trusted: its views and triggers run no function with side
    // effects, views are not used at all (only this reader's own SELECTs on real tables run),
    // and no statement can change the file or SQLite's settings through it.
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
#endif
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
#endif
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
    sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
#endif
    sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
#ifdef SQLITE_DBCONFIG_DQS_DML
    sqlite3_db_config(db_, SQLITE_DBCONFIG_DQS_DML, 0, nullptr);  // "end" is a column, never a string
#endif
    sqlite3_progress_handler(db_, kProgressSteps, onProgress, &control_);
    // Our own statements; the first one loads the schema, so it also tells a database from
    // any other file.
    char* message = nullptr;
    const int prc = sqlite3_exec(db_,
                                 "PRAGMA query_only = 1; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 0; "
                                 "PRAGMA cell_size_check = 1; PRAGMA trusted_schema = 0; "
                                 "SELECT count(*) FROM main.sqlite_master;",
                                 nullptr, nullptr, &message);
    sqlite3_free(message);
    if (prc != SQLITE_OK) {
      noteFailure(prc, "the schema");
      opened_ = false;
      return;
    }
    opened_ = true;
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  bool opened() const { return opened_; }
  bool cancelled() const { return cancelled_ || control_.cancelled(); }
  const std::string& error() const { return error_; }
  const std::vector<std::string>& limitsHit() const { return limitsHit_; }

  // Our own SQL (only names that passed the character rule are in it); nullptr when it
  // failed, the failure noted.
  Statement prepare(const std::string& sql, const std::string& what) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(s);
      noteFailure(rc, what);
      return nullptr;
    }
    return Statement(s);
  }

  // For what an older SQLite may lack: nullptr, nothing noted.
  Statement prepareQuiet(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      sqlite3_finalize(s);
      return nullptr;
    }
    return Statement(s);
  }

  // The next row; polls the control once per row on top of the progress handler's polls.
  Step step(const Statement& s, const std::string& what) {
    if (!control_.poll()) {
      cancelled_ = true;
      return Step::Failed;
    }
    const int rc = sqlite3_step(s.get());
    if (rc == SQLITE_ROW) return Step::Row;
    if (rc == SQLITE_DONE) return Step::Done;
    noteFailure(rc, what);
    return Step::Failed;
  }

 private:
  void noteFailure(int rc, const std::string& what) {
    switch (rc & 0xff) {
      case SQLITE_INTERRUPT:
        // Only the progress handler interrupts, and only when cancelled.
        cancelled_ = true;
        return;
      case SQLITE_NOMEM:
        noteLimit(what + ": SQLite's memory limit of " + mibText(kHeapLimitBytes) + " was reached");
        return;
      case SQLITE_TOOBIG:
        noteLimit(what + ": a value, row or statement is over the " + mibText(kMaxValueBytes) + " read here");
        return;
      default:
        if (error_.empty()) error_ = what + ": " + (db_ ? sqlite3_errmsg(db_) : "cannot open");
        return;
    }
  }
  void noteLimit(const std::string& text) {
    if (limitsHit_.size() < 4 && std::find(limitsHit_.begin(), limitsHit_.end(), text) == limitsHit_.end()) {
      limitsHit_.push_back(text);
    }
  }

  ingest::Control& control_;
  sqlite3* db_ = nullptr;
  bool opened_ = false;
  bool cancelled_ = false;
  std::string error_;
  std::vector<std::string> limitsHit_;
};

// ---------------------------------------------------------------------------------------------
// Cells. SQLite converts any value to a number on request (text "abc" reads as 0, a huge
// real as the nearest int64): these take only what is a whole number that fits.

struct IntCell {
  bool null = true;
  std::optional<std::int64_t> value;  // nullopt when not null but not a whole int64
};

IntCell intCell(sqlite3_stmt* s, int col) {
  IntCell c;
  switch (sqlite3_column_type(s, col)) {
    case SQLITE_NULL:
      return c;
    case SQLITE_INTEGER:
      c.null = false;
      c.value = static_cast<std::int64_t>(sqlite3_column_int64(s, col));
      return c;
    case SQLITE_FLOAT: {
      c.null = false;
      const double v = sqlite3_column_double(s, col);
      const auto i = ingest::toInt64(v);
      if (i && static_cast<double>(*i) == v) c.value = i;
      return c;
    }
    case SQLITE_TEXT: {
      c.null = false;
      const unsigned char* t = sqlite3_column_text(s, col);
      const int n = sqlite3_column_bytes(s, col);
      if (t && n > 0)
        c.value = ingest::parseInt64(std::string_view(reinterpret_cast<const char*>(t), static_cast<std::size_t>(n)));
      return c;
    }
    default:
      c.null = false;
      return c;
  }
}

std::optional<std::int64_t> intAt(sqlite3_stmt* s, int col) { return intCell(s, col).value; }

// Text up to its first NUL (names go on into JSON and messages).
std::string textAt(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}

// ---------------------------------------------------------------------------------------------
// The tables. rocprofv3 writes rows into real tables named with a per-process suffix
// (rocpd_kernel_dispatch{{uuid}}) and shows them through views named without it. Views are
// never read here: a view is SQL the file chose (a recursive one never ends), a real table
// is rows. This reader's rule, not a documented one: a real table belongs to relation R when
// its name is R, or R, then '_', then only [0-9A-Za-z_-]. Only names that pass it ever go
// into SQL text, and always double-quoted.

enum Relation : std::size_t { kDispatch, kCopy, kAgent, kSymbol, kString, kEvent, kRelationCount };

constexpr std::array<const char*, kRelationCount> kRelationName = {"rocpd_kernel_dispatch", "rocpd_memory_copy",
                                                                   "rocpd_info_agent",      "rocpd_info_kernel_symbol",
                                                                   "rocpd_string",          "rocpd_event"};

// The columns looked for; no other column name is kept.
const std::array<std::vector<const char*>, kRelationCount> kWantedColumns = {{
    {"agent_id", "kernel_id", "start", "end", "grid_size_x", "grid_size_y", "grid_size_z", "workgroup_size_x",
     "workgroup_size_y", "workgroup_size_z", "event_id"},
    {"start", "end", "size", "src_agent_id", "dst_agent_id", "name_id"},
    {"id", "type", "absolute_index"},
    {"id", "kernel_name", "display_name"},
    {"id", "string"},
    {"id", "correlation_id"},
}};

bool suffixChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '-';
}

// The relation a table name belongs to and its suffix ("" or "_..."), by the rule above.
std::optional<std::pair<Relation, std::string>> classify(const std::string& name) {
  for (std::size_t r = 0; r < kRelationCount; ++r) {
    const std::string base = kRelationName[r];
    if (name == base) return std::make_pair(static_cast<Relation>(r), std::string());
    if (name.size() > base.size() && name.size() - base.size() <= kMaxSuffixChars &&
        name.compare(0, base.size(), base) == 0 && name[base.size()] == '_' &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(base.size()), name.end(), suffixChar)) {
      return std::make_pair(static_cast<Relation>(r), name.substr(base.size()));
    }
  }
  return std::nullopt;
}

// A name that passed the rule, as an SQL identifier (the doubling is for form's sake: the
// rule lets no quote through).
std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (const char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// CREATE TABLE, not CREATE VIRTUAL TABLE (a module's code) nor anything else.
bool createsRealTable(const std::string& sql) {
  std::size_t i = 0;
  auto word = [&](const char* w) {
    while (i < sql.size() && std::strchr(" \t\r\n", sql[i]) != nullptr) ++i;
    const std::size_t n = std::strlen(w);
    if (i + n > sql.size()) return false;
    for (std::size_t k = 0; k < n; ++k) {
      const char c = sql[i + k];
      if ((c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c) != w[k]) return false;
    }
    i += n;
    return true;
  };
  if (!word("CREATE") || !word("TABLE")) return false;
  return i < sql.size() && std::strchr(" \t\r\n\"`[", sql[i]) != nullptr;
}

struct TableSet {
  std::string suffix;
  std::array<std::string, kRelationCount> table;              // "" where the set has none
  std::array<std::set<std::string>, kRelationCount> columns;  // stored columns among the wanted
  // Its "id" is the rowid (INTEGER PRIMARY KEY, as rocprofv3 declares it): one row per id,
  // by the file's structure rather than by a constraint the file only claims.
  std::array<bool, kRelationCount> idIsRowid{};
  bool has(Relation r) const { return !table[r].empty(); }
  std::string col(Relation r, const std::string& alias, const char* column) const {
    return columns[r].count(column) ? alias + "." + quoted(column) : std::string("NULL");
  }
};

std::vector<std::string> lacking(const std::set<std::string>& have, std::initializer_list<const char*> need) {
  std::vector<std::string> out;
  for (const char* n : need)
    if (!have.count(n)) out.emplace_back(n);
  return out;
}

std::string describeMissing(const std::string& relation, bool exists, const std::vector<std::string>& missing) {
  if (!exists) return "no " + relation;
  std::string out = relation + " lacks ";
  for (std::size_t i = 0; i < missing.size(); ++i) out += (i ? ", " : "") + missing[i];
  return out;
}

std::string directionOf(int src, int dst) {
  if (src < 0 && dst < 0) return "HOST_TO_HOST";
  if (src < 0) return "HOST_TO_DEVICE";
  if (dst < 0) return "DEVICE_TO_HOST";
  return "DEVICE_TO_DEVICE";
}

// What one kind of problem met in many table sets says: the first case and how many.
struct Problem {
  std::size_t count = 0;
  std::string first;
  void note(const std::string& text) {
    if (count++ == 0) first = text;
  }
};

class Reader {
 public:
  Reader(Database& db, const std::string& path, std::int64_t clockToMonoNs, TraceCollector& collector,
         std::vector<CollectorWarning>& warnings)
      : db_(db), path_(path), offset_(clockToMonoNs), collector_(collector), warnings_(warnings) {}

  std::size_t read() {
    if (!findTables()) return finish();
    if (sets_.empty()) {
      warnings_.push_back({"rocpd-schema", path_ + " is not a rocpd database this helper understands (no table " +
                                               kRelationName[kDispatch] + "; no table " + kRelationName[kCopy] +
                                               viewsNote() + "): nothing was read"});
      return finish();
    }
    for (TableSet& set : sets_) {
      if (!readColumns(set)) return finish();
    }
    checkSchema();
    for (std::size_t i = 0; i < sets_.size() && !stopped(); ++i) readAgents(i);
    numberGpus();
    for (std::size_t i = 0; i < sets_.size() && !stopped() && !dispatchesDone_; ++i) {
      if (dispatchUsable(sets_[i])) readDispatches(i);
    }
    for (std::size_t i = 0; i < sets_.size() && !stopped() && !copiesDone_; ++i) {
      if (copyUsable(sets_[i])) readCopies(i);
    }
    return finish();
  }

 private:
  bool stopped() const { return db_.cancelled(); }

  // Real tables that pass the name rule, grouped by suffix; views are only counted, to say
  // why nothing was read from a file that has nothing else.
  bool findTables() {
    const Statement s = db_.prepare("SELECT type, name, sql FROM main.sqlite_master WHERE type IN ('table', 'view')",
                                    "the list of tables");
    if (!s) return false;
    std::map<std::string, TableSet> bySuffix;
    bool tooMany = false;
    Step st;
    while ((st = db_.step(s, "the list of tables")) == Step::Row) {
      const std::string type = textAt(s.get(), 0), name = textAt(s.get(), 1);
      if (type == "view") {
        ++viewsSeen_;
        if (firstView_.empty() && !name.empty() && name.size() <= 64 &&
            std::all_of(name.begin(), name.end(), suffixChar)) {
          firstView_ = name;
        }
        continue;
      }
      const auto rel = classify(name);
      if (!rel) continue;
      if (!createsRealTable(textAt(s.get(), 2))) continue;
      auto it = bySuffix.find(rel->second);
      if (it == bySuffix.end()) {
        if (bySuffix.size() >= kMaxTableSets) {
          tooMany = true;
          continue;
        }
        it = bySuffix.emplace(rel->second, TableSet{}).first;
        it->second.suffix = rel->second;
      }
      it->second.table[rel->first] = name;
    }
    if (st == Step::Failed) return false;
    if (tooMany) {
      limits_.push_back("more than " + std::to_string(kMaxTableSets) +
                        " per-process table sets: the rest were not read");
    }
    for (auto& [suffix, set] : bySuffix) {
      if (!confirmRealTables(set)) return false;
      if (set.has(kDispatch) || set.has(kCopy)) sets_.push_back(std::move(set));
    }
    return true;
  }

  // sqlite_master is only what the file says; the schema SQLite parsed says what each name
  // is. Where SQLite is too old for pragma_table_list, views are off anyway (ENABLE_VIEW).
  bool confirmRealTables(TableSet& set) {
    for (std::string& table : set.table) {
      if (table.empty()) continue;
      if (!tableListWorks_) continue;
      const Statement s = db_.prepareQuiet("SELECT type FROM pragma_table_list(?1) WHERE schema = 'main'");
      if (!s) {
        tableListWorks_ = false;
        continue;
      }
      sqlite3_bind_text(s.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
      bool real = false;
      Step st;
      while ((st = db_.step(s, "the list of tables")) == Step::Row) real = real || textAt(s.get(), 0) == "table";
      if (st == Step::Failed) return false;
      if (!real) table.clear();
    }
    return true;
  }

  // The wanted columns a table stores (generated columns, computed by the file's own
  // expressions, are not read), and whether its id is the rowid: a single-column INTEGER
  // primary key with no index of its own (INTEGER PRIMARY KEY DESC and WITHOUT ROWID tables
  // have one, and there the key is only as unique as the file says).
  bool readColumns(TableSet& set) {
    for (std::size_t r = 0; r < kRelationCount; ++r) {
      if (set.table[r].empty()) continue;
      const std::string what = "the columns of " + set.table[r];
      const Statement s = db_.prepare("SELECT name, hidden, upper(type), pk FROM pragma_table_xinfo(?1, 'main')", what);
      if (!s) return false;
      sqlite3_bind_text(s.get(), 1, set.table[r].c_str(), -1, SQLITE_TRANSIENT);
      int keyColumns = 0;
      bool idIsIntegerKey = false;
      Step st;
      while ((st = db_.step(s, what)) == Step::Row) {
        const std::string name = textAt(s.get(), 0);
        const std::int64_t pk = intAt(s.get(), 3).value_or(0);
        if (pk != 0) ++keyColumns;
        if (intAt(s.get(), 1).value_or(-1) != 0) continue;
        if (name == "id" && pk == 1 && textAt(s.get(), 2) == "INTEGER") idIsIntegerKey = true;
        for (const char* want : kWantedColumns[r])
          if (name == want) set.columns[r].insert(name);
      }
      if (st == Step::Failed) return false;
      if (!idIsIntegerKey || keyColumns != 1) continue;
      const std::string indexWhat = "the indexes of " + set.table[r];
      const Statement k =
          db_.prepare("SELECT count(*) FROM pragma_index_list(?1, 'main') WHERE origin = 'pk'", indexWhat);
      if (!k) return false;
      sqlite3_bind_text(k.get(), 1, set.table[r].c_str(), -1, SQLITE_TRANSIENT);
      if (db_.step(k, indexWhat) != Step::Row) return false;
      set.idIsRowid[r] = intAt(k.get(), 0) == std::optional<std::int64_t>(0);
    }
    return true;
  }

  // Columns of the row of `relation` whose id is `key` (NULL where there is none): at most
  // one row per key either way. Where id is the rowid, a LEFT JOIN finds it with one rowid
  // seek, which can never give two rows; otherwise one scalar subquery per column (a join on
  // a key the file only claims is unique could multiply the rows read).
  struct Lookup {
    std::string join;
    std::vector<std::string> values;
  };
  Lookup lookup(const TableSet& set, Relation relation, const std::string& alias, const std::string& key,
                std::initializer_list<const char*> wanted) const {
    Lookup out;
    const std::string table = quoted(set.table[relation]);
    const bool rowid = set.idIsRowid[relation];
    if (rowid) out.join = " LEFT JOIN " + table + " " + alias + " ON " + alias + ".\"id\" = " + key;
    for (const char* column : wanted) {
      if (!set.columns[relation].count(column)) {
        out.values.emplace_back("NULL");
      } else if (rowid) {
        out.values.push_back(alias + "." + quoted(column));
      } else {
        out.values.push_back("(SELECT " + alias + "." + quoted(column) + " FROM " + table + " " + alias + " WHERE " +
                             alias + ".\"id\" = " + key + " LIMIT 1)");
      }
    }
    return out;
  }

  const char* symbolNameColumn(const TableSet& set) const {
    return set.columns[kSymbol].count("display_name") ? "display_name" : "kernel_name";
  }

  std::string dispatchProblem(const TableSet& set) const {
    const std::string table =
        "table " + (set.has(kDispatch) ? set.table[kDispatch] : kRelationName[kDispatch] + set.suffix);
    const auto missing = lacking(set.columns[kDispatch], {"agent_id", "kernel_id", "start", "end"});
    if (!set.has(kDispatch) || !missing.empty()) return describeMissing(table, set.has(kDispatch), missing);
    const std::string symbols =
        "table " + (set.has(kSymbol) ? set.table[kSymbol] : kRelationName[kSymbol] + set.suffix);
    const auto symbolsMissing = lacking(set.columns[kSymbol], {"id", symbolNameColumn(set)});
    if (!set.has(kSymbol) || !symbolsMissing.empty()) return describeMissing(symbols, set.has(kSymbol), symbolsMissing);
    return "";
  }
  bool dispatchUsable(const TableSet& set) const { return dispatchProblem(set).empty(); }

  std::string copyProblem(const TableSet& set) const {
    const std::string table = "table " + (set.has(kCopy) ? set.table[kCopy] : kRelationName[kCopy] + set.suffix);
    const auto missing = lacking(set.columns[kCopy], {"start", "end", "size", "src_agent_id", "dst_agent_id"});
    if (!set.has(kCopy) || !missing.empty()) return describeMissing(table, set.has(kCopy), missing);
    return "";
  }
  bool copyUsable(const TableSet& set) const { return copyProblem(set).empty(); }

  // One warning per kind of record that some table set could not give.
  void checkSchema() {
    Problem kernels, copies;
    bool anyKernels = false, anyCopies = false;
    for (const TableSet& set : sets_) {
      anyKernels = anyKernels || set.has(kDispatch);
      anyCopies = anyCopies || set.has(kCopy);
      if (set.has(kDispatch) && !dispatchUsable(set)) kernels.note(dispatchProblem(set));
      if (set.has(kCopy) && !copyUsable(set)) copies.note(copyProblem(set));
    }
    if (!anyKernels) kernels.note(std::string("no table ") + kRelationName[kDispatch] + viewsNote());
    if (!anyCopies) copies.note(std::string("no table ") + kRelationName[kCopy] + viewsNote());
    sayProblem(kernels, "kernel dispatches were not read");
    sayProblem(copies, "memory copies were not read");
  }

  void sayProblem(const Problem& p, const std::string& what) {
    if (p.count == 0) return;
    if (p.count == 1) {
      warnings_.push_back({"rocpd-schema", path_ + ": " + what + " (" + p.first + ")"});
    } else {
      warnings_.push_back({"rocpd-schema", path_ + ": " + what + " from " + std::to_string(p.count) +
                                               " per-process table sets (the first: " + p.first + ")"});
    }
  }

  std::string viewsNote() const {
    if (viewsSeen_ == 0) return "";
    return "; " + std::to_string(viewsSeen_) + (viewsSeen_ == 1 ? " view" : " views") +
           (firstView_.empty() ? "" : " (" + firstView_ + (viewsSeen_ > 1 ? ", ..." : "") + ")") +
           " not read: only rocprofv3's tables are";
  }

  // Agents -> GPU keys. With an agent table: GPU agents keyed by absolute index (agent rows
  // are per process: the same GPU seen by two processes has two ids and one index). Without
  // one, as the CSV reader does without agent_info.csv: the agents that ran kernels, keyed
  // after every indexed GPU.
  using GpuKey = std::pair<int, std::int64_t>;

  void readAgents(std::size_t index) {
    const TableSet& set = sets_[index];
    if (set.has(kAgent) && lacking(set.columns[kAgent], {"id", "type"}).empty()) {
      const std::string what = "the agents of " + set.table[kAgent];
      const Statement s = db_.prepare("SELECT A.\"id\", A.\"type\", " + set.col(kAgent, "A", "absolute_index") +
                                          " FROM " + quoted(set.table[kAgent]) + " A",
                                      what);
      if (!s) return;
      while (db_.step(s, what) == Step::Row) {
        const auto id = intAt(s.get(), 0);
        if (!id || textAt(s.get(), 1) != "GPU") continue;
        if (!keepAgent(index, *id, GpuKey{0, intAt(s.get(), 2).value_or(*id)})) return;
      }
      return;
    }
    noAgentTable_.note(
        describeMissing("table " + (set.has(kAgent) ? set.table[kAgent] : kRelationName[kAgent] + set.suffix),
                        set.has(kAgent), lacking(set.columns[kAgent], {"id", "type"})));
    if (!set.columns[kDispatch].count("agent_id")) return;
    // A first pass over the agent ids alone; the dispatch rows are read once numbering is known.
    const std::string what = "the agents of " + set.table[kDispatch];
    const Statement s = db_.prepare(
        "SELECT K.\"agent_id\" FROM " + quoted(set.table[kDispatch]) + " K WHERE K.\"agent_id\" IS NOT NULL", what);
    if (!s) return;
    while (db_.step(s, what) == Step::Row) {
      if (const auto id = intAt(s.get(), 0)) {
        if (!keepAgent(index, *id, GpuKey{1, *id})) return;
      }
    }
  }

  bool keepAgent(std::size_t set, std::int64_t id, GpuKey key) {
    const auto at = std::make_pair(set, id);
    if (keyOfAgent_.count(at)) return true;
    if (keyOfAgent_.size() >= kMaxAgents) {
      limits_.push_back("more than " + std::to_string(kMaxAgents) + " agents: the rest count as host memory");
      return false;
    }
    keyOfAgent_.emplace(at, key);
    return true;
  }

  void numberGpus() {
    std::map<GpuKey, int> gpuOfKey;
    for (const auto& entry : keyOfAgent_) gpuOfKey.emplace(entry.second, 0);
    int next = 0;
    for (auto& entry : gpuOfKey) entry.second = next++;
    for (const auto& [at, key] : keyOfAgent_) gpuOfAgent_[at] = gpuOfKey[key];
    keyOfAgent_.clear();
  }

  int gpu(std::size_t set, std::optional<std::int64_t> agent) const {
    if (!agent) return -1;
    const auto it = gpuOfAgent_.find(std::make_pair(set, *agent));
    return it == gpuOfAgent_.end() ? -1 : it->second;
  }

  enum class Span { Ok, Missing, OutOfRange, Reversed };

  // The row's times moved onto the caller's clock, every step checked.
  Span spanAt(sqlite3_stmt* s, int startCol, int endCol, std::int64_t& start, std::int64_t& end) const {
    const IntCell a = intCell(s, startCol), b = intCell(s, endCol);
    if (a.null || b.null) return Span::Missing;
    if (!a.value || !b.value) return Span::OutOfRange;
    const auto movedStart = ingest::add(*a.value, offset_), movedEnd = ingest::add(*b.value, offset_);
    // The duration must fit too: whoever reads the record subtracts start from end.
    if (!movedStart || !movedEnd || !ingest::sub(*movedEnd, *movedStart)) {
      return *b.value < *a.value ? Span::Reversed : Span::OutOfRange;
    }
    if (*movedEnd < *movedStart) return Span::Reversed;
    start = *movedStart;
    end = *movedEnd;
    return Span::Ok;
  }

  bool countSpan(Span span) {
    switch (span) {
      case Span::Ok:
        return true;
      case Span::Missing:
        ++skipped_;
        return false;
      case Span::OutOfRange:
        ++outOfRange_;
        return false;
      case Span::Reversed:
        ++reversed_;
        return false;
    }
    return false;
  }

  // A grid or workgroup size: 0 (unknown) where it is not a count that fits an int.
  int sizeAt(sqlite3_stmt* s, int col) {
    const IntCell c = intCell(s, col);
    if (c.null) return 0;
    const auto v = c.value ? ingest::toInt(*c.value) : std::nullopt;
    if (!v || *v < 0) {
      ++gridOutOfRange_;
      return 0;
    }
    return *v;
  }

  // Text kept in records, against the read's budget.
  bool takeText(std::size_t bytes) {
    if (bytes > kMaxTextBytes - std::min(kMaxTextBytes, textBytes_)) {
      limits_.push_back("the names read reached " + mibText(static_cast<sqlite3_int64>(kMaxTextBytes)) +
                        ": the rest of the records were not read");
      return false;
    }
    textBytes_ += bytes;
    return true;
  }

  void readDispatches(std::size_t index) {
    const TableSet& set = sets_[index];
    // dispatchUsable() saw the symbol table and its id.
    const Lookup symbol = lookup(set, kSymbol, "S", "K.\"kernel_id\"", {"display_name", "kernel_name"});
    Lookup event{"", {"NULL"}};
    if (set.has(kEvent) && lacking(set.columns[kEvent], {"id", "correlation_id"}).empty() &&
        set.columns[kDispatch].count("event_id")) {
      event = lookup(set, kEvent, "E", "K.\"event_id\"", {"correlation_id"});
    }
    std::string sql =
        "SELECT " + symbol.values[0] + ", " + symbol.values[1] + ", K.\"agent_id\", K.\"start\", K.\"end\"";
    for (const char* c :
         {"grid_size_x", "grid_size_y", "grid_size_z", "workgroup_size_x", "workgroup_size_y", "workgroup_size_z"}) {
      sql += ", " + set.col(kDispatch, "K", c);
    }
    sql += ", " + event.values[0] + " FROM " + quoted(set.table[kDispatch]) + " K" + symbol.join + event.join;
    const std::string what = "the kernel dispatches of " + set.table[kDispatch];
    const Statement s = db_.prepare(sql, what);
    if (!s) return;
    while (db_.step(s, what) == Step::Row) {
      sqlite3_stmt* row = s.get();
      const std::string display = textAt(row, 0), compiled = textAt(row, 1);
      const std::string& name = display.empty() ? compiled : display;
      std::int64_t start = 0, end = 0;
      if (name.empty()) {
        ++skipped_;
        continue;
      }
      if (!countSpan(spanAt(row, 3, 4, start, end))) continue;
      DispatchRecord d;
      d.name = name.size() <= kMaxDemangleBytes ? demangle(name) : name;
      if (d.name != name) d.mangled = name;
      if (d.mangled.empty() && compiled != d.name && compiled.rfind("_Z", 0) == 0) d.mangled = compiled;
      if (!takeText(d.name.size() + d.mangled.size())) {
        dispatchesDone_ = copiesDone_ = true;
        return;
      }
      d.startNs = start;
      d.endNs = end;
      for (int k = 0; k < 3; ++k) {
        d.grid[static_cast<std::size_t>(k)] = sizeAt(row, 5 + k);
        d.block[static_cast<std::size_t>(k)] = sizeAt(row, 8 + k);
      }
      d.correlationId = intAt(row, 11).value_or(-1);
      d.source = "rocprofv3";
      d.gpu = std::max(0, gpu(index, intAt(row, 2)));
      if (collector_.addDispatchMono(std::move(d))) {
        ++count_;
      } else if (collector_.full()) {
        // The collector says records-capped itself; reading more would only be dropped.
        dispatchesDone_ = true;
        return;
      }
    }
  }

  void readCopies(std::size_t index) {
    const TableSet& set = sets_[index];
    Lookup label{"", {"NULL"}};
    if (set.columns[kCopy].count("name_id") && set.has(kString) &&
        lacking(set.columns[kString], {"id", "string"}).empty()) {
      label = lookup(set, kString, "T", "M.\"name_id\"", {"string"});
    }
    const std::string sql = "SELECT " + label.values[0] +
                            ", M.\"start\", M.\"end\", M.\"size\", M.\"src_agent_id\", M.\"dst_agent_id\" FROM " +
                            quoted(set.table[kCopy]) + " M" + label.join;
    const std::string what = "the memory copies of " + set.table[kCopy];
    const Statement s = db_.prepare(sql, what);
    if (!s) return;
    while (db_.step(s, what) == Step::Row) {
      sqlite3_stmt* row = s.get();
      const auto size = intAt(row, 3);
      if (!size || *size < 0) {
        ++skipped_;
        continue;
      }
      std::int64_t start = 0, end = 0;
      if (!countSpan(spanAt(row, 1, 2, start, end))) continue;
      CopyRecord c;
      // As in the CSV reader: host-started, SDMA (or blit kernels; rocprofv3 does not say).
      c.mover = "engine";
      c.initiator = "host";
      c.srcGpu = gpu(index, intAt(row, 4));
      c.dstGpu = gpu(index, intAt(row, 5));
      c.bytes = static_cast<std::uint64_t>(*size);
      c.startNs = start;
      c.endNs = end;
      c.source = "rocprofv3";
      std::string text = textAt(row, 0);
      if (text.rfind("MEMORY_COPY_", 0) == 0) text = text.substr(12);
      c.label = text.empty() ? directionOf(c.srcGpu, c.dstGpu) : text;
      if (!takeText(c.label.size())) {
        copiesDone_ = true;
        return;
      }
      if (collector_.addCopyMono(std::move(c))) {
        ++count_;
      } else if (collector_.full()) {
        copiesDone_ = true;
        return;
      }
    }
  }

  std::size_t finish() {
    if (noAgentTable_.count > 0) {
      const std::string tail =
          ": GPUs are numbered by the agents that ran kernels; copy ends on no such agent count as host memory";
      if (noAgentTable_.count == 1) {
        warnings_.push_back({"rocpd-schema", path_ + ": " + noAgentTable_.first + tail});
      } else {
        warnings_.push_back({"rocpd-schema", path_ + ": " + std::to_string(noAgentTable_.count) +
                                                 " per-process table sets have no agent table (the first: " +
                                                 noAgentTable_.first + ")" + tail});
      }
    }
    std::vector<std::string> limits = db_.limitsHit();
    for (const std::string& l : limits_)
      if (std::find(limits.begin(), limits.end(), l) == limits.end()) limits.push_back(l);
    if (!limits.empty()) {
      std::string text;
      for (const std::string& l : limits) text += (text.empty() ? "" : "; ") + l;
      warnings_.push_back(
          {"rocpd-limit", path_ + ": reading stopped at a limit (" + text + "): the records may be incomplete"});
    }
    if (!db_.error().empty()) {
      warnings_.push_back(
          {"rocpd-unreadable", path_ + ": a query failed (" + db_.error() + "): the records may be incomplete"});
    }
    if (skipped_ > 0) {
      warnings_.push_back({"rocpd-rows-skipped", path_ + ": " + std::to_string(skipped_) +
                                                     " rows without a name, start, end or size were left out"});
    }
    if (outOfRange_ > 0) {
      warnings_.push_back({"rocpd-time-out-of-range",
                           path_ + ": " + std::to_string(outOfRange_) +
                               " rows whose start or end is not a whole ns count that fits a signed 64-bit number "
                               "(after moving it onto the run's clock) were left out"});
    }
    if (reversed_ > 0) {
      warnings_.push_back({"rocpd-span-reversed", path_ + ": " + std::to_string(reversed_) +
                                                      " rows that end before they start were left out"});
    }
    if (gridOutOfRange_ > 0) {
      warnings_.push_back({"rocpd-grid-out-of-range",
                           path_ + ": " + std::to_string(gridOutOfRange_) +
                               " grid or workgroup sizes were negative or too large and read as 0 (unknown)"});
    }
    if (db_.cancelled()) {
      warnings_.push_back({"rocpd-cancelled", path_ + ": reading was cancelled: the records are incomplete"});
    }
    return count_;
  }

  Database& db_;
  const std::string& path_;
  std::int64_t offset_;
  TraceCollector& collector_;
  std::vector<CollectorWarning>& warnings_;
  std::vector<TableSet> sets_;
  std::vector<std::string> limits_;  // this reader's own caps that were reached
  std::size_t viewsSeen_ = 0;
  std::string firstView_;
  bool tableListWorks_ = true;
  Problem noAgentTable_;
  std::map<std::pair<std::size_t, std::int64_t>, GpuKey> keyOfAgent_;
  std::map<std::pair<std::size_t, std::int64_t>, int> gpuOfAgent_;
  bool dispatchesDone_ = false;
  bool copiesDone_ = false;
  std::size_t count_ = 0;
  std::size_t textBytes_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t outOfRange_ = 0;
  std::uint64_t reversed_ = 0;
  std::uint64_t gridOutOfRange_ = 0;
};

}  // namespace

std::size_t readRocpdDatabase(const std::string& path, std::int64_t clockToMonoNs, TraceCollector& collector,
                              std::vector<CollectorWarning>& warnings, ingest::Control& control) {
  if (!control.poll()) {
    warnings.push_back({"rocpd-cancelled", path + ": reading was cancelled: nothing was read"});
    return 0;
  }
  // No link, no FIFO, no device, nothing over the cap: SQLite gets only this descriptor.
  const ingest::SafeFile file = ingest::SafeFile::open(path, kRocpdMaxFileBytes);
  if (!file.ok()) {
    warnings.push_back(
        {"rocpd-unreadable", path + " could not be read (" + file.problem() + "): pass the .db file rocprofv3 wrote"});
    return 0;
  }
  const HeapLimit heapLimit;
  Database db(file, control);
  if (!db.opened()) {
    if (db.cancelled()) {
      warnings.push_back({"rocpd-cancelled", path + ": reading was cancelled: nothing was read"});
    } else if (!db.limitsHit().empty()) {
      warnings.push_back({"rocpd-limit", path + ": its schema could not be read within the limits here (" +
                                             db.limitsHit().front() + "): nothing was read"});
    } else {
      warnings.push_back({"rocpd-unreadable", path + " could not be read as an SQLite database (" + db.error() +
                                                  "): pass the .db file rocprofv3 wrote"});
    }
    return 0;
  }
  Reader reader(db, path, clockToMonoNs, collector, warnings);
  return reader.read();
}

#endif

}  // namespace sdma::runmode
