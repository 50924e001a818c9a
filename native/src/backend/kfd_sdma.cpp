// The KFD's sysfs tree, read bounded (backend/kfd_sdma.hpp).
#include "backend/kfd_sdma.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <utility>

#include "util/parse.hpp"

namespace sdma::kfd {

namespace {

// An open descriptor, closed when it goes.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }

 private:
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

int openRetrying(int dir, const char* name, int flags) {
  while (true) {
    const int fd = ::openat(dir, name, flags);
    if (fd >= 0 || errno != EINTR) return fd;
  }
}

// The root the caller named (a link is followed there: /sys/class/kfd/kfd is one).
Fd openRoot(const std::string& root) {
  return Fd(openRetrying(AT_FDCWD, root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

// A folder below an open one, never through a link.
Fd openDir(const Fd& parent, const char* name) {
  if (!parent.ok()) return Fd();
  return Fd(openRetrying(parent.get(), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// At most maxBytes + 1 bytes of the regular file `name` in folder `dir`, or nullopt: not
// there, a link, not a regular file (FIFO, socket, device, folder), claiming more than
// kMaxClaimedBytes, holding more than maxBytes, or a read error. O_NONBLOCK: a FIFO with no
// writer (or a device) is seen by fstat, never waited on.
std::optional<std::string> readSmall(const Fd& dir, const char* name, std::size_t maxBytes) {
  if (!dir.ok()) return std::nullopt;
  const Fd fd(openRetrying(dir.get(), name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.ok()) return std::nullopt;
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (st.st_size < 0 || static_cast<std::uint64_t>(st.st_size) > kMaxClaimedBytes) return std::nullopt;
  std::string text;
  char chunk[4096];
  while (text.size() <= maxBytes) {
    const std::size_t room = maxBytes + 1 - text.size();
    const ssize_t n = ::read(fd.get(), chunk, std::min(room, sizeof chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  if (text.size() > maxBytes) return std::nullopt;
  return text;
}

// The names in an open folder (not "." or ".."), at most kMaxDirEntries entries looked at.
std::vector<std::string> listNames(const Fd& dir) {
  std::vector<std::string> names;
  if (!dir.ok()) return names;
  // fdopendir takes the descriptor over: hand it a copy.
  const int copy = ::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return names;
  DIR* d = ::fdopendir(copy);
  if (d == nullptr) {
    ::close(copy);
    return names;
  }
  std::size_t seen = 0;
  while (seen < kMaxDirEntries) {
    const dirent* e = ::readdir(d);
    if (e == nullptr) break;
    ++seen;
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(d);
  return names;
}

std::optional<std::uint32_t> fits32(std::optional<std::uint64_t> v) {
  if (!v || *v > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

// Whole decimal digits only (the helpers below take no sign), at most `maxDigits`.
std::optional<std::uint64_t> digits(std::string_view text, std::size_t maxDigits) {
  if (text.empty() || text.size() > maxDigits) return std::nullopt;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return parseWholeUnsigned(text);
}

// The same, written the way the kernel names folders: no leading zero (but "0" itself).
std::optional<std::uint64_t> canonicalNumber(std::string_view text, std::size_t maxDigits) {
  if (text.size() > 1 && text.front() == '0') return std::nullopt;
  return digits(text, maxDigits);
}

}  // namespace

std::optional<std::uint64_t> parseValue(std::string_view text) {
  if (text.size() > kMaxValueBytes) return std::nullopt;
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return digits(text, kMaxValueBytes);
}

NodeProperties parseProperties(std::string_view text) {
  NodeProperties p;
  if (text.size() > kMaxPropertiesBytes) return p;
  int domainLines = 0, locationLines = 0;
  std::optional<std::uint32_t> domain, location;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    const std::string_view name = line.substr(0, space);
    const std::string_view value = line.substr(space + 1);
    if (name == "domain") {
      ++domainLines;
      domain = fits32(digits(value, 20));
    } else if (name == "location_id") {
      ++locationLines;
      location = fits32(digits(value, 20));
    }
  }
  // A repeated line leaves the fact unknown: which one holds cannot be told.
  if (domainLines == 1) p.domain = domain;
  if (locationLines == 1) p.locationId = location;
  return p;
}

std::optional<std::string> pciBusIdOf(std::uint32_t domain, std::uint32_t locationId) {
  if ((locationId & 0x0FFF0000u) != 0) return std::nullopt;
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", domain, (locationId >> 8) & 0xFFu, (locationId >> 3) & 0x1Fu,
                locationId & 0x7u);
  return std::string(text);
}

std::optional<std::uint32_t> parseSdmaFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "sdma_";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  return fits32(canonicalNumber(name.substr(kPrefix.size()), 10));
}

std::optional<long> parsePidName(std::string_view name) {
  const std::optional<std::uint64_t> v = canonicalNumber(name, 10);
  if (!v || *v == 0 || *v > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) return std::nullopt;
  return static_cast<long>(*v);
}

Tree::Tree(std::string root) : root_(std::move(root)) {}

bool Tree::available() const { return openDir(openRoot(root_), "proc").ok(); }

std::vector<GpuNode> Tree::gpuNodes() const {
  const Fd nodesDir = openDir(openDir(openRoot(root_), "topology"), "nodes");
  std::vector<int> numbers;
  for (const std::string& name : listNames(nodesDir)) {
    const std::optional<std::uint64_t> n = canonicalNumber(name, 4);
    if (n && *n < static_cast<std::uint64_t>(kMaxNodes)) numbers.push_back(static_cast<int>(*n));
  }
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::vector<GpuNode> gpus;
  for (const int n : numbers) {
    const Fd node = openDir(nodesDir, std::to_string(n).c_str());
    const std::optional<std::string> idText = readSmall(node, "gpu_id", kMaxValueBytes);
    const std::optional<std::uint32_t> id = idText ? fits32(parseValue(*idText)) : std::nullopt;
    if (!id || *id == 0) continue;
    GpuNode g;
    g.node = n;
    g.gpuId = *id;
    if (const std::optional<std::string> props = readSmall(node, "properties", kMaxPropertiesBytes)) {
      const NodeProperties p = parseProperties(*props);
      if (p.domain && p.locationId) g.pciBusId = pciBusIdOf(*p.domain, *p.locationId);
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::map<std::uint32_t, std::uint64_t> Tree::processCounters(long pid) const {
  std::map<std::uint32_t, std::uint64_t> counters;
  if (pid <= 0 || pid > std::numeric_limits<std::int32_t>::max()) return counters;
  const Fd dir = openDir(openDir(openRoot(root_), "proc"), std::to_string(pid).c_str());
  for (const std::string& name : listNames(dir)) {
    const std::optional<std::uint32_t> gpuId = parseSdmaFileName(name);
    if (!gpuId) continue;
    const std::optional<std::string> text = readSmall(dir, name.c_str(), kMaxValueBytes);
    if (!text) continue;
    if (const std::optional<std::uint64_t> us = parseValue(*text)) counters[*gpuId] = *us;
  }
  return counters;
}

std::optional<std::uint64_t> Tree::processSdmaUs(long pid) const {
  const std::map<std::uint32_t, std::uint64_t> counters = processCounters(pid);
  if (counters.empty()) return std::nullopt;
  std::uint64_t sum = 0;
  for (const auto& [gpuId, us] : counters) {
    if (__builtin_add_overflow(sum, us, &sum)) return std::nullopt;
  }
  return sum;
}

std::vector<long> Tree::processes() const {
  std::vector<long> pids;
  for (const std::string& name : listNames(openDir(openRoot(root_), "proc"))) {
    if (const std::optional<long> pid = parsePidName(name)) pids.push_back(*pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace sdma::kfd
