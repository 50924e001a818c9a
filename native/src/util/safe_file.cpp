#include "util/safe_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sdma::ingest {

namespace {

std::string kindOf(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

}  // namespace

std::string bytesInWords(std::uint64_t bytes) {
  char text[64];
  if (bytes >= 1000ULL * 1000 * 1000) {
    std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
  } else if (bytes >= 1000ULL * 1000) {
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  } else if (bytes >= 1000) {
    std::snprintf(text, sizeof text, "%.1f kB", static_cast<double>(bytes) / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return text;
}

SafeFile SafeFile::open(const std::string& path, std::uint64_t maxBytes) {
  SafeFile f;
  // O_NOFOLLOW: a link as the last component fails with ELOOP; O_NONBLOCK: opening a FIFO
  // with no writer returns at once instead of waiting for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ELOOP) {
      f.problem_ = "is a symbolic link (links are not followed)";
    } else {
      f.problem_ = std::strerror(errno);
    }
    return f;
  }
  struct stat st{};
  if (fstat(fd, &st) != 0) {
    f.problem_ = std::strerror(errno);
    ::close(fd);
    return f;
  }
  if (!S_ISREG(st.st_mode)) {
    f.problem_ = "is " + kindOf(st.st_mode) + ", not a regular file";
    ::close(fd);
    return f;
  }
  const std::uint64_t size = st.st_size < 0 ? 0 : static_cast<std::uint64_t>(st.st_size);
  if (size > maxBytes) {
    f.problem_ = "is " + bytesInWords(size) + ", more than the " + bytesInWords(maxBytes) + " read here";
    ::close(fd);
    return f;
  }
  // Reads of a regular file never block; the flag only mattered for the open.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  f.fd_ = fd;
  f.size_ = size;
  return f;
}

SafeFile::SafeFile(SafeFile&& other) noexcept
    : fd_(other.fd_), size_(other.size_), problem_(std::move(other.problem_)) {
  other.fd_ = -1;
}

SafeFile& SafeFile::operator=(SafeFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    problem_ = std::move(other.problem_);
    other.fd_ = -1;
  }
  return *this;
}

SafeFile::~SafeFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string SafeFile::procPath() const { return "/proc/self/fd/" + std::to_string(fd_); }

void LineSplitter::feed(std::string_view chunk, const OnLine& onLine) {
  while (!chunk.empty()) {
    const std::size_t nl = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, nl);
    const std::size_t room = max_ - std::min(max_, partial_.size());
    if (piece.size() > room) overlong_ = true;
    partial_.append(piece.substr(0, std::min(room, piece.size())));
    if (nl == std::string_view::npos) return;
    std::string_view line(partial_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    onLine(line, overlong_);
    partial_.clear();
    overlong_ = false;
    chunk.remove_prefix(nl + 1);
  }
}

void LineSplitter::end(const OnLine& onLine) {
  if (partial_.empty() && !overlong_) return;
  std::string_view line(partial_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  onLine(line, overlong_);
  partial_.clear();
  overlong_ = false;
}

ChunkReadResult readChunks(const SafeFile& file, std::uint64_t maxBytes, Control& control,
                           const std::function<bool(std::string_view chunk)>& onChunk) {
  ChunkReadResult result;
  if (!file.ok()) {
    result.problem = file.problem();
    return result;
  }
  char chunk[65536];
  while (true) {
    if (!control.poll()) {
      result.cancelled = true;
      return result;
    }
    const std::uint64_t room = maxBytes - result.bytes;
    if (room == 0) {
      // More than the cap only if there is still something to read (a writer still appending).
      char probe = 0;
      result.byteCapReached = ::read(file.fd(), &probe, 1) > 0;
      return result;
    }
    const ssize_t n = ::read(file.fd(), chunk, static_cast<std::size_t>(std::min<std::uint64_t>(room, sizeof chunk)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result.problem = std::strerror(errno);
      return result;
    }
    if (n == 0) return result;
    result.bytes += static_cast<std::uint64_t>(n);
    if (!onChunk(std::string_view(chunk, static_cast<std::size_t>(n)))) {
      result.stopped = true;
      return result;
    }
  }
}

LineReadResult readLines(const SafeFile& file, std::uint64_t maxBytes, std::size_t maxLineBytes, Control& control,
                         const std::function<void(std::string_view line, bool overlong)>& onLine) {
  LineReadResult result;
  LineSplitter splitter(maxLineBytes);
  const LineSplitter::OnLine counted = [&](std::string_view line, bool overlong) {
    ++result.lines;
    if (overlong) ++result.overlongLines;
    onLine(line, overlong);
  };
  const ChunkReadResult read = readChunks(file, maxBytes, control, [&](std::string_view chunk) {
    splitter.feed(chunk, counted);
    return true;
  });
  result.bytes = read.bytes;
  result.byteCapReached = read.byteCapReached;
  result.cancelled = read.cancelled;
  result.problem = read.problem;
  if (!read.cancelled) splitter.end(counted);
  return result;
}

namespace {

void walk(const std::string& dir, int depth, int maxDepth, std::size_t maxFiles, Control& control, FoundFiles& out) {
  if (out.tooMany || out.cancelled) return;
  // The folder the user named may be a link; none below it is followed.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (depth > 0 ? O_NOFOLLOW : 0));
  if (dfd < 0) return;
  DIR* d = fdopendir(dfd);
  if (!d) {
    ::close(dfd);
    return;
  }
  std::vector<std::string> subdirs;
  while (const dirent* e = readdir(d)) {
    if (!control.poll()) {
      out.cancelled = true;
      break;
    }
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st{};
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    const std::string path = dir + "/" + name;
    if (S_ISLNK(st.st_mode)) {
      ++out.linksSkipped;
    } else if (S_ISDIR(st.st_mode)) {
      if (depth < maxDepth)
        subdirs.push_back(path);
      else
        out.tooDeep = true;
    } else if (S_ISREG(st.st_mode)) {
      if (out.files.size() >= maxFiles) {
        out.tooMany = true;
        break;
      }
      out.files.push_back(path);
    } else {
      ++out.specialSkipped;
    }
  }
  closedir(d);
  for (const std::string& sub : subdirs) walk(sub, depth + 1, maxDepth, maxFiles, control, out);
}

}  // namespace

FoundFiles findRegularFiles(const std::string& dir, int maxDepth, std::size_t maxFiles, Control& control) {
  FoundFiles out;
  walk(dir, 0, maxDepth, maxFiles, control, out);
  std::sort(out.files.begin(), out.files.end());
  return out;
}

}  // namespace sdma::ingest
