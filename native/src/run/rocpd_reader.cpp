#include "run/rocpd_reader.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#if SDMA_PROBE_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "run/records.hpp"

namespace sdma::runmode {

#if !SDMA_PROBE_HAVE_SQLITE

bool rocpdSupported() { return false; }

std::size_t readRocpdDatabase(const std::string& path, std::int64_t, TraceCollector&,
                              std::vector<CollectorWarning>& warnings, ingest::Control&) {
  warnings.push_back({"rocpd-unsupported",
                      "this sdma-probe was built without SQLite3, so it cannot read the rocpd database " + path +
                          ": install SQLite3's headers (libsqlite3-dev) and rebuild the helper, or profile with "
                          "rocprofv3 --output-format csv"});
  return 0;
}

#else

bool rocpdSupported() { return true; }

namespace {

// The names below are rocprofv3's documented views and tables (docs/PROFILE.md, "rocpd").
// Only these constants are ever put into SQL text; nothing read from a file is.

class Database {
 public:
  explicit Database(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      problem_ = db_ ? sqlite3_errmsg(db_) : "cannot open";
      return;
    }
    // Opening is lazy: the first read tells a database from any other file.
    sqlite3_stmt* s = prepare("SELECT count(*) FROM sqlite_master");
    if (!s) return;
    if (sqlite3_step(s) != SQLITE_ROW) problem_ = sqlite3_errmsg(db_);
    sqlite3_finalize(s);
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& problem() const { return problem_; }

  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      problem_ = sqlite3_errmsg(db_);
      sqlite3_finalize(s);
      return nullptr;
    }
    return s;
  }

  // Columns of a table or view; empty when there is none of that name.
  std::set<std::string> columns(const std::string& relation) {
    std::set<std::string> out;
    sqlite3_stmt* s = prepare("SELECT name FROM pragma_table_info(?1)");
    if (!s) return out;
    sqlite3_bind_text(s, 1, relation.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) {
      if (const unsigned char* name = sqlite3_column_text(s, 0)) out.insert(reinterpret_cast<const char*>(name));
    }
    sqlite3_finalize(s);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
  std::string problem_;
};

std::optional<std::int64_t> intAt(sqlite3_stmt* s, int col) {
  if (sqlite3_column_type(s, col) == SQLITE_NULL) return std::nullopt;
  return static_cast<std::int64_t>(sqlite3_column_int64(s, col));
}

std::string textAt(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}

std::vector<std::string> lacking(const std::set<std::string>& have, std::initializer_list<const char*> need) {
  std::vector<std::string> out;
  for (const char* n : need)
    if (!have.count(n)) out.emplace_back(n);
  return out;
}

std::string describeMissing(const std::string& relation, const std::set<std::string>& have,
                            const std::vector<std::string>& missing) {
  if (have.empty()) return "no " + relation;
  std::string out = relation + " lacks ";
  for (std::size_t i = 0; i < missing.size(); ++i) out += (i ? ", " : "") + missing[i];
  return out;
}

// `column` when the relation has it, else NULL: optional columns keep their place.
std::string optional(const std::set<std::string>& have, const std::string& prefix, const char* column) {
  return have.count(column) ? prefix + "\"" + column + "\"" : std::string("NULL");
}

struct AgentMap {
  bool fromAgentTable = false;
  std::map<std::int64_t, int> gpuOfAgent;  // rocpd agent id -> GPU index; absent: host
  int gpu(std::optional<std::int64_t> agent) const {
    if (!agent) return -1;
    const auto it = gpuOfAgent.find(*agent);
    return it == gpuOfAgent.end() ? -1 : it->second;
  }
};

// GPU agents in absolute-index order become GPUs 0..n-1, as the CSV reader orders
// agent_info.csv's. Agent rows are per process: the same GPU seen by two processes has two
// ids and one absolute index.
bool readAgents(Database& db, AgentMap& agents) {
  const std::set<std::string> have = db.columns("rocpd_info_agent");
  if (!lacking(have, {"id", "type"}).empty()) return false;
  sqlite3_stmt* s = db.prepare("SELECT id, type, " + optional(have, "", "absolute_index") + " FROM rocpd_info_agent");
  if (!s) return false;
  std::map<std::int64_t, std::int64_t> keyOfAgent;
  std::set<std::int64_t> keys;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const auto id = intAt(s, 0);
    if (!id || textAt(s, 1) != "GPU") continue;
    const std::int64_t key = intAt(s, 2).value_or(*id);
    keyOfAgent[*id] = key;
    keys.insert(key);
  }
  sqlite3_finalize(s);
  for (const auto& [id, key] : keyOfAgent) {
    agents.gpuOfAgent[id] = static_cast<int>(std::distance(keys.begin(), keys.find(key)));
  }
  agents.fromAgentTable = true;
  return true;
}

// kernel symbol id -> the name as compiled (mangled), to keep beside the display name.
std::map<std::int64_t, std::string> symbolNames(Database& db) {
  std::map<std::int64_t, std::string> out;
  if (!lacking(db.columns("rocpd_info_kernel_symbol"), {"id", "kernel_name"}).empty()) return out;
  sqlite3_stmt* s = db.prepare("SELECT id, kernel_name FROM rocpd_info_kernel_symbol");
  if (!s) return out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (const auto id = intAt(s, 0)) out[*id] = textAt(s, 1);
  }
  sqlite3_finalize(s);
  return out;
}

// One SELECT giving, in this order: name, agent, start, end, grid x/y/z, workgroup x/y/z,
// correlation id, kernel symbol id. The documented `kernels` view first; the tables of the
// schema that keeps times and agents in the dispatch row when the view is not there.
std::optional<std::string> kernelQuery(Database& db, std::string& why) {
  const std::set<std::string> view = db.columns("kernels");
  const auto viewMissing = lacking(view, {"name", "agent_id", "start", "end"});
  if (viewMissing.empty()) {
    std::string sql = "SELECT name, agent_id, start, \"end\"";
    for (const char* c : {"grid_x", "grid_y", "grid_z", "workgroup_x", "workgroup_y", "workgroup_z", "correlation_id",
                          "kernel_id"}) {
      sql += ", " + optional(view, "", c);
    }
    return sql + " FROM kernels";
  }
  const std::set<std::string> table = db.columns("rocpd_kernel_dispatch");
  const std::set<std::string> symbols = db.columns("rocpd_info_kernel_symbol");
  const auto tableMissing = lacking(table, {"agent_id", "kernel_id", "start", "end"});
  const char* nameColumn = symbols.count("display_name") ? "display_name" : "kernel_name";
  const auto symbolsMissing = lacking(symbols, {"id", nameColumn});
  if (tableMissing.empty() && symbolsMissing.empty()) {
    std::string sql = std::string("SELECT S.\"") + nameColumn + "\", K.agent_id, K.start, K.\"end\"";
    for (const char* c : {"grid_size_x", "grid_size_y", "grid_size_z", "workgroup_size_x", "workgroup_size_y",
                          "workgroup_size_z"}) {
      sql += ", " + optional(table, "K.", c);
    }
    return sql + ", NULL, K.kernel_id FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id";
  }
  why = describeMissing("view kernels", view, viewMissing) + "; " +
        (tableMissing.empty() ? describeMissing("table rocpd_info_kernel_symbol", symbols, symbolsMissing)
                              : describeMissing("table rocpd_kernel_dispatch", table, tableMissing));
  return std::nullopt;
}

// name, start, end, size, source agent, destination agent.
std::optional<std::string> copyQuery(Database& db, std::string& why) {
  const std::set<std::string> view = db.columns("memory_copies");
  const auto viewMissing = lacking(view, {"start", "end", "size", "src_agent_id", "dst_agent_id"});
  if (viewMissing.empty()) {
    return "SELECT " + optional(view, "", "name") + ", start, \"end\", size, src_agent_id, dst_agent_id FROM memory_copies";
  }
  const std::set<std::string> table = db.columns("rocpd_memory_copy");
  const auto tableMissing = lacking(table, {"start", "end", "size", "src_agent_id", "dst_agent_id"});
  if (tableMissing.empty()) {
    const bool names = table.count("name_id") && lacking(db.columns("rocpd_string"), {"id", "string"}).empty();
    return std::string("SELECT ") +
           (names ? "(SELECT T.string FROM rocpd_string T WHERE T.id = M.name_id)" : "NULL") +
           ", M.start, M.\"end\", M.size, M.src_agent_id, M.dst_agent_id FROM rocpd_memory_copy M";
  }
  why = describeMissing("view memory_copies", view, viewMissing) + "; " +
        describeMissing("table rocpd_memory_copy", table, tableMissing);
  return std::nullopt;
}

std::string directionOf(int src, int dst) {
  if (src < 0 && dst < 0) return "HOST_TO_HOST";
  if (src < 0) return "HOST_TO_DEVICE";
  if (dst < 0) return "DEVICE_TO_HOST";
  return "DEVICE_TO_DEVICE";
}

}  // namespace

std::size_t readRocpdDatabase(const std::string& path, std::int64_t clockToMonoNs, TraceCollector& collector,
                              std::vector<CollectorWarning>& warnings, ingest::Control&) {
  Database db(path);
  if (!db.problem().empty()) {
    warnings.push_back({"rocpd-unreadable", path + " could not be read as an SQLite database (" + db.problem() +
                                                "): pass the .db file rocprofv3 wrote"});
    return 0;
  }
  std::string kernelsWhy, copiesWhy;
  const std::optional<std::string> kernels = kernelQuery(db, kernelsWhy);
  const std::optional<std::string> copies = copyQuery(db, copiesWhy);
  if (!kernels && !copies) {
    warnings.push_back({"rocpd-schema", path + " is not a rocpd database this helper understands (" + kernelsWhy +
                                            "; " + copiesWhy + "): nothing was read"});
    return 0;
  }
  if (!kernels) {
    warnings.push_back({"rocpd-schema", path + ": kernel dispatches were not read (" + kernelsWhy + ")"});
  }
  if (!copies) {
    warnings.push_back({"rocpd-schema", path + ": memory copies were not read (" + copiesWhy + ")"});
  }

  AgentMap agents;
  const bool agentTable = readAgents(db, agents);
  const std::map<std::int64_t, std::string> mangledById = symbolNames(db);

  struct Row {
    DispatchRecord d;
    std::optional<std::int64_t> agent;
  };
  std::vector<Row> dispatches;
  std::size_t skipped = 0;
  if (kernels) {
    if (sqlite3_stmt* s = db.prepare(*kernels)) {
      while (sqlite3_step(s) == SQLITE_ROW) {
        const auto start = intAt(s, 2), end = intAt(s, 3);
        const std::string name = textAt(s, 0);
        if (!start || !end || name.empty()) {
          ++skipped;
          continue;
        }
        Row r;
        r.agent = intAt(s, 1);
        r.d.name = demangle(name);
        if (r.d.name != name) r.d.mangled = name;
        if (const auto symbol = intAt(s, 11); symbol && r.d.mangled.empty()) {
          const auto it = mangledById.find(*symbol);
          if (it != mangledById.end() && it->second != r.d.name && it->second.rfind("_Z", 0) == 0) r.d.mangled = it->second;
        }
        r.d.startNs = *start + clockToMonoNs;
        r.d.endNs = *end + clockToMonoNs;
        for (int k = 0; k < 3; ++k) {
          r.d.grid[static_cast<std::size_t>(k)] = static_cast<int>(intAt(s, 4 + k).value_or(0));
          r.d.block[static_cast<std::size_t>(k)] = static_cast<int>(intAt(s, 7 + k).value_or(0));
        }
        r.d.correlationId = intAt(s, 10).value_or(-1);
        r.d.source = "rocprofv3";
        dispatches.push_back(std::move(r));
      }
      sqlite3_finalize(s);
    }
  }
  if (!agentTable) {
    // As the CSV reader does without agent_info.csv: the agents that ran kernels are the GPUs.
    std::set<std::int64_t> ran;
    for (const Row& r : dispatches)
      if (r.agent) ran.insert(*r.agent);
    for (const std::int64_t a : ran) agents.gpuOfAgent[a] = static_cast<int>(agents.gpuOfAgent.size());
    warnings.push_back({"rocpd-schema", path + ": " + describeMissing("table rocpd_info_agent", db.columns("rocpd_info_agent"),
                                                                      lacking(db.columns("rocpd_info_agent"), {"id", "type"})) +
                                            ": GPUs are numbered by the agents that ran kernels; copy ends on no such "
                                            "agent count as host memory"});
  }
  std::size_t count = 0;
  for (Row& r : dispatches) {
    r.d.gpu = std::max(0, agents.gpu(r.agent));
    collector.addDispatchMono(std::move(r.d));
    ++count;
  }
  if (copies) {
    if (sqlite3_stmt* s = db.prepare(*copies)) {
      while (sqlite3_step(s) == SQLITE_ROW) {
        const auto start = intAt(s, 1), end = intAt(s, 2), size = intAt(s, 3);
        if (!start || !end || !size || *size < 0) {
          ++skipped;
          continue;
        }
        CopyRecord c;
        // As in the CSV reader: host-started, SDMA (or blit kernels; rocprofv3 does not say).
        c.mover = "engine";
        c.initiator = "host";
        c.srcGpu = agents.gpu(intAt(s, 4));
        c.dstGpu = agents.gpu(intAt(s, 5));
        c.bytes = static_cast<std::uint64_t>(*size);
        c.startNs = *start + clockToMonoNs;
        c.endNs = *end + clockToMonoNs;
        c.source = "rocprofv3";
        std::string label = textAt(s, 0);
        if (label.rfind("MEMORY_COPY_", 0) == 0) label = label.substr(12);
        c.label = label.empty() ? directionOf(c.srcGpu, c.dstGpu) : label;
        collector.addCopyMono(std::move(c));
        ++count;
      }
      sqlite3_finalize(s);
    }
  }
  if (!db.problem().empty()) {
    warnings.push_back({"rocpd-unreadable", path + ": a query failed (" + db.problem() + "): the records may be incomplete"});
  }
  if (skipped > 0) {
    warnings.push_back({"rocpd-rows-skipped", path + ": " + std::to_string(skipped) +
                                                  " rows without a name, start, end or size were left out"});
  }
  return count;
}

#endif

}  // namespace sdma::runmode
