// CUPTI's loader and record layout (native/cupti/cupti_loader.hpp, cupti_layout.hpp): what a
// machine without CUPTI is told, and records of each CUPTI version read alike. Built where
// cupti.h is found; needs no GPU (and no libcupti, except for the check that loads it when
// this machine has one).
#include <cupti.h>

#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "cupti/cupti_layout.hpp"
#include "cupti/cupti_loader.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma::cupti;

constexpr const char* kMissing = "no CUPTI library (libcupti.so.12 or .13) was found: install the CUDA toolkit's CUPTI";

template <typename Record>
Record zeroed() {
  Record r;
  std::memset(&r, 0, sizeof r);
  return r;
}

template <typename Memcpy>
Memcpy memcpyRecord() {
  auto m = zeroed<Memcpy>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  m.bytes = 4096;
  m.start = 1000;
  m.end = 2000;
  m.deviceId = 3;
  m.streamId = 14;
  m.correlationId = 99;
  m.channelID = 7;
  m.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
  return m;
}

template <typename Kernel>
Kernel kernelRecord(const char* name) {
  auto k = zeroed<Kernel>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 5000;
  k.end = 9000;
  k.deviceId = 1;
  k.streamId = 13;
  k.gridX = 132;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 1024;
  k.blockY = 1;
  k.blockZ = 1;
  k.correlationId = 42;
  k.name = name;
  return k;
}

const CUpti_Activity* asActivity(const void* record) { return static_cast<const CUpti_Activity*>(record); }

void checkMemcpy(const std::optional<ActivityRecord>& r, bool channels) {
  REQUIRE(r);
  CHECK(r->type == RecordType::Memcpy);
  CHECK_FALSE(r->peer);
  CHECK(r->copyKind == copy_kind::kDtoD);
  CHECK(r->bytes == 4096);
  CHECK(r->startNs == 1000);
  CHECK(r->endNs == 2000);
  CHECK(r->deviceId == 3);
  CHECK(r->streamId == 14);
  CHECK(r->correlationId == 99);
  if (channels) {
    CHECK(r->channelId == std::optional<std::uint32_t>(7));
    CHECK(r->channelType == std::optional<std::uint32_t>(channel_type::kAsyncMemcpy));
  } else {
    CHECK_FALSE(r->channelId);
    CHECK_FALSE(r->channelType);
  }
}

void checkKernel(const std::optional<ActivityRecord>& r) {
  REQUIRE(r);
  CHECK(r->type == RecordType::Kernel);
  CHECK(r->name == "_ZN4sdma3gpu10copyKernelE");
  CHECK(r->startNs == 5000);
  CHECK(r->endNs == 9000);
  CHECK(r->deviceId == 1);
  CHECK(r->streamId == 13);
  CHECK(r->grid[0] == 132);
  CHECK(r->block[0] == 1024);
  CHECK(r->block[2] == 1);
  CHECK(r->correlationId == 42);
}

}  // namespace

TEST_CASE("no candidate: the missing-library message") {
  const LoadResult none = load({});
  CHECK_FALSE(none.library);
  CHECK(none.error == missingMessage());
  CHECK(none.error.find(kMissing) == 0);
  CHECK(none.tried.empty());

  // Candidates that do not exist are no library either.
  const LoadResult absent = load({"/nonexistent/sdma-lens/libcupti.so.13", "libcupti-sdma-lens-absent.so.99"});
  CHECK_FALSE(absent.library);
  CHECK(absent.error == missingMessage());
}

TEST_CASE("a candidate that exists but is no CUPTI library is named") {
  char path[] = "/tmp/sdma-lens-not-cupti.XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "not an ELF file\n", 16) == 16);
  close(fd);
  const LoadResult r = load({path});
  unlink(path);
  CHECK_FALSE(r.library);
  REQUIRE(r.tried.size() == 1);
  CHECK(r.tried[0].find(path) == 0);
  CHECK(r.error.find("no usable CUPTI library (libcupti.so.12 or .13):") == 0);
}

TEST_CASE("the default candidates: sonames, then the toolkit's folders, then libcupti.so") {
  const std::vector<std::string> c = defaultCandidates();
  REQUIRE(c.size() >= 7);
  CHECK(c[0] == "libcupti.so.13");
  CHECK(c[1] == "libcupti.so.12");
  CHECK(c[2] == "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
  CHECK(c.back() == "libcupti.so");
  for (std::size_t i = 2; i + 1 < c.size(); ++i) {
    CHECK_MESSAGE(c[i].rfind("/usr/local/cuda", 0) == 0, c[i]);  // fixed folders only
  }
}

TEST_CASE("CUPTI API versions to CUDA majors") {
  CHECK(cudaMajorOfCuptiVersion(19) == 12);  // CUDA 12.0
  CHECK(cudaMajorOfCuptiVersion(24) == 12);  // 12.6
  CHECK(cudaMajorOfCuptiVersion(28) == 12);  // 12.9 Update 1
  CHECK(cudaMajorOfCuptiVersion(18) == 11);  // 11.8
  CHECK(cudaMajorOfCuptiVersion(130000) == 13);
  CHECK(cudaMajorOfCuptiVersion(130001) == 13);
  CHECK(cudaMajorOfCuptiVersion(0) == 0);
  CHECK(kFirstVersionWithChannels == 17);  // CUDA 11.6: CUpti_ActivityMemcpy5, PtoP4
}

TEST_CASE("this machine's CUPTI, where it has one, loads and answers its version") {
  const LoadResult& r = loadOnce();
  if (!r.library) {
    CHECK_FALSE(r.error.empty());
    MESSAGE("no CUPTI here: " << r.error);
    return;
  }
  CHECK(r.library->version >= 19);
  CHECK(cudaMajorOfCuptiVersion(r.library->version) >= 12);
  CHECK(static_cast<bool>(r.library->api.activityEnable));
  CHECK(r.library->resultText(CUPTI_SUCCESS).size() > 0);
}

TEST_CASE("memcpy records of CUPTI 12.x (Memcpy5) and 12.8+ (Memcpy6) read alike") {
  const auto v5 = memcpyRecord<CUpti_ActivityMemcpy5>();
  checkMemcpy(decodeRecord(asActivity(&v5), 24), true);  // CUDA 12.6
#if CUPTI_API_VERSION >= 26
  const auto v6 = memcpyRecord<CUpti_ActivityMemcpy6>();
  checkMemcpy(decodeRecord(asActivity(&v6), 130001), true);  // CUDA 13.0
#endif
  // A CUPTI older than 11.6: the same offsets, without the channel fields.
  checkMemcpy(decodeRecord(asActivity(&v5), 16), false);
}

TEST_CASE("peer memcpy records (PtoP4) give both devices and the channel") {
  auto p = zeroed<CUpti_ActivityMemcpyPtoP4>();
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.bytes = 1 << 20;
  p.start = 10;
  p.end = 20;
  p.deviceId = 0;
  p.srcDeviceId = 0;
  p.dstDeviceId = 1;
  p.correlationId = 5;
  p.channelID = 11;
  p.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
  const auto r = decodeRecord(asActivity(&p), 130001);
  REQUIRE(r);
  CHECK(r->peer);
  CHECK(r->copyKind == copy_kind::kPtoP);
  CHECK(r->bytes == (1u << 20));
  CHECK(r->srcDeviceId == 0);
  CHECK(r->dstDeviceId == 1);
  CHECK(r->correlationId == 5);
  CHECK(r->channelId == std::optional<std::uint32_t>(11));
  CHECK(r->channelType == std::optional<std::uint32_t>(channel_type::kAsyncMemcpy));
}

TEST_CASE("kernel records of CUPTI 12.x (Kernel9) and 13.0 (Kernel10) read alike") {
  static const char kName[] = "_ZN4sdma3gpu10copyKernelE";
  const auto k9 = kernelRecord<CUpti_ActivityKernel9>(kName);
  checkKernel(decodeRecord(asActivity(&k9), 24));
#if CUPTI_API_VERSION >= 130000
  const auto k10 = kernelRecord<CUpti_ActivityKernel10>(kName);
  checkKernel(decodeRecord(asActivity(&k10), 130001));
#endif
}

TEST_CASE("other record kinds are not read") {
  auto m = zeroed<CUpti_ActivityMemset4>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  CHECK_FALSE(decodeRecord(asActivity(&m), 130001));
  CHECK_FALSE(decodeRecord(nullptr, 130001));
}
