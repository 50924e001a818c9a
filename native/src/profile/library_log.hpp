#pragma once
// `run --library-log`: NCCL's / RCCL's own per-call lines (NCCL_DEBUG=INFO, subsystems COLL
// and TUNING, into per-process files in a private folder), counted into one `library-calls`
// record per collective, path and size (docs/PROFILE.md, "Which path each collective took").
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "backend/library_log_line.hpp"
#include "util/read_control.hpp"
#include "util/safe_file.hpp"
#include "backend/run_records.hpp"
#include "profile/trace_collector.hpp"

namespace sdma::runmode {

// Counts the per-call lines of any number of log files. Lines naming no path or no
// collective are skipped.
class LibraryCallCounter {
 public:
  // The longest log line read: NCCL's are a few hundred bytes. A longer one is counted and
  // skipped, never held whole.
  static constexpr std::size_t kMaxLineBytes = 64 * 1024;

  void addLine(const std::string& file, const std::string& line);
  // A log's whole text, split into lines of at most kMaxLineBytes.
  void addText(const std::string& file, std::string_view text);
  // A log file opened with ingest::SafeFile: at most maxBytes of it, in lines of at most
  // kMaxLineBytes, `control` polled every line and chunk.
  ingest::LineReadResult addFile(const std::string& file, const ingest::SafeFile& in, std::uint64_t maxBytes,
                                 ingest::Control& control);
  std::uint64_t overlongLines() const { return overlongLines_; }
  // Ordered by op, transport, size kind, size.
  std::vector<LibraryCalls> finish() const;

 private:
  using Key = std::tuple<std::string, std::string, int, int>;  // op, transport, size kind, log2 bucket
  struct Bucket {
    LibraryCalls calls;
    std::map<std::string, std::int64_t> linesByRank;
  };
  std::map<Key, Bucket> buckets_;
  std::map<std::string, std::string> libraryByFile_;
  std::uint64_t overlongLines_ = 0;
};

// The environment for the program, or an empty `dir` when the library log is not collected
// (the user's own NCCL_DEBUG is set: warning, and theirs is left alone). Makes the folder.
struct LibraryLogSetup {
  std::string dir;
  std::vector<std::pair<std::string, std::string>> env;
};
LibraryLogSetup prepareLibraryLog(std::vector<CollectorWarning>& warnings);

// Reads every regular file in `dir` (no link followed; a file that cannot be read is a
// warning), stopping at once when `control` is cancelled, then removes `dir`. The program's
// processes wrote these files: each is opened with ingest::SafeFile and read in bounded lines.
std::vector<LibraryCalls> collectLibraryLog(const std::string& dir, std::vector<CollectorWarning>& warnings,
                                            ingest::Control& control);

}  // namespace sdma::runmode
