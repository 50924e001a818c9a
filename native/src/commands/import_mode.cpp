#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "util/cancel.hpp"
#include "cli/entries.hpp"
#include "util/checked.hpp"
#include "util/safe_file.hpp"
#include "profile/records.hpp"
#include "profile/rocm_sources.hpp"
#include "profile/rocpd_reader.hpp"
#include "profile/trace_collector.hpp"
#include "protocol/reporter.hpp"

namespace sdma::runmode {

namespace {

constexpr int kExitNothingRead = 1;
constexpr int kExitUnsupported = 3;

struct ImportOptions {
  std::string rocpd;
  std::string csvDir;
};

class ImportCommand : public cli::CommandRun {
 public:
  void flag(std::string_view name, std::string_view value) override {
    if (value.empty()) throw UsageError(std::string(name) + " needs a value");
    (name == "--rocpd" ? options_.rocpd : options_.csvDir) = std::string(value);
  }
  void finish() override {
    if (options_.rocpd.empty() == options_.csvDir.empty()) {
      throw UsageError("import needs exactly one profile: --rocpd FILE.db or --rocprofv3-csv DIR");
    }
  }
  CommandResult run(cli::Session& session) override;

 private:
  ImportOptions options_;
};

CommandResult fail(cli::Session& session, int exitCode, std::string_view code, const std::string& message,
                   std::string_view hint) {
  return session.fail(code, message, hint, exitCode);
}

// Times from the earliest record's start. Records read from a file may lie anywhere in int64:
// one whose distance from the earliest start does not fit is left out and counted, never
// wrapped around.
template <typename Record>
std::uint64_t countFromZero(std::vector<Record>& records, std::int64_t zero) {
  std::size_t kept = 0;
  for (Record& r : records) {
    const auto start = ingest::sub(r.startNs, zero);
    const auto end = ingest::sub(r.endNs, zero);
    if (!start || !end) continue;
    r.startNs = *start;
    r.endNs = *end;
    if (&records[kept] != &r) records[kept] = std::move(r);
    ++kept;
  }
  const std::uint64_t dropped = records.size() - kept;
  records.resize(kept);
  return dropped;
}

}  // namespace

std::string importUsageText() {
  return R"(usage:
  sdma-probe import --rocpd FILE.db
  sdma-probe import --rocprofv3-csv DIR

Reads a rocprofv3 profile made earlier (its rocpd SQLite database, or the folder its
--output-format csv traces are in) and prints its kernel dispatches and memory copies as
NDJSON records on stdout, as `run` would have (docs/PROFILE.md). Nothing is run. Times are
ns since the earliest record's start.

The database is read as outside data: only a regular file (not a symbolic link, FIFO or
device), at most 16 GiB; only rocprofv3's own tables are read (never the file's views), with
SQLite's memory and value sizes capped (warning rocpd-limit when a cap stops the read).
SIGINT/SIGTERM stop the read at once: no records are printed, done says "cancelled".

exit codes: 0 records were read (warnings say what was not),
            1 nothing could be read (the error says why), 2 bad arguments,
            3 a rocpd database, but this helper was built without SQLite3,
            130/143 cancelled by SIGINT/SIGTERM
)";
}

CommandResult ImportCommand::run(cli::Session& session) {
  Reporter& reporter = session.reporter;
  const ImportOptions& options = options_;
  const std::string& path = options.rocpd.empty() ? options.csvDir : options.rocpd;
  struct stat st{};
  // The database path itself must not be a link (lstat); the CSV folder may be one, as the
  // folder walk allows for the folder it is given (no link below it is followed).
  const int statResult = options.rocpd.empty() ? stat(path.c_str(), &st) : lstat(path.c_str(), &st);
  const int statErrno = statResult == 0 ? 0 : errno;
  if (statResult != 0 && statErrno == ENOENT) {
    return fail(session, kExitNothingRead, "import-not-found", "cannot import " + path + ": no such file or folder",
                "check the path (it is read on the machine the helper runs on)");
  }
  const bool isDir = statResult == 0 && S_ISDIR(st.st_mode);
  if (!options.rocpd.empty() && isDir) {
    return fail(
        session, kExitNothingRead, "import-not-a-file", "cannot import " + path + ": it is a folder",
        "pass the .db file rocprofv3 wrote (e.g. HOST/PID_results.db), or use --rocprofv3-csv for a CSV folder");
  }
  if (!options.rocpd.empty()) {
    // The reader's own safe open, tried here first so that a link, a FIFO or a device is
    // refused at once with its reason (the reader opens the file again the same way).
    const ingest::SafeFile probe = ingest::SafeFile::open(path, kRocpdMaxFileBytes);
    if (!probe.ok()) {
      const std::string& why = probe.problem();
      if (statResult == 0 && S_ISREG(st.st_mode) && why.rfind("is ", 0) == 0) {
        return fail(session, kExitNothingRead, "import-too-large", "cannot import " + path + ": it " + why,
                    "import the database of a shorter run, or of fewer processes");
      }
      if (why.rfind("is ", 0) == 0) {
        return fail(session, kExitNothingRead, "import-not-a-file", "cannot import " + path + ": it " + why,
                    "pass the .db file rocprofv3 wrote itself (a regular file, not a link to it), e.g. "
                    "HOST/PID_results.db");
      }
      return fail(session, kExitNothingRead, "import-unreadable", "cannot import " + path + ": " + why,
                  "check that the file can be read by the user the helper runs as");
    }
  }
  if (statResult != 0) {
    return fail(session, kExitNothingRead, "import-unreadable",
                "cannot import " + path + ": " + std::strerror(statErrno),
                "check that the folder can be read by the user the helper runs as");
  }
  if (!options.csvDir.empty() && !isDir) {
    return fail(session, kExitNothingRead, "import-not-a-folder", "cannot import " + path + ": it is not a folder",
                "pass the folder rocprofv3 wrote its CSV files into, or use --rocpd for a .db file");
  }
  if (!options.rocpd.empty() && !rocpdSupported()) {
    return fail(session, kExitUnsupported, "rocpd-unsupported",
                "this sdma-probe was built without SQLite3, so it cannot read the rocpd database " + path,
                "install SQLite3's headers (libsqlite3-dev) and rebuild the helper, or convert the database to CSV "
                "with rocpd convert and import the folder");
  }

  // Read on rocprofv3's own clock; the records then count from the earliest start.
  TraceCollector collector(0);
  std::vector<CollectorWarning> warnings;
  ingest::Control control = ingest::Control::process();
  const std::size_t read = options.rocpd.empty() ? readRocprofDir(path, 0, collector, warnings, control)
                                                 : readRocpdDatabase(path, 0, collector, warnings, control);
  if (control.cancelled()) {
    // Cancelled: what was read so far is a part of the profile with no sign of which part,
    // so none of it is printed; done says "cancelled" and the exit code says which signal.
    return {DoneStatus::Cancelled, cancel::exitCode()};
  }
  std::vector<DispatchRecord> dispatches;
  std::vector<CopyRecord> copies;
  collector.finish(dispatches, copies, warnings);
  std::int64_t zero = std::numeric_limits<std::int64_t>::max();
  for (const DispatchRecord& d : dispatches) zero = std::min(zero, d.startNs);
  for (const CopyRecord& c : copies) zero = std::min(zero, c.startNs);
  const std::uint64_t dropped = countFromZero(dispatches, zero) + countFromZero(copies, zero);
  if (dropped > 0) {
    warnings.push_back({"import-time-out-of-range",
                        std::to_string(dropped) + " records lie too far (more than 2^63 ns) from the earliest start "
                                                  "to count from it and were left out"});
  }
  forEachInStartOrder(
      dispatches, copies, [&](const DispatchRecord& d) { reporter.dispatch(d); },
      [&](const CopyRecord& c) { reporter.copy(c); });
  for (const CollectorWarning& w : warnings) reporter.warning(w.code, w.message);
  if (read == 0) {
    std::string why;
    for (const CollectorWarning& w : warnings) why += (why.empty() ? "" : "; ") + w.message;
    return fail(session, kExitNothingRead, "import-empty",
                "no kernel dispatch or memory copy could be read from " + path + (why.empty() ? "" : ": " + why),
                "profile with rocprofv3 --kernel-trace --memory-copy-trace, and pass its output");
  }
  return {};
}

std::unique_ptr<cli::CommandRun> makeImportCommand(const std::vector<std::string_view>&) {
  return std::make_unique<ImportCommand>();
}

}  // namespace sdma::runmode
