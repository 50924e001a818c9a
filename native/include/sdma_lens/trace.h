// SDMA Lens device-side trace: mark scopes and transfers inside HIP or CUDA kernels so that
// `sdma-probe run` can show which CUs moved how many bytes to which GPU, and when.
//
//   #include <sdma_lens/trace.h>
//
//   __global__ void step(...) {
//     SDMA_LENS_SCOPE_BEGIN(span);               // one thread per block (e.g. threadIdx.x == 0)
//     ... store `bytes` into GPU `peer`'s buffer ...
//     SDMA_LENS_TRANSFER_END(span, 1, bytes, peer);   // label 1, a put to `peer`
//   }
//
//   int main() {
//     sdma_lens::traceSetup({"compute", "a2a"});  // names for labels 0 and 1; no-op outside a run
//     ... launch kernels ...
//     sdma_lens::traceFlush();                     // also runs at exit
//   }
//
// Cost: outside `sdma-probe run` (no SDMA_LENS_TRACE_FD / SDMA_LENS_TRACE_FILE in the
// environment) traceSetup allocates nothing and every macro is one load of a __device__
// pointer and a branch on null. Built with -DSDMA_LENS_TRACE_OFF the macros compile to nothing.
//
// Records are per block: call the macros from one thread of a block, after the work they
// cover is done by the whole block (a __syncthreads() before the END). Each record is 32
// bytes in a per-GPU device buffer (SDMA_LENS_TRACE_RECORDS records per GPU, default 65536);
// records past the end are counted, not written, and reported as dropped.
//
// Times are the device clock (%globaltimer on NVIDIA, wall_clock64 on AMD), moved onto the
// host's CLOCK_MONOTONIC by a ping kernel at setup (offset from the shortest round trip,
// uncertainty half of it). Labels, record layout and the lines written: docs/PROFILE.md.
//
// Labels live per translation unit: the device pointer is `static`, so call traceSetup in
// each source file whose kernels record (most programs have one).
#pragma once

#include <stdint.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#define SDMA_LENS_GPU_AMD 1
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#define SDMA_LENS_GPU_NVIDIA 1
#endif

#if defined(SDMA_LENS_GPU_AMD) || defined(SDMA_LENS_GPU_NVIDIA)

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace sdma_lens {

// A transfer whose bytes were moved by a copy engine the kernel started (not by its CUs).
constexpr unsigned kMoverEngine = 1u;
// The bytes flowed from `peer` into this GPU (a get) rather than out of it (a put).
constexpr unsigned kPull = 2u;

struct TraceRecord {
  uint64_t startTicks;
  uint64_t endTicks;
  uint64_t bytes;
  uint16_t cu;
  uint16_t xcc;
  int16_t peer;  // -1: a scope, no transfer
  uint8_t label;
  uint8_t flags;
};
static_assert(sizeof(TraceRecord) == 32, "the host reads records as 32-byte rows");

struct TraceBuffer {
  unsigned long long next;  // slots claimed, including those past capacity (dropped)
  unsigned long long capacity;
  TraceRecord records[1];
};

struct Span {
  uint64_t startTicks;  // 0: tracing was off when the span began
};

#if !defined(SDMA_LENS_TRACE_OFF)
// Null unless traceSetup found a run to report to: the whole cost of an inactive trace.
static __device__ TraceBuffer* gTraceBuffer = nullptr;
#endif

__device__ inline uint64_t deviceTicks() {
#if defined(SDMA_LENS_GPU_NVIDIA)
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#elif defined(__HIP_DEVICE_COMPILE__)
  return static_cast<uint64_t>(__builtin_amdgcn_s_memrealtime());  // wall_clock64: fixed rate
#else
  return 0;  // host pass of a HIP build: never runs
#endif
}

__device__ inline void cuIds(uint16_t& cu, uint16_t& xcc) {
#if defined(SDMA_LENS_GPU_NVIDIA)
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  cu = static_cast<uint16_t>(sm);
  xcc = 0;
#elif defined(__HIP_DEVICE_COMPILE__)
  cu = static_cast<uint16_t>(__smid());
  xcc = 0;
#else
  cu = 0;
  xcc = 0;
#endif
}

__device__ inline Span spanBegin() {
#if !defined(SDMA_LENS_TRACE_OFF)
  if (gTraceBuffer != nullptr) return Span{deviceTicks() | 1u};
#endif
  return Span{0};
}

__device__ inline void spanEnd(Span span, unsigned label, uint64_t bytes, int peer, unsigned flags) {
#if !defined(SDMA_LENS_TRACE_OFF)
  TraceBuffer* buffer = gTraceBuffer;
  if (buffer == nullptr || span.startTicks == 0) return;
  TraceRecord r;
  r.startTicks = span.startTicks;
  r.endTicks = deviceTicks();
  r.bytes = bytes;
  cuIds(r.cu, r.xcc);
  r.peer = static_cast<int16_t>(peer);
  r.label = static_cast<uint8_t>(label);
  r.flags = static_cast<uint8_t>(flags);
  const unsigned long long slot = atomicAdd(&buffer->next, 1ull);
  if (slot < buffer->capacity) buffer->records[slot] = r;
#else
  (void)span;
  (void)label;
  (void)bytes;
  (void)peer;
  (void)flags;
#endif
}

namespace detail {

#if defined(SDMA_LENS_GPU_NVIDIA)
#define SDMA_LENS_RT_(name) cuda##name
#else
#define SDMA_LENS_RT_(name) hip##name
#endif

static __global__ void clockPing(uint64_t* out) { *out = deviceTicks(); }

inline int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

struct GpuState {
  TraceBuffer* buffer = nullptr;
  double nsPerTick = 1.0;
  int64_t offsetNs = 0;  // host ns = device ns + offset
  int64_t uncertaintyNs = 0;
};

struct State {
  bool active = false;
  bool flushed = false;
  int fd = -1;
  std::vector<std::string> labels;
  std::vector<GpuState> gpus;
};

static inline State& state() {
  static State s;
  return s;
}

static inline std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

// One write per line: lines up to PIPE_BUF bytes never interleave with other writers.
static inline void writeLine(const std::string& line) {
  const State& s = state();
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(s.fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The helper leaves out the profiler's records of this library's own setup and flush
// (ping kernels, small copies) by these windows on CLOCK_MONOTONIC.
static inline void writeWindow(int64_t startNs) {
  char line[160];
  snprintf(line, sizeof line, "{\"k\":\"dev-window\",\"pid\":%d,\"monoStartNs\":%lld,\"monoEndNs\":%lld}\n",
           static_cast<int>(getpid()), static_cast<long long>(startNs), static_cast<long long>(monotonicNs()));
  writeLine(line);
}

static inline int openSink() {
  // "N:INODE": fd N must still be the helper's pipe. A process that closed it and reused
  // the number for a file of its own (a launcher's workers) must not get trace lines.
  if (const char* fd = getenv("SDMA_LENS_TRACE_FD")) {
    const int n = atoi(fd);
    const char* colon = strchr(fd, ':');
    struct stat st;
    if (n > 2 && colon != nullptr && fstat(n, &st) == 0 && S_ISFIFO(st.st_mode) &&
        static_cast<unsigned long long>(st.st_ino) == strtoull(colon + 1, nullptr, 10)) {
      return n;
    }
  }
  if (const char* path = getenv("SDMA_LENS_TRACE_FILE")) {
    if (*path) return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  }
  return -1;
}

// Device ticks to host ns: the kernel's clock read lies inside [t0, t1]; the shortest of
// several round trips bounds it best.
static inline bool alignClock(GpuState& g) {
  uint64_t* ticks = nullptr;
  if (SDMA_LENS_RT_(Malloc)(reinterpret_cast<void**>(&ticks), sizeof(uint64_t)) != SDMA_LENS_RT_(Success)) return false;
  int64_t best = -1;
  for (int i = 0; i < 16; ++i) {
    const int64_t t0 = monotonicNs();
    clockPing<<<1, 1>>>(ticks);
    uint64_t value = 0;
    if (SDMA_LENS_RT_(Memcpy)(&value, ticks, sizeof value, SDMA_LENS_RT_(MemcpyDeviceToHost)) != SDMA_LENS_RT_(Success))
      break;
    const int64_t t1 = monotonicNs();
    if (i < 2) continue;  // the first launches load the module
    if (best < 0 || t1 - t0 < best) {
      best = t1 - t0;
      g.offsetNs = (t0 + t1) / 2 - static_cast<int64_t>(static_cast<double>(value) * g.nsPerTick);
      g.uncertaintyNs = best / 2;
    }
  }
  (void)SDMA_LENS_RT_(Free)(ticks);
  return best >= 0;
}

}  // namespace detail

static inline void traceFlush();

// Starts tracing when this program runs under `sdma-probe run`; returns whether it did.
// `labels` names label ids 0, 1, ... in the order given.
static inline bool traceSetup(std::initializer_list<const char*> labels = {}) {
#if defined(SDMA_LENS_TRACE_OFF)
  (void)labels;
  return false;
#else
  detail::State& s = detail::state();
  if (s.active) return true;
  s.fd = detail::openSink();
  if (s.fd < 0) return false;
  const int64_t windowStart = detail::monotonicNs();
  for (const char* l : labels) s.labels.emplace_back(l ? l : "");
  unsigned long long capacity = 65536;
  if (const char* text = getenv("SDMA_LENS_TRACE_RECORDS")) {
    const unsigned long long n = strtoull(text, nullptr, 10);
    if (n > 0 && n <= (1ull << 28)) capacity = n;
  }
  int count = 0, current = 0;
  if (SDMA_LENS_RT_(GetDeviceCount)(&count) != SDMA_LENS_RT_(Success) || count <= 0) return false;
  (void)SDMA_LENS_RT_(GetDevice)(&current);
  s.gpus.resize(static_cast<size_t>(count));
  for (int d = 0; d < count; ++d) {
    detail::GpuState& g = s.gpus[static_cast<size_t>(d)];
    if (SDMA_LENS_RT_(SetDevice)(d) != SDMA_LENS_RT_(Success)) continue;
#if defined(SDMA_LENS_GPU_AMD)
    // wall_clock64 runs at a fixed 100 MHz on the Instinct parts; newer ROCm says so itself.
    g.nsPerTick = 10.0;
#if HIP_VERSION_MAJOR > 5 || (HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR >= 3)
    int kHz = 0;
    if (hipDeviceGetAttribute(&kHz, hipDeviceAttributeWallClockRate, d) == hipSuccess && kHz > 0)
      g.nsPerTick = 1e6 / kHz;
#endif
#endif
    const size_t bytes = sizeof(TraceBuffer) + (capacity - 1) * sizeof(TraceRecord);
    TraceBuffer* buffer = nullptr;
    if (SDMA_LENS_RT_(Malloc)(reinterpret_cast<void**>(&buffer), bytes) != SDMA_LENS_RT_(Success)) continue;
    const unsigned long long header[2] = {0, capacity};
    (void)SDMA_LENS_RT_(Memcpy)(buffer, header, sizeof header, SDMA_LENS_RT_(MemcpyHostToDevice));
    if (!detail::alignClock(g)) {
      (void)SDMA_LENS_RT_(Free)(buffer);
      continue;
    }
#if defined(SDMA_LENS_GPU_NVIDIA)
    (void)cudaMemcpyToSymbol(gTraceBuffer, &buffer, sizeof buffer);
#else
    (void)hipMemcpyToSymbol(HIP_SYMBOL(gTraceBuffer), &buffer, sizeof buffer);
#endif
    g.buffer = buffer;
  }
  (void)SDMA_LENS_RT_(SetDevice)(current);
  detail::writeWindow(windowStart);
  s.active = true;
  atexit([] { traceFlush(); });
  return true;
#endif
}

// Copies the records back and writes them for the run; later records are not collected.
// Synchronises each GPU first, so call it once the traced work is done.
static inline void traceFlush() {
#if !defined(SDMA_LENS_TRACE_OFF)
  detail::State& s = detail::state();
  if (!s.active || s.flushed) return;
  s.flushed = true;
  int current = 0;
  (void)SDMA_LENS_RT_(GetDevice)(&current);
  // The program's own work finishes before the window opens, so none of it is left out.
  for (size_t d = 0; d < s.gpus.size(); ++d) {
    if (s.gpus[d].buffer != nullptr && SDMA_LENS_RT_(SetDevice)(static_cast<int>(d)) == SDMA_LENS_RT_(Success)) {
      (void)SDMA_LENS_RT_(DeviceSynchronize)();
    }
  }
  const int64_t windowStart = detail::monotonicNs();
  char line[512];
  for (size_t d = 0; d < s.gpus.size(); ++d) {
    detail::GpuState& g = s.gpus[d];
    if (g.buffer == nullptr || SDMA_LENS_RT_(SetDevice)(static_cast<int>(d)) != SDMA_LENS_RT_(Success)) continue;
    TraceBuffer* none = nullptr;
#if defined(SDMA_LENS_GPU_NVIDIA)
    (void)cudaMemcpyToSymbol(gTraceBuffer, &none, sizeof none);
#else
    (void)hipMemcpyToSymbol(HIP_SYMBOL(gTraceBuffer), &none, sizeof none);
#endif
    unsigned long long header[2] = {0, 0};
    if (SDMA_LENS_RT_(Memcpy)(header, g.buffer, sizeof header, SDMA_LENS_RT_(MemcpyDeviceToHost)) !=
        SDMA_LENS_RT_(Success))
      continue;
    const unsigned long long kept = header[0] < header[1] ? header[0] : header[1];
    std::vector<TraceRecord> records(kept);
    if (kept > 0 && SDMA_LENS_RT_(Memcpy)(records.data(), g.buffer->records, kept * sizeof(TraceRecord),
                                          SDMA_LENS_RT_(MemcpyDeviceToHost)) != SDMA_LENS_RT_(Success)) {
      continue;
    }
    (void)SDMA_LENS_RT_(Free)(g.buffer);
    g.buffer = nullptr;
    for (const TraceRecord& r : records) {
      const std::string label =
          r.label < s.labels.size() ? s.labels[r.label] : "label" + std::to_string(static_cast<unsigned>(r.label));
      const int64_t start = static_cast<int64_t>(static_cast<double>(r.startTicks) * g.nsPerTick) + g.offsetNs;
      const int64_t end = static_cast<int64_t>(static_cast<double>(r.endTicks) * g.nsPerTick) + g.offsetNs;
      snprintf(line, sizeof line,
               "{\"k\":\"dev\",\"pid\":%d,\"gpu\":%zu,\"label\":%s,\"cu\":%u,\"xcc\":%u,\"monoStartNs\":%lld,"
               "\"monoEndNs\":%lld,\"bytes\":%llu,\"peer\":%d,\"mover\":\"%s\",\"pull\":%s}\n",
               static_cast<int>(getpid()), d, detail::jsonString(label.substr(0, 200)).c_str(),
               static_cast<unsigned>(r.cu), static_cast<unsigned>(r.xcc), static_cast<long long>(start),
               static_cast<long long>(end), static_cast<unsigned long long>(r.bytes), static_cast<int>(r.peer),
               (r.flags & kMoverEngine) ? "engine" : "cu", (r.flags & kPull) ? "true" : "false");
      detail::writeLine(line);
    }
    snprintf(
        line, sizeof line,
        "{\"k\":\"dev-end\",\"pid\":%d,\"gpu\":%zu,\"records\":%llu,\"dropped\":%llu,\"alignUncertaintyNs\":%lld}\n",
        static_cast<int>(getpid()), d, kept, header[0] - kept, static_cast<long long>(g.uncertaintyNs));
    detail::writeLine(line);
  }
  (void)SDMA_LENS_RT_(SetDevice)(current);
  detail::writeWindow(windowStart);
#endif
}

}  // namespace sdma_lens

#if defined(SDMA_LENS_TRACE_OFF)
// sizeof: the arguments count as used but are never evaluated.
#define SDMA_LENS_SCOPE_BEGIN(span) ((void)0)
#define SDMA_LENS_SCOPE_END(span, label) ((void)sizeof(label))
#define SDMA_LENS_TRANSFER_END(span, label, bytes, peer) ((void)sizeof(label), (void)sizeof(bytes), (void)sizeof(peer))
#define SDMA_LENS_TRANSFER_END_FLAGS(span, label, bytes, peer, flags) \
  ((void)sizeof(label), (void)sizeof(bytes), (void)sizeof(peer), (void)sizeof(flags))
#else
// Starts a span named `span` (a local variable) on this CU.
#define SDMA_LENS_SCOPE_BEGIN(span) const ::sdma_lens::Span span = ::sdma_lens::spanBegin()
// Ends it as a scope with label id `label`.
#define SDMA_LENS_SCOPE_END(span, label) ::sdma_lens::spanEnd((span), (label), 0, -1, 0)
// Ends it as a transfer: `bytes` this CU stored into GPU `peer` during the span.
#define SDMA_LENS_TRANSFER_END(span, label, bytes, peer) ::sdma_lens::spanEnd((span), (label), (bytes), (peer), 0)
// The same with kMoverEngine and/or kPull.
#define SDMA_LENS_TRANSFER_END_FLAGS(span, label, bytes, peer, flags) \
  ::sdma_lens::spanEnd((span), (label), (bytes), (peer), (flags))
#endif

#endif  // a GPU compiler
