#include "profile/library_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "profile/rocm_sources.hpp"

namespace sdma::runmode {

namespace {

// NCCL and RCCL expand %h (host name) and %p (process id) in NCCL_DEBUG_FILE, so every
// process of the program (one per rank under torchrun) writes its own file.
constexpr const char* kFilePattern = "/nccl.%h.%p.log";
// COLL carries RCCL's GIN line, TUNING NCCL's tuner line ("-> Algo RING proto SIMPLE").
constexpr const char* kSubsystems = "COLL,TUNING";
constexpr std::size_t kMaxFiles = 4096;
// One process's log: INFO lines of COLL and TUNING are ~200 bytes a call, so a few million
// calls. A bigger file is not read (library-log-unreadable says so).
constexpr std::uint64_t kMaxFileBytes = 1ULL << 30;

int log2Bucket(std::uint64_t bytes) {
  int b = -1;
  while (bytes != 0) {
    bytes >>= 1;
    ++b;
  }
  return b;
}

std::string rankKey(const std::string& file, const librarylog::LogLine& line) {
  return file + "|" + std::to_string(line.pid) + "|" + std::to_string(line.device);
}

}  // namespace

void LibraryCallCounter::addLine(const std::string& file, const std::string& line) {
  if (const std::string_view library = librarylog::libraryOfVersionLine(line); !library.empty()) {
    // RCCL may name the NCCL version it follows as well: once a file says RCCL, it stays RCCL.
    std::string& known = libraryByFile_[file];
    if (known != "rccl") known = std::string(library);
    return;
  }
  const auto parsed = librarylog::parseLogLine(line);
  if (!parsed || parsed->op.empty() || parsed->transport.empty()) return;
  const int bucket = parsed->sizeKind == librarylog::SizeKind::None ? -2 : log2Bucket(parsed->sizeBytes);
  Bucket& b = buckets_[Key{parsed->op, parsed->transport, static_cast<int>(parsed->sizeKind), bucket}];
  LibraryCalls& c = b.calls;
  if (b.linesByRank.empty()) {
    c.op = parsed->op;
    c.transport = parsed->transport;
    c.sizeKind = parsed->sizeKind;
    c.minBytes = c.maxBytes = parsed->sizeBytes;
    c.evidence = parsed->message;
    if (const auto it = libraryByFile_.find(file); it != libraryByFile_.end()) c.library = it->second;
    // The GIN all-to-all line is RCCL's own; NCCL has no such line.
    if (parsed->message.find(" GIN:") != std::string::npos) c.library = "rccl";
  }
  c.minBytes = std::min(c.minBytes, parsed->sizeBytes);
  c.maxBytes = std::max(c.maxBytes, parsed->sizeBytes);
  ++b.linesByRank[rankKey(file, *parsed)];
}

void LibraryCallCounter::addText(const std::string& file, std::string_view text) {
  ingest::LineSplitter splitter(kMaxLineBytes);
  std::string line;
  const ingest::LineSplitter::OnLine onLine = [&](std::string_view piece, bool overlong) {
    if (overlong) {
      ++overlongLines_;
      return;
    }
    line.assign(piece);
    addLine(file, line);
  };
  splitter.feed(text, onLine);
  splitter.end(onLine);
}

ingest::LineReadResult LibraryCallCounter::addFile(const std::string& file, const ingest::SafeFile& in,
                                                   std::uint64_t maxBytes, ingest::Control& control) {
  std::string line;
  return ingest::readLines(in, maxBytes, kMaxLineBytes, control, [&](std::string_view piece, bool overlong) {
    // readLines asks once per chunk; asked per line too, a cancel skips the rest of the chunk.
    if (!control.poll()) return;
    if (overlong) {
      ++overlongLines_;
      return;
    }
    line.assign(piece);
    addLine(file, line);
  });
}

std::vector<LibraryCalls> LibraryCallCounter::finish() const {
  std::vector<LibraryCalls> out;
  for (const auto& [key, bucket] : buckets_) {
    LibraryCalls c = bucket.calls;
    c.ranks = static_cast<int>(bucket.linesByRank.size());
    for (const auto& [rank, lines] : bucket.linesByRank) c.calls = std::max(c.calls, lines);
    out.push_back(std::move(c));
  }
  return out;
}

LibraryLogSetup prepareLibraryLog(std::vector<CollectorWarning>& warnings) {
  LibraryLogSetup setup;
  if (const char* level = std::getenv("NCCL_DEBUG"); level != nullptr && *level != '\0') {
    warnings.push_back({"library-log-user-set",
                        std::string("NCCL_DEBUG is already set (") + level +
                            ") in the program's environment: the run left it and the library's log alone, so no "
                            "library-calls records were collected; unset NCCL_DEBUG to let --library-log read "
                            "which path each collective took"});
    return setup;
  }
  std::string replaced;
  for (const char* name : {"NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"}) {
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') {
      replaced += (replaced.empty() ? "" : ", ") + std::string(name) + "=" + v;
    }
  }
  // The library expands % in the path: a TMPDIR holding one is not used.
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp == '/' && std::strchr(tmp, '%') == nullptr ? tmp : "/tmp") +
                        "/sdma-lens-nccl-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    warnings.push_back({"library-log-unreadable", "cannot make a folder for the library's log (" + pattern + ": " +
                                                      std::strerror(errno) +
                                                      "): no library-calls records; "
                                                      "check that TMPDIR (or /tmp) is writable"});
    return setup;
  }
  if (!replaced.empty()) {
    warnings.push_back({"library-log-replaced", "--library-log replaced " + replaced +
                                                    " for the program (they take effect only with NCCL_DEBUG, "
                                                    "which was not set)"});
  }
  setup.dir = pattern;
  setup.env = {
      {"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", kSubsystems}, {"NCCL_DEBUG_FILE", setup.dir + kFilePattern}};
  return setup;
}

std::vector<LibraryCalls> collectLibraryLog(const std::string& dir, std::vector<CollectorWarning>& warnings,
                                            ingest::Control& control) {
  LibraryCallCounter counter;
  // The library writes its files straight into the folder: none below it is read, no link is
  // followed, FIFOs and devices are skipped.
  const ingest::FoundFiles found = ingest::findRegularFiles(dir, 0, kMaxFiles, control);
  if (found.tooMany) {
    warnings.push_back({"library-log-unreadable",
                        "more than " + std::to_string(kMaxFiles) + " library log files: the rest were not read"});
  }
  for (const std::string& path : found.files) {
    if (control.cancelled()) break;
    const std::string name = path.substr(path.rfind('/') + 1);
    const ingest::SafeFile file = ingest::SafeFile::open(path, kMaxFileBytes);
    if (!file.ok()) {
      warnings.push_back({"library-log-unreadable", "cannot read the library's log " + path + " (" + file.problem() +
                                                        "): its calls are not counted"});
      continue;
    }
    const ingest::LineReadResult read = counter.addFile(name, file, kMaxFileBytes, control);
    if (!read.problem.empty()) {
      warnings.push_back({"library-log-unreadable", "reading the library's log " + path + " failed part way (" +
                                                        read.problem + "): its later calls are not counted"});
    }
    if (read.byteCapReached) {
      warnings.push_back({"library-log-unreadable", "the library's log " + path + " grew past " +
                                                        ingest::bytesInWords(kMaxFileBytes) +
                                                        " while it was read: its later calls are not counted"});
    }
  }
  removeTree(dir);
  if (counter.overlongLines() > 0) {
    warnings.push_back({"library-log-line-overlong",
                        std::to_string(counter.overlongLines()) + " lines of the library's log were longer than " +
                            std::to_string(LibraryCallCounter::kMaxLineBytes / 1024) + " KiB and were skipped unread"});
  }
  std::vector<LibraryCalls> calls = counter.finish();
  if (control.cancelled()) return calls;  // cut short: whether the log named a path is not known
  if (found.files.empty()) {
    warnings.push_back({"library-log-empty",
                        "the library wrote no log: the program did not load NCCL or RCCL, "
                        "or did not call it"});
  } else if (calls.empty()) {
    warnings.push_back({"library-log-empty",
                        "the library's log has no per-call path lines: NCCL logs none for its "
                        "p2p AlltoAll, copy-engine and symmetric paths, nor for calls replayed "
                        "from a CUDA graph"});
  }
  return calls;
}

}  // namespace sdma::runmode
