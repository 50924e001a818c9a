#include "protocol/timeline_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace sdma {

namespace {

static_assert(sizeof(double) == 8, "sdmatl stores f64 columns");

constexpr std::uint64_t kHeaderBytes = 32;
constexpr unsigned char kMagic[8] = {'S', 'D', 'M', 'A', 'T', 'L', 0, 1};
constexpr std::uint32_t kVersion = 1;

bool hostIsLittleEndian() {
  const std::uint16_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

std::uint64_t paddedTo8(std::uint64_t bytes) { return (bytes + 7) / 8 * 8; }

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

std::uint64_t writeSdmatlFile(const std::string& path, const TimelineEvents& events) {
  // Columns go out as raw memory; on a big-endian host they would need byte swapping.
  if (!hostIsLittleEndian()) throw std::runtime_error("sdmatl writing needs a little-endian host");

  FileWriter out(path);
  out.write(kMagic, sizeof kMagic);
  out.writeScalar<std::uint32_t>(kVersion);
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
  return out.close();
}

}  // namespace sdma
