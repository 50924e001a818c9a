#pragma once

// The helper's one way to open a file it did not write (a profile, a CSV, a log, a trace
// file a program appended to), with the rule the extension's safe open follows
// (src/core/safeFile.ts): never through a symbolic link, only a regular file, opened
// non-blocking so a FIFO or a device can never hang the read, and no bigger than a cap.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/read_control.hpp"

namespace sdma::ingest {

class SafeFile {
 public:
  // On failure fd() is -1 and problem() says why in words ("is a symbolic link", "is a FIFO",
  // "is 3.1 GB, more than the 2 GB read here", "No such file or directory").
  static SafeFile open(const std::string& path, std::uint64_t maxBytes);
  SafeFile(SafeFile&& other) noexcept;
  SafeFile& operator=(SafeFile&& other) noexcept;
  SafeFile(const SafeFile&) = delete;
  SafeFile& operator=(const SafeFile&) = delete;
  ~SafeFile();

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }
  const std::string& problem() const { return problem_; }
  // "/proc/self/fd/N": the opened file by a name a library can open again (the same inode,
  // whatever the path is changed to since).
  std::string procPath() const;

 private:
  SafeFile() = default;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string problem_;
};

// Splits text fed in chunks into lines ('\n', a trailing '\r' dropped), holding at most
// maxLineBytes of one line: a longer line is handed over cut at that length with
// overlong = true. Memory stays at one line whatever the input.
class LineSplitter {
 public:
  using OnLine = std::function<void(std::string_view line, bool overlong)>;
  explicit LineSplitter(std::size_t maxLineBytes) : max_(maxLineBytes) {}
  void feed(std::string_view chunk, const OnLine& onLine);
  // The last line when the text does not end with '\n'.
  void end(const OnLine& onLine);

 private:
  std::size_t max_;
  std::string partial_;
  bool overlong_ = false;
};

struct ChunkReadResult {
  std::uint64_t bytes = 0;
  bool byteCapReached = false;  // the file held more than maxBytes: the rest was not read
  bool cancelled = false;
  bool stopped = false;  // onChunk returned false
  std::string problem;   // a read error, in words
};

// The one capped, cancellable read loop: a file opened with SafeFile in chunks of at most
// 64 KiB, at most maxBytes of it, polling `control` before every chunk. onChunk returns false
// to stop.
ChunkReadResult readChunks(const SafeFile& file, std::uint64_t maxBytes, Control& control,
                           const std::function<bool(std::string_view chunk)>& onChunk);

struct LineReadResult {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::uint64_t overlongLines = 0;
  bool byteCapReached = false;  // the file held more than maxBytes: the rest was not read
  bool cancelled = false;
  std::string problem;  // a read error, in words
};

// Reads a file opened with SafeFile line by line, at most maxBytes of it, polling `control`
// every chunk (64 KiB); a caller whose per-line work is heavy polls in onLine as well.
LineReadResult readLines(const SafeFile& file, std::uint64_t maxBytes, std::size_t maxLineBytes, Control& control,
                         const std::function<void(std::string_view line, bool overlong)>& onLine);

struct FoundFiles {
  std::vector<std::string> files;  // regular files, sorted
  std::uint64_t linksSkipped = 0;
  std::uint64_t specialSkipped = 0;  // FIFOs, sockets, devices
  bool tooDeep = false;
  bool tooMany = false;
  bool cancelled = false;
};

// The regular files under `dir` (its sub-folders to maxDepth), never following a symbolic
// link, at most maxFiles of them.
FoundFiles findRegularFiles(const std::string& dir, int maxDepth, std::size_t maxFiles, Control& control);

// "3.1 GB": a byte count in words for messages.
std::string bytesInWords(std::uint64_t bytes);

}  // namespace sdma::ingest
