#include "run/import_mode.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "backend_registry.hpp"
#include "run/flag_value.hpp"
#include "run/records.hpp"
#include "run/rocm_sources.hpp"
#include "run/rocpd_reader.hpp"
#include "run/trace_collector.hpp"

namespace sdma::runmode {

namespace {

constexpr int kExitImported = 0;
constexpr int kExitNothingRead = 1;
constexpr int kExitUsage = 2;
constexpr int kExitUnsupported = 3;
// rocprofv3 profiles come from AMD GPUs: hello names the hip backend, whatever is built here.
constexpr std::string_view kImportBackend = "hip";

struct ImportOptions {
  std::string rocpd;
  std::string csvDir;
};

std::string parseImportArgs(const std::vector<std::string_view>& args, ImportOptions& options) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view name, value;
    if (!flagValue(args, i, name, value) || value.empty()) return std::string(name) + " needs a value";
    if (name == "--rocpd") {
      options.rocpd = std::string(value);
    } else if (name == "--rocprofv3-csv") {
      options.csvDir = std::string(value);
    } else {
      return "unknown flag " + std::string(name) + " for import (--rocpd FILE.db or --rocprofv3-csv DIR)";
    }
  }
  if (options.rocpd.empty() == options.csvDir.empty()) {
    return "import needs exactly one profile: --rocpd FILE.db or --rocprofv3-csv DIR";
  }
  return {};
}

int fail(Reporter& reporter, int exitCode, std::string_view code, const std::string& message, std::string_view hint) {
  reporter.error(code, message, hint);
  reporter.done(DoneStatus::Error);
  std::fprintf(stderr, "sdma-probe: %s\n", message.c_str());
  return exitCode;
}

}  // namespace

std::string_view importUsageText() {
  return R"(usage:
  sdma-probe import --rocpd FILE.db
  sdma-probe import --rocprofv3-csv DIR

Reads a rocprofv3 profile made earlier (its rocpd SQLite database, or the folder its
--output-format csv traces are in) and prints its kernel dispatches and memory copies as
NDJSON records on stdout, as `run` would have (docs/RUN-MODE.md). Nothing is run. Times are
ns since the earliest record's start.

exit codes: 0 records were read (warnings say what was not),
            1 nothing could be read (the error says why), 2 bad arguments,
            3 a rocpd database, but this helper was built without SQLite3
)";
}

int importMain(const std::vector<std::string_view>& args, Reporter& reporter) {
  reporter.hello(std::string_view("import"), kImportBackend, false, builtBackendNames());
  ImportOptions options;
  if (const std::string problem = parseImportArgs(args, options); !problem.empty()) {
    reporter.error("usage", problem);
    reporter.done(DoneStatus::Error);
    std::fprintf(stderr, "sdma-probe: %s\n\n%s", problem.c_str(), std::string(importUsageText()).c_str());
    return kExitUsage;
  }
  const std::string& path = options.rocpd.empty() ? options.csvDir : options.rocpd;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return fail(reporter, kExitNothingRead, "import-not-found", "cannot import " + path + ": no such file or folder",
                "check the path (it is read on the machine the helper runs on)");
  }
  const bool isDir = S_ISDIR(st.st_mode);
  if (!options.rocpd.empty() && isDir) {
    return fail(reporter, kExitNothingRead, "import-not-a-file", "cannot import " + path + ": it is a folder",
                "pass the .db file rocprofv3 wrote (e.g. HOST/PID_results.db), or use --rocprofv3-csv for a CSV folder");
  }
  if (!options.csvDir.empty() && !isDir) {
    return fail(reporter, kExitNothingRead, "import-not-a-folder", "cannot import " + path + ": it is not a folder",
                "pass the folder rocprofv3 wrote its CSV files into, or use --rocpd for a .db file");
  }
  if (!options.rocpd.empty() && !rocpdSupported()) {
    return fail(reporter, kExitUnsupported, "rocpd-unsupported",
                "this sdma-probe was built without SQLite3, so it cannot read the rocpd database " + path,
                "install SQLite3's headers (libsqlite3-dev) and rebuild the helper, or convert the database to CSV "
                "with rocpd convert and import the folder");
  }

  // Read on rocprofv3's own clock; the records then count from the earliest start.
  TraceCollector collector(0);
  std::vector<CollectorWarning> warnings;
  const std::size_t read = options.rocpd.empty() ? readRocprofDir(path, 0, collector, warnings)
                                                 : readRocpdDatabase(path, 0, collector, warnings);
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
    return fail(reporter, kExitNothingRead, "import-empty",
                "no kernel dispatch or memory copy could be read from " + path + (why.empty() ? "" : ": " + why),
                "profile with rocprofv3 --kernel-trace --memory-copy-trace, and pass its output");
  }
  reporter.done(DoneStatus::Ok);
  return kExitImported;
}

}  // namespace sdma::runmode
