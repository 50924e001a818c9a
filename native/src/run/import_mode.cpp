#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>

#include "cli/entries.hpp"
#include "run/records.hpp"
#include "run/rocm_sources.hpp"
#include "run/rocpd_reader.hpp"
#include "run/trace_collector.hpp"

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

}  // namespace

std::string importUsageText() {
  return R"(usage:
  sdma-probe import --rocpd FILE.db
  sdma-probe import --rocprofv3-csv DIR

Reads a rocprofv3 profile made earlier (its rocpd SQLite database, or the folder its
--output-format csv traces are in) and prints its kernel dispatches and memory copies as
NDJSON records on stdout, as `run` would have (docs/PROFILE.md). Nothing is run. Times are
ns since the earliest record's start.

exit codes: 0 records were read (warnings say what was not),
            1 nothing could be read (the error says why), 2 bad arguments,
            3 a rocpd database, but this helper was built without SQLite3
)";
}

CommandResult ImportCommand::run(cli::Session& session) {
  Reporter& reporter = session.reporter;
  const ImportOptions& options = options_;
  const std::string& path = options.rocpd.empty() ? options.csvDir : options.rocpd;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return fail(session, kExitNothingRead, "import-not-found", "cannot import " + path + ": no such file or folder",
                "check the path (it is read on the machine the helper runs on)");
  }
  const bool isDir = S_ISDIR(st.st_mode);
  if (!options.rocpd.empty() && isDir) {
    return fail(session, kExitNothingRead, "import-not-a-file", "cannot import " + path + ": it is a folder",
                "pass the .db file rocprofv3 wrote (e.g. HOST/PID_results.db), or use --rocprofv3-csv for a CSV folder");
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
  std::vector<DispatchRecord> dispatches;
  std::vector<CopyRecord> copies;
  collector.finish(dispatches, copies, warnings);
  std::int64_t zero = std::numeric_limits<std::int64_t>::max();
  for (const DispatchRecord& d : dispatches) zero = std::min(zero, d.startNs);
  for (const CopyRecord& c : copies) zero = std::min(zero, c.startNs);
  for (DispatchRecord& d : dispatches) {
    d.startNs -= zero;
    d.endNs -= zero;
  }
  for (CopyRecord& c : copies) {
    c.startNs -= zero;
    c.endNs -= zero;
  }
  emitInStartOrder(reporter, dispatches, copies);
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
