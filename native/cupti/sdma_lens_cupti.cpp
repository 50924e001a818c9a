// The CUPTI activity injection library of `sdma-probe run` on NVIDIA. The CUDA driver loads
// it into the program through CUDA_INJECTION64_PATH and calls InitializeInjection once; it
// asks CUPTI for kernel and memory-copy activity records and writes each as one NDJSON line
// to the fd in SDMA_LENS_TRACE_FD (or appends to SDMA_LENS_TRACE_FILE). The helper turns
// the lines into protocol records (docs/PROFILE.md, "trace lines").
//
// Times stay on CUPTI's clock here; a `clock` line at start and at exit pairs it with
// CLOCK_MONOTONIC so the helper can map them onto the program's time line.
//
// CUPTI itself is dlopen'ed (cupti_loader.hpp), not linked: this library has no NEEDED
// libcupti and no rpath, and a program run where no CUPTI is installed gets a `cupti-error`
// line saying so instead of failing to load the library. Records are read through
// cupti_layout.hpp, whatever CUPTI version wrote them.
#include <cupti.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "cupti/cupti_layout.hpp"
#include "cupti/cupti_loader.hpp"
#include "util/json_writer.hpp"

namespace {

int gFd = -1;
const sdma::cupti::Library* gCupti = nullptr;  // set before any callback is registered
std::atomic<std::uint64_t> gDroppedRecords{0};
// Activity buffers: big enough that CUPTI rarely has to wait for one, small enough that a
// program with many contexts does not notice them.
constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlign = 8;

std::int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// One write per line: up to PIPE_BUF bytes, lines of several processes never interleave.
void writeLine(const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(gFd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// One trace line: {"k":KIND,"pid":PID, ...fields}, written with the helper's JSON writer.
class TraceLine {
 public:
  explicit TraceLine(std::string_view kind) {
    json_.beginObject().key("k").value(kind).key("pid").value(static_cast<int>(getpid()));
  }
  sdma::JsonWriter& json() { return json_; }
  void write() {
    json_.endObject();
    writeLine(json_.str() + "\n");
  }

 private:
  sdma::JsonWriter json_;
};

// CUPTI's timestamp and CLOCK_MONOTONIC read back to back; the closest of several pairs.
void writeClockLine(const char* when) {
  std::int64_t bestGap = -1, mono = 0;
  std::uint64_t cupti = 0;
  for (int i = 0; i < 16; ++i) {
    const std::int64_t t0 = monotonicNs();
    std::uint64_t c = 0;
    if (gCupti->api.getTimestamp(&c) != CUPTI_SUCCESS) return;
    const std::int64_t t1 = monotonicNs();
    if (bestGap < 0 || t1 - t0 < bestGap) {
      bestGap = t1 - t0;
      mono = t0 + (t1 - t0) / 2;
      cupti = c;
    }
  }
  TraceLine line("clock");
  line.json().key("when").value(when).key("cuptiNs").value(cupti).key("monoNs").value(mono);
  line.json().key("uncertaintyNs").value(bestGap / 2);
  line.write();
}

void writeKernel(const sdma::cupti::ActivityRecord& k) {
  TraceLine line("kernel");
  sdma::JsonWriter& j = line.json();
  j.key("gpu").value(k.deviceId).key("name").value(k.name);
  j.key("startNs").value(k.startNs).key("endNs").value(k.endNs);
  j.key("grid").beginArray().value(k.grid[0]).value(k.grid[1]).value(k.grid[2]).endArray();
  j.key("block").beginArray().value(k.block[0]).value(k.block[1]).value(k.block[2]).endArray();
  j.key("corr").value(k.correlationId).key("stream").value(k.streamId);
  line.write();
}

void writeMemcpy(const sdma::cupti::ActivityRecord& m) {
  namespace kind = sdma::cupti::copy_kind;
  const int device = static_cast<int>(m.deviceId);
  int src = -1, dst = -1;  // -1: host memory
  if (m.peer) {
    src = static_cast<int>(m.srcDeviceId);
    dst = static_cast<int>(m.dstDeviceId);
  } else {
    switch (m.copyKind) {
      case kind::kHtoD:
      case kind::kHtoA:
        dst = device;
        break;
      case kind::kDtoH:
      case kind::kAtoH:
        src = device;
        break;
      case kind::kHtoH:
        break;
      default:
        src = dst = device;
        break;
    }
  }
  TraceLine line("memcpy");
  sdma::JsonWriter& j = line.json();
  j.key("kind").value(sdma::cupti::copyKindName(m.copyKind)).key("gpu").value(m.deviceId);
  j.key("src").value(src).key("dst").value(dst);
  j.key("bytes").value(m.bytes).key("startNs").value(m.startNs).key("endNs").value(m.endNs);
  j.key("corr").value(m.correlationId);
  line.write();
}

void handleRecord(const CUpti_Activity* record) {
  const auto r = sdma::cupti::decodeRecord(record, gCupti->version);
  if (!r) return;
  if (r->type == sdma::cupti::RecordType::Kernel) {
    writeKernel(*r);
  } else {
    writeMemcpy(*r);
  }
}

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords) {
  void* memory = nullptr;
  if (posix_memalign(&memory, kBufferAlign, kBufferBytes) != 0) memory = nullptr;
  *buffer = static_cast<std::uint8_t*>(memory);
  *size = memory ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t,
                              std::size_t validSize) {
  CUpti_Activity* record = nullptr;
  while (gCupti->api.activityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) handleRecord(record);
  std::size_t dropped = 0;
  if (gCupti->api.activityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS)
    gDroppedRecords += dropped;
  std::free(buffer);
}

void flushAtExit() {
  gCupti->api.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  writeClockLine("exit");
  TraceLine line("cupti-end");
  line.json().key("dropped").value(gDroppedRecords.load());
  line.write();
}

int openSink() {
  // "N:INODE": fd N must still be the helper's pipe. A process that closed it and reused
  // the number for a file of its own (a launcher's workers) must not get trace lines.
  if (const char* fd = std::getenv("SDMA_LENS_TRACE_FD")) {
    const int n = std::atoi(fd);
    const char* colon = std::strchr(fd, ':');
    struct stat st;
    if (n > 2 && colon != nullptr && fstat(n, &st) == 0 && S_ISFIFO(st.st_mode) &&
        static_cast<unsigned long long>(st.st_ino) == std::strtoull(colon + 1, nullptr, 10)) {
      return n;
    }
  }
  if (const char* path = std::getenv("SDMA_LENS_TRACE_FILE")) {
    if (*path) return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  }
  return -1;
}

void reportError(const std::string& message) {
  TraceLine line("cupti-error");
  line.json().key("message").value(message);
  line.write();
}

void reportFailure(const char* what, CUptiResult result) {
  reportError(std::string(what) + ": " + gCupti->resultText(result));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static bool initialized = false;
  if (initialized) return 1;
  initialized = true;
  gFd = openSink();
  if (gFd < 0) return 1;  // loaded outside a run: stay out of the way
  const sdma::cupti::LoadResult& loaded = sdma::cupti::loadOnce();
  if (!loaded.library) {
    reportError(loaded.error);
    return 1;  // the program runs on, untraced
  }
  gCupti = &*loaded.library;
  CUptiResult r = gCupti->api.activityRegisterCallbacks(bufferRequested, bufferCompleted);
  if (r != CUPTI_SUCCESS) {
    reportFailure("cuptiActivityRegisterCallbacks", r);
    return 1;
  }
  const struct {
    CUpti_ActivityKind kind;
    const char* name;
  } kinds[] = {
      {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
      {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
      {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2"},
  };
  for (const auto& k : kinds) {
    r = gCupti->api.activityEnable(k.kind);
    if (r != CUPTI_SUCCESS) reportFailure((std::string("cuptiActivityEnable ") + k.name).c_str(), r);
  }
  writeClockLine("start");
  std::atexit(flushAtExit);
  return 1;
}
