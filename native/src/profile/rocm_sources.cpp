#include "profile/rocm_sources.hpp"

#include <ftw.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <set>

#include "util/checked.hpp"
#include "util/safe_file.hpp"
#include "profile/csv_rows.hpp"
#include "profile/rocpd_reader.hpp"

namespace sdma::runmode {

namespace {

using ingest::CsvReader;
using ingest::CsvRow;
constexpr std::size_t kNoColumn = CsvReader::kNoColumn;

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::int64_t clockNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// A cell quoted in a message: printable ASCII only and short, whatever the file holds.
std::string quoteCell(std::string_view cell) {
  constexpr std::size_t kShown = 40;
  std::string out = "\"";
  for (std::size_t i = 0; i < cell.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(cell[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (cell.size() > kShown) out += "...";
  return out + "\"";
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// One CSV trace: a file under the folder, or a text in memory (empty path).
struct CsvSource {
  std::string name;  // for messages: the path, or the file's usual name for a text
  std::string path;
  std::string_view text;
};

// Rows left out (or changed) for one reason: how many, and where the first was.
struct Tally {
  std::uint64_t count = 0;
  std::string first;

  // `detail` is only built for the first one.
  template <typename Detail>
  void note(const CsvSource& source, const CsvRow& row, Detail detail) {
    if (count++ == 0) first = source.name + " line " + std::to_string(row.line()) + " (" + detail() + ")";
  }
};

struct AgentColumns {
  std::size_t agentType = kNoColumn, type = kNoColumn;
  std::vector<std::size_t> ids;  // in the order they are tried
};

struct KernelColumns {
  std::size_t start = kNoColumn, end = kNoColumn, name = kNoColumn, agent = kNoColumn, correlation = kNoColumn;
  std::size_t grid[3] = {kNoColumn, kNoColumn, kNoColumn};
  std::size_t block[3] = {kNoColumn, kNoColumn, kNoColumn};
};

struct CopyColumns {
  std::size_t start = kNoColumn, end = kNoColumn, src = kNoColumn, dst = kNoColumn, bytes = kNoColumn,
              direction = kNoColumn;
};

constexpr const char* kGridColumns[3] = {"Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"};
constexpr const char* kBlockColumns[3] = {"Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z"};

// Reads rocprofv3's CSV traces row by row into the collector, counting everything it leaves
// out, and says it all in warnings at the end.
class CsvImport {
 public:
  CsvImport(std::int64_t bootToMono, TraceCollector& collector, std::vector<CollectorWarning>& warnings,
            ingest::Control& control)
      : bootToMono_(bootToMono), collector_(collector), warnings_(warnings), control_(control) {}

  std::size_t run(const std::vector<CsvSource>& agentFiles, const std::vector<CsvSource>& kernelFiles,
                  const std::vector<CsvSource>& copyFiles) {
    // Agent ids to GPU indices: GPU agents in id order, from agent_info.csv when present,
    // else from the agents that ran kernels. Those come from a first pass over the kernel
    // files that keeps only the ids, so no row is ever held beyond its own reading.
    for (const CsvSource& f : agentFiles) {
      if (!readAgentInfo(f)) return finish();
    }
    if (agentSet_.empty()) {
      for (const CsvSource& f : kernelFiles) {
        if (!collectKernelAgents(f)) return finish();
      }
    }
    gpuAgents_.assign(agentSet_.begin(), agentSet_.end());
    agentSet_.clear();
    // Each kind stops at its own cap: kernels past theirs leave the copies still to read.
    for (const CsvSource& f : kernelFiles) {
      if (!readKernels(f)) return finish();
      if (kindFull_) break;
    }
    kindFull_ = false;
    for (const CsvSource& f : copyFiles) {
      if (!readCopies(f)) return finish();
      if (kindFull_) break;
    }
    return finish();
  }

 private:
  using Prepare = std::function<bool(const CsvReader& reader)>;
  using OnRow = std::function<bool(const CsvRow& row)>;

  // Reads one source. `prepare` looks the columns up once the header is known (false: the
  // file is of no use and is left). false when all reading must stop (cancelled). With
  // `report` false (the first pass over the kernel files) its problems are left
  // for the second pass to say.
  bool read(const CsvSource& source, bool report, const Prepare& prepare, const OnRow& onRow) {
    CsvReader reader(ingest::CsvLimits{kRocprofCsvMaxRowBytes, kRocprofCsvMaxRows});
    bool prepared = false;
    const CsvReader::OnRow each = [&](const CsvRow& row) {
      if (!prepared) {
        prepared = true;
        if (!prepare(reader)) return false;
      }
      return onRow(row);
    };
    const ingest::CsvReadResult r =
        source.path.empty() ? ingest::readCsvText(source.text, reader, control_, each)
                            : ingest::readCsvFile(source.path, kRocprofCsvMaxFileBytes, reader, control_, each);
    if (r.cancelled) {
      cancelledIn_ = source.name;
      return false;
    }
    // A header and no rows: the columns are still checked, so a wrong file is named.
    if (!prepared && reader.hasHeader()) prepare(reader);
    if (!report) return true;
    if (!r.problem.empty()) {
      warnings_.push_back({"rocprofv3-file-unreadable", source.name + " was not read: it " + r.problem});
    } else if (r.byteCapReached) {
      warnings_.push_back({"rocprofv3-file-unreadable", source.name + " grew past " +
                                                            ingest::bytesInWords(kRocprofCsvMaxFileBytes) +
                                                            " while it was read: the rest of it was not read"});
    }
    const std::string malformed = reader.malformedSummary();
    if (!malformed.empty()) warnings_.push_back({"rocprofv3-csv-malformed", source.name + ": " + malformed});
    if (reader.problems().rowsCapped) {
      warnings_.push_back(
          {"rocprofv3-csv-rows-capped", source.name + " has more than " + std::to_string(kRocprofCsvMaxRows) +
                                            " rows: the rest, from line " +
                                            std::to_string(reader.problems().rowsCappedLine) + ", was not read"});
    }
    return true;
  }

  // Says which needed columns a file lacks; true when it has them all.
  bool require(const CsvSource& source, const CsvReader& reader, std::initializer_list<const char*> names,
               bool report) {
    std::string missing;
    for (const char* name : names) {
      if (reader.column(name) == kNoColumn) missing += (missing.empty() ? "" : ", ") + std::string(name);
    }
    if (missing.empty()) return true;
    if (report) {
      warnings_.push_back(
          {"rocprofv3-csv-columns", source.name + " lacks the column(s) " + missing + ": its rows were not read"});
    }
    return false;
  }

  void addAgent(std::int64_t id) {
    if (agentSet_.size() >= kRocprofMaxAgents && agentSet_.count(id) == 0) {
      agentsCapped_ = true;
      return;
    }
    agentSet_.insert(id);
  }

  bool readAgentInfo(const CsvSource& source) {
    AgentColumns c;
    const Prepare prepare = [&](const CsvReader& reader) {
      c.agentType = reader.column("Agent_Type");
      c.type = reader.column("Type");
      for (const char* key : {"Logical_Node_Id", "Node_Id", "Agent_Id", "Id"}) {
        if (reader.column(key) != kNoColumn) c.ids.push_back(reader.column(key));
      }
      if ((c.agentType == kNoColumn && c.type == kNoColumn) || c.ids.empty()) {
        warnings_.push_back({"rocprofv3-csv-columns",
                             source.name + " lacks an Agent_Type (or Type) column or an agent id column "
                                           "(Logical_Node_Id, Node_Id, Agent_Id, Id): its agents were not read"});
        return false;
      }
      return true;
    };
    return read(source, true, prepare, [&](const CsvRow& row) {
      std::string_view type = row[c.agentType];
      if (type.empty()) type = row[c.type];
      if (type.find("GPU") == std::string_view::npos) return true;
      // The first id column with a whole non-negative number names the agent.
      for (const std::size_t column : c.ids) {
        const std::optional<std::int64_t> id = ingest::parseInt64(row[column]);
        if (id && *id >= 0) {
          addAgent(*id);
          break;
        }
      }
      return true;
    });
  }

  bool collectKernelAgents(const CsvSource& source) {
    std::size_t agent = kNoColumn;
    const Prepare prepare = [&](const CsvReader& reader) {
      agent = reader.column("Agent_Id");
      return agent != kNoColumn;
    };
    return read(source, false, prepare, [&](const CsvRow& row) {
      const std::optional<std::int64_t> id = ingest::parseInt64(row[agent]);
      if (id && *id >= 0) addAgent(*id);
      return true;
    });
  }

  // The GPU index of an agent id cell; -1 when it names no GPU agent.
  int gpuOf(std::string_view cell) const {
    const std::optional<std::int64_t> id = ingest::parseInt64(cell);
    if (!id) return -1;
    const auto it = std::lower_bound(gpuAgents_.begin(), gpuAgents_.end(), *id);
    if (it == gpuAgents_.end() || *it != *id) return -1;
    return static_cast<int>(it - gpuAgents_.begin());  // at most kRocprofMaxAgents
  }

  // A timestamp cell on the run's clock: a whole number of ns from 0 to 2^63-1 whose sum
  // with bootToMono fits; nullopt (counted) otherwise.
  std::optional<std::int64_t> time(const CsvSource& source, const CsvRow& row, std::size_t column, const char* name) {
    const std::string_view cell = row[column];
    const std::optional<std::int64_t> t = ingest::parseInt64(cell);
    if (!t || *t < 0) {
      timeBad_.note(source, row, [&] { return std::string(name) + " " + quoteCell(cell); });
      return std::nullopt;
    }
    const std::optional<std::int64_t> shifted = ingest::add(*t, bootToMono_);
    if (!shifted) {
      timeBad_.note(source, row, [&] {
        return std::string(name) + " " + std::to_string(*t) + " plus the clock offset " + std::to_string(bootToMono_) +
               " overflows";
      });
    }
    return shifted;
  }

  // Start and end on the run's clock, or nullopt (counted) when either is out of range or the
  // span runs backwards.
  std::optional<std::pair<std::int64_t, std::int64_t>> span(const CsvSource& source, const CsvRow& row,
                                                            std::size_t startColumn, std::size_t endColumn) {
    const std::optional<std::int64_t> start = time(source, row, startColumn, "Start_Timestamp");
    if (!start) return std::nullopt;
    const std::optional<std::int64_t> end = time(source, row, endColumn, "End_Timestamp");
    if (!end) return std::nullopt;
    if (*end < *start) {
      reversed_.note(source, row, [&] {
        return "Start_Timestamp " + std::string(row[startColumn]) + ", End_Timestamp " + std::string(row[endColumn]);
      });
      return std::nullopt;
    }
    return std::make_pair(*start, *end);
  }

  // A grid or workgroup size: 0 when the column is absent or empty (as rocprofv3 versions
  // without it); 0 and counted when it is not a whole number from 0 to INT_MAX.
  int size(const CsvSource& source, const CsvRow& row, std::size_t column, const char* name) {
    const std::string_view cell = row[column];
    if (cell.empty()) return 0;
    const std::optional<std::int64_t> v = ingest::parseInt64(cell);
    const std::optional<int> n = v ? ingest::toInt(*v) : std::nullopt;
    if (!n || *n < 0) {
      sizeBad_.note(source, row, [&] { return std::string(name) + " " + quoteCell(cell); });
      return 0;
    }
    return *n;
  }

  // The collector did not keep a record; it counts and says why itself. Full: this kind's
  // cap is reached (its other refusal, times off its time line, is for one record and cannot
  // come from times checked as above), so the rest of this kind's files is not read.
  bool refused() {
    if (!collector_.full()) return true;
    kindFull_ = true;
    return false;
  }

  bool readKernels(const CsvSource& source) {
    KernelColumns c;
    const Prepare prepare = [&](const CsvReader& reader) {
      if (!require(source, reader, {"Kernel_Name", "Start_Timestamp", "End_Timestamp"}, true)) return false;
      c.name = reader.column("Kernel_Name");
      c.start = reader.column("Start_Timestamp");
      c.end = reader.column("End_Timestamp");
      c.agent = reader.column("Agent_Id");
      c.correlation = reader.column("Correlation_Id");
      for (int i = 0; i < 3; ++i) {
        c.grid[i] = reader.column(kGridColumns[i]);
        c.block[i] = reader.column(kBlockColumns[i]);
      }
      return true;
    };
    return read(source, true, prepare, [&](const CsvRow& row) {
      const std::string_view name = row[c.name];
      if (name.empty()) {
        noName_.note(source, row, [] { return std::string("Kernel_Name empty"); });
        return true;
      }
      const auto times = span(source, row, c.start, c.end);
      if (!times) return true;
      DispatchRecord d;
      d.name = demangle(std::string(name));
      if (d.name != name) d.mangled = std::string(name);
      d.gpu = std::max(0, gpuOf(row[c.agent]));
      d.startNs = times->first;
      d.endNs = times->second;
      for (int i = 0; i < 3; ++i) {
        d.grid[i] = size(source, row, c.grid[i], kGridColumns[i]);
        d.block[i] = size(source, row, c.block[i], kBlockColumns[i]);
      }
      d.source = "rocprofv3";
      d.correlationId = ingest::parseInt64(row[c.correlation]).value_or(-1);
      if (!collector_.addDispatchMono(std::move(d))) return refused();
      ++count_;
      return true;
    });
  }

  bool readCopies(const CsvSource& source) {
    CopyColumns c;
    const Prepare prepare = [&](const CsvReader& reader) {
      if (!require(source, reader, {"Start_Timestamp", "End_Timestamp"}, true)) return false;
      c.start = reader.column("Start_Timestamp");
      c.end = reader.column("End_Timestamp");
      c.src = reader.column("Source_Agent_Id");
      c.dst = reader.column("Destination_Agent_Id");
      c.bytes = reader.column("Bytes");
      c.direction = reader.column("Direction");
      return true;
    };
    return read(source, true, prepare, [&](const CsvRow& row) {
      const auto times = span(source, row, c.start, c.end);
      if (!times) return true;
      CopyRecord r;
      // hipMemcpy*: started by the host, moved by an SDMA engine (or by blit kernels when
      // HSA_ENABLE_SDMA=0; rocprofv3 does not say which).
      r.mover = "engine";
      r.initiator = "host";
      r.srcGpu = gpuOf(row[c.src]);
      r.dstGpu = gpuOf(row[c.dst]);
      const std::string_view bytes = row[c.bytes];
      if (bytes.empty()) {
        bytesMissing_ = true;  // older rocprofv3 writes no Bytes column
      } else if (const std::optional<std::int64_t> b = ingest::parseInt64(bytes); b && *b >= 0) {
        r.bytes = static_cast<std::uint64_t>(*b);
      } else {
        bytesBad_.note(source, row, [&] { return "Bytes " + quoteCell(bytes); });
      }
      r.startNs = times->first;
      r.endNs = times->second;
      r.source = "rocprofv3";
      std::string_view direction = row[c.direction];
      if (direction.substr(0, 12) == "MEMORY_COPY_") direction.remove_prefix(12);
      r.label = std::string(direction);
      if (!collector_.addCopyMono(std::move(r))) return refused();
      ++count_;
      return true;
    });
  }

  void warnTally(const Tally& t, const char* code, const std::string& what) {
    if (t.count > 0)
      warnings_.push_back({code, plural(t.count, "row", "rows") + " " + what + "; the first: " + t.first});
  }

  std::size_t finish() {
    warnTally(timeBad_, "rocprofv3-time-out-of-range",
              "left out: a Start_Timestamp or End_Timestamp that is not a whole number of nanoseconds from 0 to "
              "9223372036854775807, or that overflows when moved onto the run's clock");
    warnTally(reversed_, "rocprofv3-span-reversed", "left out: End_Timestamp before Start_Timestamp");
    warnTally(noName_, "rocprofv3-rows-skipped", "of kernel dispatches left out: no Kernel_Name");
    warnTally(sizeBad_, "rocprofv3-size-out-of-range",
              "with a grid or workgroup size that is not a whole number from 0 to 2147483647: it reads 0");
    warnTally(bytesBad_, "rocprofv3-bytes-out-of-range",
              "of memory copies with a Bytes value that is not a whole number from 0 to 9223372036854775807: "
              "they carry bytes 0");
    if (bytesMissing_) {
      warnings_.push_back({"rocprofv3-no-bytes", "this rocprofv3 writes no Bytes column: memory copies carry bytes 0"});
    }
    if (agentsCapped_) {
      warnings_.push_back({"rocprofv3-agents-capped", "more than " + std::to_string(kRocprofMaxAgents) +
                                                          " GPU agents: records of the others carry no GPU index"});
    }
    if (!cancelledIn_.empty()) {
      warnings_.push_back({"import-cancelled", "reading rocprofv3's CSV traces was cancelled in " + cancelledIn_ +
                                                   ": " + plural(count_, "record", "records") +
                                                   " read until then are kept"});
    }
    return count_;
  }

  std::int64_t bootToMono_;
  TraceCollector& collector_;
  std::vector<CollectorWarning>& warnings_;
  ingest::Control& control_;
  std::set<std::int64_t> agentSet_;      // at most kRocprofMaxAgents
  std::vector<std::int64_t> gpuAgents_;  // the same, sorted, while rows are read
  bool agentsCapped_ = false;
  bool kindFull_ = false;  // the collector refused a record of the kind being read: its cap
  std::string cancelledIn_;
  std::size_t count_ = 0;
  Tally timeBad_, reversed_, noName_, sizeBad_, bytesBad_;
  bool bytesMissing_ = false;
};

}  // namespace

std::vector<std::map<std::string, std::string>> parseCsv(const std::string& text) {
  std::vector<std::map<std::string, std::string>> out;
  CsvReader reader;
  const CsvReader::OnRow onRow = [&](const CsvRow& row) {
    std::map<std::string, std::string> m;
    const std::vector<std::string>& header = reader.header();
    // As before: a name that repeats in the header keeps its last column.
    for (std::size_t k = 0; k < header.size(); ++k) m[header[k]] = std::string(row[k]);
    out.push_back(std::move(m));
    return true;
  };
  reader.feed(text, onRow);
  reader.end(onRow);
  return out;
}

std::int64_t rocprofClockToMonoNs() {
  // rocprofv3 stamps with CLOCK_BOOTTIME; the run's time line is CLOCK_MONOTONIC. They
  // differ by the time the machine spent suspended, constant during a run.
  const std::int64_t t0 = clockNs(CLOCK_MONOTONIC);
  const std::int64_t boot = clockNs(CLOCK_BOOTTIME);
  const std::int64_t t1 = clockNs(CLOCK_MONOTONIC);
  return (t0 + (t1 - t0) / 2) - boot;
}

std::size_t readRocprofDir(const std::string& dir, std::int64_t bootToMono, TraceCollector& collector,
                           std::vector<CollectorWarning>& warnings, ingest::Control& control) {
  // Links are never followed and FIFOs, sockets and devices never opened: a folder handed
  // over by someone else cannot make the reading hang or read without end.
  const ingest::FoundFiles found =
      ingest::findRegularFiles(dir, kRocprofMaxFolderDepth, kRocprofMaxFolderFiles, control);
  if (found.cancelled) {
    warnings.push_back({"import-cancelled", "looking for rocprofv3's traces under " + dir + " was cancelled"});
    return 0;
  }
  if (found.linksSkipped + found.specialSkipped > 0) {
    std::string what;
    if (found.linksSkipped > 0) {
      what = plural(found.linksSkipped, "symbolic link", "symbolic links") + " (links are not followed)";
    }
    if (found.specialSkipped > 0) {
      what += (what.empty() ? "" : ", ") +
              plural(found.specialSkipped, "FIFO, socket or device", "FIFOs, sockets or devices") +
              " (only regular files are read)";
    }
    warnings.push_back({"rocprofv3-files-skipped", "not read under " + dir + ": " + what});
  }
  if (found.tooMany) {
    warnings.push_back({"rocprofv3-folder-truncated", "more than " + std::to_string(kRocprofMaxFolderFiles) +
                                                          " files under " + dir + ": the others were not looked at"});
  }
  std::vector<CsvSource> kernels, copies, agents;
  std::vector<std::string> databases;
  for (const std::string& f : found.files) {
    if (endsWith(f, "kernel_trace.csv"))
      kernels.push_back({f, f, {}});
    else if (endsWith(f, "memory_copy_trace.csv"))
      copies.push_back({f, f, {}});
    else if (endsWith(f, "agent_info.csv"))
      agents.push_back({f, f, {}});
    else if (endsWith(f, ".db"))
      databases.push_back(f);
  }
  if (kernels.empty() && copies.empty() && !databases.empty()) {
    // A rocprofv3 that writes its rocpd database whatever --output-format says (or was told
    // otherwise): the same records from the database.
    std::size_t count = 0;
    for (const std::string& db : databases) {
      if (control.cancelled()) break;
      count += readRocpdDatabase(db, bootToMono, collector, warnings, control);
    }
    return count;
  }
  if (kernels.empty() && copies.empty()) {
    warnings.push_back(
        {"rocprofv3-no-output", "rocprofv3 wrote no kernel or memory-copy trace (CSV or rocpd database) under " + dir +
                                    (found.tooDeep ? " (folders more than " + std::to_string(kRocprofMaxFolderDepth) +
                                                         " levels down were not searched)"
                                                   : std::string())});
    return 0;
  }
  return CsvImport(bootToMono, collector, warnings, control).run(agents, kernels, copies);
}

std::size_t readRocprofCsvTexts(std::string_view agentInfo, std::string_view kernelTrace,
                                std::string_view memoryCopyTrace, std::int64_t bootToMono, TraceCollector& collector,
                                std::vector<CollectorWarning>& warnings, ingest::Control& control) {
  std::vector<CsvSource> agents, kernels, copies;
  if (!agentInfo.empty()) agents.push_back({"agent_info.csv", {}, agentInfo});
  if (!kernelTrace.empty()) kernels.push_back({"kernel_trace.csv", {}, kernelTrace});
  if (!memoryCopyTrace.empty()) copies.push_back({"memory_copy_trace.csv", {}, memoryCopyTrace});
  if (kernels.empty() && copies.empty()) {
    warnings.push_back({"rocprofv3-no-output", "no kernel or memory-copy trace was given"});
    return 0;
  }
  return CsvImport(bootToMono, collector, warnings, control).run(agents, kernels, copies);
}

namespace {

// The process group of `pid` (field 5 of /proc/<pid>/stat, after the parenthesised command
// name, which may hold spaces and parentheses itself), read bounded; nullopt when the process
// is gone or the line does not read.
std::optional<long> processGroupOf(const std::string& procRoot, long pid) {
  const ingest::SafeFile file =
      ingest::SafeFile::open(procRoot + "/" + std::to_string(pid) + "/stat", kMaxProcStatBytes);
  if (!file.ok()) return std::nullopt;
  std::string text;
  ingest::Control control = ingest::Control::detached();
  const ingest::ChunkReadResult r = ingest::readChunks(file, kMaxProcStatBytes, control, [&](std::string_view chunk) {
    text.append(chunk);
    return true;
  });
  if (!r.problem.empty() || r.byteCapReached) return std::nullopt;
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  // ") S ppid pgrp ...": the state, the parent, the group.
  std::string_view rest = std::string_view(text).substr(close + 1);
  std::string_view fields[3];
  for (std::string_view& field : fields) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    const std::size_t end = std::min(rest.find(' '), rest.size());
    field = rest.substr(0, end);
    rest.remove_prefix(end);
  }
  const std::optional<std::int64_t> group = ingest::parseInt64(fields[2]);
  if (!group || *group <= 0) return std::nullopt;
  return static_cast<long>(*group);
}

}  // namespace

std::map<std::uint32_t, int> kfdGpuIndices(const std::vector<kfd::GpuNode>& nodes) {
  std::vector<const kfd::GpuNode*> order;
  std::set<std::string> addresses;
  for (const kfd::GpuNode& n : nodes) {
    order.push_back(&n);
    if (n.pciBusId) addresses.insert(*n.pciBusId);
  }
  // "DDDD:BB:DD.F" with a fixed-width tail: a longer text has the larger domain.
  if (addresses.size() == nodes.size()) {
    std::stable_sort(order.begin(), order.end(), [](const kfd::GpuNode* a, const kfd::GpuNode* b) {
      return std::make_pair(a->pciBusId->size(), *a->pciBusId) < std::make_pair(b->pciBusId->size(), *b->pciBusId);
    });
  }
  std::map<std::uint32_t, int> index;
  for (std::size_t i = 0; i < order.size(); ++i) index.emplace(order[i]->gpuId, static_cast<int>(i));
  return index;
}

KfdSdmaSampler::KfdSdmaSampler(pid_t group, std::string kfdRoot, std::string procRoot)
    : tree_(std::move(kfdRoot)), procRoot_(std::move(procRoot)), group_(group) {
  available_ = tree_.available();
  if (available_) gpuIndexById_ = kfdGpuIndices(tree_.gpuNodes());
}

void KfdSdmaSampler::sample() {
  if (!available_) return;
  for (const long pid : tree_.processes()) {
    // Only processes of the program's group.
    if (processGroupOf(procRoot_, pid) != std::optional<long>(group_)) continue;
    for (const auto& [gpuId, value] : tree_.processCounters(pid)) {
      std::uint64_t& kept = latest_[{pid, gpuId}];
      kept = std::max(kept, value);
    }
  }
}

std::vector<KfdSdmaActivity> KfdSdmaSampler::totals() const {
  std::map<std::uint32_t, std::uint64_t> byGpu;
  for (const auto& [key, value] : latest_) {
    std::uint64_t& sum = byGpu[key.second];
    // Saturates: a sum past 2^64 us (584,000 years) is no count anyone can have.
    if (__builtin_add_overflow(sum, value, &sum)) sum = std::numeric_limits<std::uint64_t>::max();
  }
  std::vector<KfdSdmaActivity> out;
  for (const auto& [id, value] : byGpu) {
    const auto it = gpuIndexById_.find(id);
    out.push_back({it == gpuIndexById_.end() ? -1 : it->second, id, value});
  }
  return out;
}

void removeTree(const std::string& dir) {
  nftw(
      dir.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return std::remove(path); }, 16,
      FTW_DEPTH | FTW_PHYS);
}

}  // namespace sdma::runmode
