#pragma once

// A file of one fuzz run (mkstemp in $TMPDIR or /tmp), removed with SQLite's side files
// when the run ends.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace sdma::fuzz {

class TempFile {
 public:
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir == '/' ? dir : "/tmp") + "/sdma-fuzz-XXXXXX";
    fd_ = mkstemp(path_.data());
    if (fd_ < 0) {
      std::perror("mkstemp");
      std::abort();
    }
  }
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    for (const char* tail : {"", "-journal", "-wal", "-shm"}) unlink((path_ + tail).c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }

  // The whole content, then the descriptor is closed (the reader opens the path itself).
  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n <= 0) {
        std::perror("write");
        std::abort();
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    close(fd_);
    fd_ = -1;
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace sdma::fuzz
