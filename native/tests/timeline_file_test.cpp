// The sdmatl version 2 writer (docs/PROTOCOL.md, "The timeline file"): the header, the
// eleven columns of version 1 and the `flags` column after them, each padded to 8 bytes;
// what it refuses before creating a file. And the simulator's engine/device timeline, drawn
// as a real AMD GPU draws it: inferred boxes on the unknown-engine lane.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "backend/timeline.hpp"
#include "backends/sim/mi350x_model.hpp"
#include "backends/sim/sim_timeline.hpp"
#include "doctest_support.hpp"
#include "protocol/timeline_file.hpp"

namespace {

using namespace sdma;
using namespace sdma::testing;

// A file in the test's temporary folder, removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() / ("sdma-tl-" + std::to_string(::getpid()) + "-" + name))
                  .string()) {
    std::filesystem::remove(path_);
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<unsigned char> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <typename T>
T at(const std::vector<unsigned char>& bytes, std::size_t offset) {
  T value{};
  REQUIRE(offset + sizeof(T) <= bytes.size());
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

std::uint64_t padded(std::uint64_t n) { return (n + 7) / 8 * 8; }

// Three events: an observed kernel, an inferred doorbell and an inferred packet on the
// unknown-engine lane.
TimelineEvents threeEvents() {
  TimelineEvents events;
  events.add({EventKind::Kernel, PacketOp::None, CopyPath::EngineDevice, 1, 0, -1, 0, 900, -1, 4096});
  events.add({EventKind::Doorbell, PacketOp::None, CopyPath::EngineDevice, 1, kEngineUnknown, 2, 100, 100, -1, 0,
              kEventInferred});
  events.add({EventKind::Packet, PacketOp::CopySignal, CopyPath::EngineDevice, 1, kEngineUnknown, -1, 100, 800, 100,
              4096, kEventInferred});
  return events;
}

TEST_CASE("writes version 2: the header, version 1's columns, then flags") {
  const TimelineEvents events = threeEvents();
  TempFile file("v2.sdmatl");
  const std::uint64_t written = writeSdmatlFile(file.path(), events);
  const std::vector<unsigned char> bytes = readAll(file.path());
  CHECK(written == bytes.size());
  CHECK(written == sdmatlFileBytes(3));

  CHECK(std::memcmp(bytes.data(), "SDMATL\0\1", 8) == 0);
  CHECK(at<std::uint32_t>(bytes, 8) == 2);
  CHECK(at<std::uint32_t>(bytes, 12) == 0);
  CHECK(at<std::uint64_t>(bytes, 16) == 3);
  CHECK(at<std::uint64_t>(bytes, 24) == 0);

  // Column offsets: each column padded to 8 bytes, in the documented order.
  const std::uint64_t n = 3;
  const std::uint64_t widths[] = {1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8, 1};
  std::uint64_t offsets[12];
  std::uint64_t offset = 32;
  for (int c = 0; c < 12; ++c) {
    offsets[c] = offset;
    offset += padded(widths[c] * n);
  }
  CHECK(offset == bytes.size());
  CHECK(at<std::uint8_t>(bytes, offsets[0] + 2) == static_cast<std::uint8_t>(EventKind::Packet));
  CHECK(at<std::uint8_t>(bytes, offsets[1] + 2) == static_cast<std::uint8_t>(PacketOp::CopySignal));
  CHECK(at<std::uint16_t>(bytes, offsets[3] + 2 * 2) == 1);
  CHECK(at<std::uint32_t>(bytes, offsets[4] + 4 * 1) == kEngineUnknown);
  CHECK(at<std::uint32_t>(bytes, offsets[4] + 4 * 1) == 65535);
  CHECK(at<std::int32_t>(bytes, offsets[6] + 4 * 1) == 2);
  CHECK(at<double>(bytes, offsets[8] + 8 * 2) == 800);
  CHECK(at<double>(bytes, offsets[9] + 8 * 0) == -1);
  CHECK(at<double>(bytes, offsets[10] + 8 * 2) == 4096);
  CHECK(at<std::uint8_t>(bytes, offsets[11] + 0) == 0);
  CHECK(at<std::uint8_t>(bytes, offsets[11] + 1) == kEventInferred);
  CHECK(at<std::uint8_t>(bytes, offsets[11] + 2) == kEventInferred);
  // The padding after the last column is zero.
  for (std::uint64_t i = offsets[11] + n; i < bytes.size(); ++i) CHECK(bytes[i] == 0);
}

TEST_CASE("an empty timeline is the header alone") {
  TempFile file("empty.sdmatl");
  CHECK(writeSdmatlFile(file.path(), TimelineEvents{}) == 32);
  CHECK(sdmatlFileBytes(0) == 32);
  CHECK(at<std::uint32_t>(readAll(file.path()), 8) == kSdmatlVersion);
}

TEST_CASE("the size of a file at the helper's event limit") {
  // 5 x 10^7 events: 50 bytes of columns each, every column a multiple of 8 already.
  CHECK(sdmatlFileBytes(50'000'000) == 32 + 50ull * 50'000'000);
  // One event: twelve columns, each padded to 8 bytes.
  CHECK(sdmatlFileBytes(1) == 32 + 12 * 8);
}

TEST_CASE("flag bits version 2 does not define are refused before the file is created") {
  for (std::uint8_t bad : {std::uint8_t{2}, std::uint8_t{3}, std::uint8_t{0x80}}) {
    TimelineEvents events = threeEvents();
    events.flags[1] = bad;
    TempFile file("bad-flags.sdmatl");
    CHECK_THROWS_AS(writeSdmatlFile(file.path(), events), std::invalid_argument);
    CHECK_FALSE(std::filesystem::exists(file.path()));
  }
}

TEST_CASE("columns of different lengths are refused before the file is created") {
  TimelineEvents events = threeEvents();
  events.flags.pop_back();
  TempFile file("ragged.sdmatl");
  CHECK_THROWS_AS(writeSdmatlFile(file.path(), events), std::invalid_argument);
  CHECK_FALSE(std::filesystem::exists(file.path()));
}

TEST_CASE("the simulator draws engine/device as a real AMD GPU: inferred boxes on the unknown-engine lane") {
  const sim::Mi350xModel model;
  TimelineRequest request;
  request.paths = {CopyPath::EngineHost, CopyPath::EngineDevice};
  request.srcGpu = 0;
  request.dstGpu = 1;
  request.sizeBytes = 64 * MiB;
  request.cus = 4;
  request.repeats = 2;
  TimelineEvents events;
  REQUIRE(sim::appendSimTimeline(model, request, 1, events) == RunStatus::Ok);
  CHECK(events.size() == sim::simTimelineEventCount(model, request));

  int inferredPackets = 0;
  int inferredDoorbells = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto kind = static_cast<EventKind>(events.kind[i]);
    const auto path = static_cast<CopyPath>(events.path[i]);
    const bool inferred = (events.flags[i] & kEventInferred) != 0;
    CAPTURE(i);
    CHECK((events.flags[i] & ~kEventFlagsKnown) == 0);
    if (path == CopyPath::EngineHost) {
      // The simulator models engine/host's engines; nothing there is marked inferred.
      CHECK_FALSE(inferred);
      if (kind == EventKind::Packet || kind == EventKind::Doorbell) CHECK(events.lane[i] != kEngineUnknown);
      continue;
    }
    switch (kind) {
      case EventKind::Kernel:
      case EventKind::Cu:
        CHECK_FALSE(inferred);
        break;
      case EventKind::Doorbell:
        CHECK(inferred);
        CHECK(events.lane[i] == kEngineUnknown);
        ++inferredDoorbells;
        // Its ref names the packet it announced, the next event.
        REQUIRE(events.ref[i] == events.id[i] + 1);
        CHECK(static_cast<EventKind>(events.kind[i + 1]) == EventKind::Packet);
        CHECK(events.queuedNs[i + 1] == events.startNs[i]);
        break;
      case EventKind::Packet:
        CHECK(inferred);
        CHECK(events.lane[i] == kEngineUnknown);
        CHECK(events.bytes[i] == static_cast<double>(request.sizeBytes));
        // It ends with the kernel, which waited for the completion.
        CHECK(events.endNs[i] == events.endNs[i - 3]);
        ++inferredPackets;
        break;
      case EventKind::Proxy:
        FAIL("no host proxy thread on AMD's engine/device");
        break;
    }
  }
  CHECK(inferredPackets == 2);
  CHECK(inferredDoorbells == 2);
}

}  // namespace
