#include "protocol/timeline_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace sdma {

namespace {

static_assert(sizeof(double) == 8, "sdmatl stores f64 columns");

constexpr std::uint64_t kHeaderBytes = 32;
constexpr unsigned char kMagic[8] = {'S', 'D', 'M', 'A', 'T', 'L', 0, 1};

bool hostIsLittleEndian() {
  const std::uint16_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

std::uint64_t paddedTo8(std::uint64_t bytes) { return (bytes + 7) / 8 * 8; }

// Widths of the columns in file order; version 2 adds `flags` after version 1's eleven.
constexpr std::uint64_t kColumnWidths[] = {1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8, 1};

// The columns must all hold one value per event and flags only the bits version 2 defines:
// refused before the file is created, so a bad timeline never leaves a file behind.
void checkColumns(const TimelineEvents& e) {
  const std::size_t n = e.size();
  for (std::size_t size : {e.op.size(), e.path.size(), e.gpu.size(), e.lane.size(), e.id.size(), e.ref.size(),
                           e.startNs.size(), e.endNs.size(), e.queuedNs.size(), e.bytes.size(), e.flags.size()}) {
    if (size != n) throw std::invalid_argument("sdmatl: the timeline's columns differ in length");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if ((e.flags[i] & ~kEventFlagsKnown) != 0) {
      throw std::invalid_argument("sdmatl: event " + std::to_string(i) + " sets flag bits " +
                                  std::to_string(e.flags[i] & ~kEventFlagsKnown) + " that version " +
                                  std::to_string(kSdmatlVersion) + " does not define");
    }
  }
}

class FileWriter {
 public:
  explicit FileWriter(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) fail("cannot create");
  }
  ~FileWriter() {
    if (file_) std::fclose(file_);
  }
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(const void* data, std::size_t bytes) {
    if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes) fail("cannot write");
    written_ += bytes;
  }

  template <typename T>
  void writeScalar(T value) {
    write(&value, sizeof value);
  }

  template <typename T>
  void writeColumn(const std::vector<T>& column) {
    static_assert(std::is_arithmetic_v<T>, "columns are plain numbers");
    write(column.data(), column.size() * sizeof(T));
    static constexpr unsigned char kZeros[8] = {};
    write(kZeros, paddedTo8(written_) - written_);
  }

  std::uint64_t close() {
    std::FILE* file = file_;
    file_ = nullptr;
    if (std::fclose(file) != 0) fail("cannot finish writing");
    return written_;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string(what) + " timeline file " + path_ + ": " + std::strerror(errno));
  }

  std::string path_;
  std::FILE* file_;
  std::uint64_t written_ = 0;
};

}  // namespace

std::uint64_t sdmatlFileBytes(std::uint64_t eventCount) {
  std::uint64_t bytes = kHeaderBytes;
  for (std::uint64_t width : kColumnWidths) bytes += paddedTo8(width * eventCount);
  return bytes;
}

std::uint64_t writeSdmatlFile(const std::string& path, const TimelineEvents& events) {
  // Columns go out as raw memory; on a big-endian host they would need byte swapping.
  if (!hostIsLittleEndian()) throw std::runtime_error("sdmatl writing needs a little-endian host");
  checkColumns(events);

  FileWriter out(path);
  out.write(kMagic, sizeof kMagic);
  out.writeScalar<std::uint32_t>(kSdmatlVersion);
  out.writeScalar<std::uint32_t>(0);
  out.writeScalar<std::uint64_t>(events.size());
  out.writeScalar<std::uint64_t>(0);
  static_assert(sizeof kMagic + 4 + 4 + 8 + 8 == kHeaderBytes, "header layout");

  out.writeColumn(events.kind);
  out.writeColumn(events.op);
  out.writeColumn(events.path);
  out.writeColumn(events.gpu);
  out.writeColumn(events.lane);
  out.writeColumn(events.id);
  out.writeColumn(events.ref);
  out.writeColumn(events.startNs);
  out.writeColumn(events.endNs);
  out.writeColumn(events.queuedNs);
  out.writeColumn(events.bytes);
  out.writeColumn(events.flags);
  return out.close();
}

}  // namespace sdma
