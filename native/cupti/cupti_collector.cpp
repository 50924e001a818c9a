#include "cupti/cupti_collector.hpp"

#include <cstdlib>
#include <iterator>
#include <mutex>
#include <utility>

#include "cupti/cupti_layout.hpp"
#include "cupti/cupti_loader.hpp"

namespace sdma::cupti {
namespace {

// A pass of one point makes a few dozen records; CUPTI asks for more buffers when it needs them.
constexpr std::size_t kBufferBytes = 1u << 20;
constexpr std::size_t kBufferAlign = 8;  // ACTIVITY_RECORD_ALIGNMENT

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                                         CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
constexpr const char* kKindNames[] = {"MEMCPY", "MEMCPY2", "CONCURRENT_KERNEL"};

// What the buffer callbacks fill: CUPTI calls them from the flushing thread or its own.
struct Received {
  std::mutex mutex;
  std::vector<ActivityRecord> records;
  std::uint64_t dropped = 0;
};

const Library* gLibrary = nullptr;  // set once, before the callbacks are registered
Received gReceived;

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords) {
  void* memory = nullptr;
  if (posix_memalign(&memory, kBufferAlign, kBufferBytes) != 0) memory = nullptr;
  *buffer = static_cast<std::uint8_t*>(memory);
  *size = memory != nullptr ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t,
                              std::size_t validSize) {
  std::vector<ActivityRecord> decoded;
  std::size_t dropped = 0;
  if (gLibrary != nullptr && buffer != nullptr) {
    CUpti_Activity* record = nullptr;
    while (gLibrary->api.activityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
      if (auto r = decodeRecord(record, gLibrary->version)) decoded.push_back(std::move(*r));
    }
    if (gLibrary->api.activityGetNumDroppedRecords(context, streamId, &dropped) != CUPTI_SUCCESS) dropped = 0;
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(gReceived.mutex);
  for (ActivityRecord& r : decoded) gReceived.records.push_back(std::move(r));
  gReceived.dropped += dropped;
}

}  // namespace

Collector& Collector::instance() {
  static Collector collector;
  return collector;
}

const std::string& Collector::unavailable() {
  static std::once_flag once;
  std::call_once(once, [this] {
    const LoadResult& loaded = loadOnce();
    if (!loaded.library) {
      unavailable_ = loaded.error;
      return;
    }
    const Library& lib = *loaded.library;
    const CUptiResult r = lib.api.activityRegisterCallbacks(bufferRequested, bufferCompleted);
    if (r != CUPTI_SUCCESS) {
      unavailable_ = "CUPTI (" + lib.path + ") refused cuptiActivityRegisterCallbacks: " + lib.resultText(r);
      return;
    }
    gLibrary = &lib;
    path_ = lib.path;
    version_ = lib.version;
  });
  return unavailable_;
}

std::optional<std::uint64_t> Collector::timestamp() const {
  if (gLibrary == nullptr) return std::nullopt;
  std::uint64_t t = 0;
  if (gLibrary->api.getTimestamp(&t) != CUPTI_SUCCESS) return std::nullopt;
  return t;
}

bool Collector::start(std::string& error) {
  if (!unavailable().empty()) {
    error = unavailable_;
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(gReceived.mutex);
    gReceived.records.clear();
    gReceived.dropped = 0;
  }
  for (std::size_t i = 0; i < std::size(kKinds); ++i) {
    const CUptiResult r = gLibrary->api.activityEnable(kKinds[i]);
    if (r != CUPTI_SUCCESS) {
      error = std::string("CUPTI refused cuptiActivityEnable(") + kKindNames[i] + "): " + gLibrary->resultText(r);
      for (std::size_t j = 0; j < i; ++j) (void)gLibrary->api.activityDisable(kKinds[j]);
      return false;
    }
  }
  return true;
}

Collector::Collected Collector::stop() {
  Collected out;
  if (gLibrary == nullptr) return out;
  const CUptiResult flushed = gLibrary->api.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (flushed != CUPTI_SUCCESS) out.error = "cuptiActivityFlushAll: " + gLibrary->resultText(flushed);
  for (std::size_t i = 0; i < std::size(kKinds); ++i) {
    const CUptiResult r = gLibrary->api.activityDisable(kKinds[i]);
    if (r != CUPTI_SUCCESS && out.error.empty()) {
      out.error = std::string("cuptiActivityDisable(") + kKindNames[i] + "): " + gLibrary->resultText(r);
    }
  }
  std::lock_guard<std::mutex> lock(gReceived.mutex);
  out.records = std::move(gReceived.records);
  gReceived.records.clear();
  out.dropped = gReceived.dropped;
  gReceived.dropped = 0;
  return out;
}

}  // namespace sdma::cupti
