// sdma-probe-rocshmem-pe: one rocSHMEM PE of the AMD engine/device measurement. Started in
// pairs by the helper (rocshmem_launcher.cpp), each with HIP_VISIBLE_DEVICES=<src>,<dst>, and
// kept across the points of a sweep:
//   PE 0 (device 0, the source) writes its unique id, joins, then for each point line on its
//        stdin measures rocshmem_putmem_nbi + rocshmem_quiet from a running kernel into PE 1's
//        heap, checks the bytes and writes the point's records;
//   PE 1 (device 1, the destination) starts HIP, reads the uid record on stdin, joins, then
//        for each point allocates the heap the puts land in and waits in the barrier.
// The records (rocshmem_launcher.hpp lists them) are NDJSON, one object a line, written with
// the helper's JsonWriter on the descriptor the helper reads as this process's stdout; the
// lines on stdin are read with the helper's NDJSON reader. Everything else this process
// prints to stdout (rocSHMEM's LOG_INFO lines, among them its SDMA initialisation line) goes
// to stderr, line by line, so that the records stay records and the log reaches the helper.
// Written against rocSHMEM's documented public API only (docs/MEASUREMENT.md cites the
// pages). Built only when CMake finds rocSHMEM with unique-id init and SDMA; compile-checked
// elsewhere against native/ci/rocshmem_shim (declarations only).
//
// Device-side initialisation across rocSHMEM releases: up to 3.0 (ROCm 7.0) a kernel calls
// rocshmem_wg_init() collectively before any other device call and rocshmem_wg_finalize()
// before it ends; 3.1 (ROCm 7.1.1) deprecated both (ROCm/rocm-systems
// projects/rocshmem/CHANGELOG.md; include/rocshmem/rocshmem.hpp marks them [[deprecated]]).
// The release is told at compile time by ROCSHMEM_VENDOR_MAJOR_VERSION, which
// rocshmem_config.h defines from 3.3 (ROCm 7.13) on, as it does rocshmem_vendor_get_version_info:
// with it no call is made; without it (3.0 to 3.2) the kernel calls them, the deprecation
// silenced for 3.1 and 3.2. SDMA_ROCSHMEM_WG_INIT=0|1 at build time overrides the choice.

#include <rocshmem/rocshmem.hpp>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/gpu/gpu_kernels.hpp"
#include "backend/timing_plan.hpp"
#include "util/json_writer.hpp"
#include "util/error.hpp"
#include "util/ndjson_reader.hpp"

using namespace rocshmem;  // the API's names live in namespace rocshmem

#if defined(SDMA_ROCSHMEM_WG_INIT)
#define SDMA_PE_WG_INIT SDMA_ROCSHMEM_WG_INIT
#elif defined(ROCSHMEM_VENDOR_MAJOR_VERSION)
#define SDMA_PE_WG_INIT 0  // 3.3 and later: deprecated since 3.1, not called
#else
#define SDMA_PE_WG_INIT 1  // 3.0 to 3.2: required up to 3.0, accepted (deprecated) by 3.1 and 3.2
#endif

namespace sdma::gpu {
namespace {

// s_memrealtime ticks per ns: 100 MHz on CDNA unless the runtime says otherwise (setClockRate);
// the helper's own backend reads the same rate (gpu_topology.inc, wallClockRateKHz).
double kTicksPerNs = 0.1;

// hipDeviceAttributeWallClockRate (kHz), where this HIP's headers have it (chosen by overload).
template <class Attr>
auto queryWallClockKHz(int device, int) -> decltype(Attr::hipDeviceAttributeWallClockRate, int()) {
  int khz = 0;
  if (hipDeviceGetAttribute(&khz, Attr::hipDeviceAttributeWallClockRate, device) != hipSuccess) {
    (void)hipGetLastError();
    return 0;
  }
  return khz;
}
template <class Attr>
int queryWallClockKHz(int, ...) {
  return 0;
}

// ROCr documents 1..400 MHz for the timestamp clock; anything else keeps 100 MHz.
void setClockRate(int device) {
  const int khz = queryWallClockKHz<hipDeviceAttribute_t>(device, 0);
  if (khz >= 1000 && khz <= 400000) kTicksPerNs = khz / 1e6;
}
constexpr std::uint64_t kTimeoutTicks = 10ull * 400000000ull;  // at least 10 s at any clock up to 400 MHz
constexpr double kHostTimeoutNs = 120e9;
constexpr std::size_t kMaxStdinLineBytes = 4096;
constexpr int kMaxPutWaves = 16;  // one workgroup of at most 1024 threads (dims::kPutKernelMaxWaves)  // a point line
                                  // is some 300 bytes, the uid record 280

struct PutTrace {
  std::uint64_t startTicks, issuedTicks, completeTicks;
  std::uint32_t cu, xcc;
};

struct PutArgs {
  const unsigned char* src;  // symmetric: PE 0's source region
  unsigned char* dst;        // symmetric address of the destination region (PE 1's copy is written)
  std::uint64_t sizeBytes, strideBytes, slots;
  int iters, depth;
  std::uint32_t goValue;
  HostControl* control;
  int waves;                           // 0: one thread's put; 1: the wave's put; more: the workgroup's
  unsigned long long* iterStartTicks;  // [iters]
  unsigned long long* iterEndTicks;    // [iters]
  PutTrace* trace;                     // [1], or null
};

// The initiator's loop: each iteration issues `depth` non-blocking puts to PE 1, each into
// the next rotation slot, then rocshmem_quiet, which returns when all of them are complete.
// With ROCSHMEM_SDMA_ENABLED=1 and a threshold of 0 rocSHMEM carries each put with an SDMA
// engine; the kernel sees only the call spans.
__device__ void putLoop(const PutArgs& a) {
  if (!waitAtLeast(&a.control->go, a.goValue, a.control, kTimeoutTicks)) return;
  std::uint64_t op = 0;
  for (int it = 0; it < a.iters; ++it) {
    const std::uint64_t start = deviceTicks();
    for (int b = 0; b < a.depth; ++b, ++op) {
      const std::uint64_t offset = (op % a.slots) * a.strideBytes;
      rocshmem_putmem_nbi(a.dst + offset, a.src + offset, a.sizeBytes, 1);
    }
    const std::uint64_t issued = deviceTicks();
    rocshmem_quiet();
    const std::uint64_t end = deviceTicks();
    a.iterStartTicks[it] = start;
    a.iterEndTicks[it] = end;
    if (a.trace != nullptr && it == a.iters - 1) *a.trace = PutTrace{start, issued, end, cuId(), xccId()};
  }
}

// --waves-per-cu on engine/device: the same loop with every thread of the kernel issuing each
// put together, through rocSHMEM's wave-level put (one wave: rocshmem_putmem_nbi_wave, "called
// from divergent control paths at per-wave granularity", all threads of the wave with the same
// arguments) or its workgroup-level put (more waves: rocshmem_putmem_nbi_wg, per workgroup);
// both declared in include/rocshmem/rocshmem_RMA_X.hpp (ROCm/rocSHMEM). Thread 0 waits for the
// start, takes the times and calls rocshmem_quiet once every thread has issued its share.
__device__ void putLoopCollective(const PutArgs& a) {
  __shared__ int started;
  if (threadIdx.x == 0) started = waitAtLeast(&a.control->go, a.goValue, a.control, kTimeoutTicks) ? 1 : 0;
  __syncthreads();
  if (!started) return;
  std::uint64_t op = 0;
  for (int it = 0; it < a.iters; ++it) {
    std::uint64_t start = 0;
    if (threadIdx.x == 0) start = deviceTicks();
    for (int b = 0; b < a.depth; ++b, ++op) {
      const std::uint64_t offset = (op % a.slots) * a.strideBytes;
      if (a.waves == 1) {
        rocshmem_putmem_nbi_wave(a.dst + offset, a.src + offset, a.sizeBytes, 1);
      } else {
        rocshmem_putmem_nbi_wg(a.dst + offset, a.src + offset, a.sizeBytes, 1);
      }
    }
    __syncthreads();  // every thread has issued its part of the iteration's puts
    if (threadIdx.x == 0) {
      const std::uint64_t issued = deviceTicks();
      rocshmem_quiet();
      const std::uint64_t end = deviceTicks();
      a.iterStartTicks[it] = start;
      a.iterEndTicks[it] = end;
      if (a.trace != nullptr && it == a.iters - 1) *a.trace = PutTrace{start, issued, end, cuId(), xccId()};
    }
    __syncthreads();  // the next iteration starts once this one is complete
  }
}

// engine/device: one thread of one workgroup is the initiator (waves 0, as before); the
// workgroup's other threads only take part in rocSHMEM's device-side set-up where the release
// asks for it. With waves > 0 every thread takes part in each put (putLoopCollective).
__global__ void putKernel(PutArgs a) {
#if SDMA_PE_WG_INIT
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
  rocshmem_wg_init();
  __syncthreads();
#endif
  if (a.waves > 0) {
    putLoopCollective(a);
  } else if (threadIdx.x == 0 && blockIdx.x == 0) {
    putLoop(a);
  }
#if SDMA_PE_WG_INIT
  __syncthreads();
  rocshmem_wg_finalize();
#pragma clang diagnostic pop
#endif
}

__global__ void poisonKernel(unsigned char* base, std::uint64_t bytes) {
  std::uint64_t* words = reinterpret_cast<std::uint64_t*>(base);
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < bytes / 8;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    words[i] = 0xA5A5A5A5A5A5A5A5ull;
  }
}

__global__ void storeByteKernel(unsigned char* at, unsigned char value) { *at = value; }

// A failure after which this PE stops is thrown as an sdma::Failure: written as an error
// record and the exit code.
using Stop = sdma::Failure;

// Where the records go: the descriptor the helper reads as this process's stdout, kept
// apart from stdout itself (moveStdoutToStderr).
FILE* gRecords = stdout;

// The records' own descriptor, and stdout (rocSHMEM's LOG_INFO lines, HIP's) sent to stderr,
// line-buffered so that each log line reaches the helper as it is written.
void moveStdoutToStderr() {
  const int recordsFd = dup(STDOUT_FILENO);
  if (recordsFd >= 0) {
    if (FILE* records = fdopen(recordsFd, "w")) {
      gRecords = records;
      dup2(STDERR_FILENO, STDOUT_FILENO);
    } else {
      close(recordsFd);
    }
  }
  setvbuf(stdout, nullptr, _IOLBF, 0);
}

// One record: the object `fill` writes into, on a line of its own, flushed so that the
// helper reads it as soon as it is written.
template <typename Fill>
void record(const char* type, Fill fill) {
  sdma::JsonWriter j;
  j.beginObject().key("type").value(type);
  fill(j);
  j.endObject();
  std::fwrite(j.str().data(), 1, j.str().size(), gRecords);
  std::fputc('\n', gRecords);
  std::fflush(gRecords);
}

void check(hipError_t e, const char* what) {
  if (e != hipSuccess) {
    throw Stop{e == hipErrorMemoryAllocation ? "out-of-memory" : "runtime",
               std::string(what) + ": " + hipGetErrorName(e) + ": " + hipGetErrorString(e), ""};
  }
}

int parsePe(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--pe") == 0) {
    if (std::strcmp(argv[2], "0") == 0) return 0;
    if (std::strcmp(argv[2], "1") == 0) return 1;
  }
  throw Stop{"usage", "usage: sdma-probe-rocshmem-pe --pe 0|1 (points arrive on stdin)", ""};
}

// One line of stdin without its newline; nullopt at the end of input.
std::optional<std::string> readLine() {
  char line[kMaxStdinLineBytes + 2];
  if (std::fgets(line, sizeof line, stdin) == nullptr) return std::nullopt;
  std::size_t n = std::strlen(line);
  if (n > 0 && line[n - 1] == '\n') {
    --n;
  } else if (n > kMaxStdinLineBytes) {
    throw Stop{"usage", "a line on stdin longer than " + std::to_string(kMaxStdinLineBytes) + " bytes", ""};
  }
  return std::string(line, n);
}

std::optional<sdma::ndjson::Value> readRecord() {
  while (const std::optional<std::string> line = readLine()) {
    sdma::ndjson::Limits limits;
    limits.maxLineBytes = kMaxStdinLineBytes;
    if (auto o = sdma::ndjson::parseLine(*line, limits)) return o;
  }
  return std::nullopt;
}

// One point, as the helper's pointRecord writes it.
struct Point {
  std::int64_t id = 0;
  std::uint64_t regionBytes = 0, sizeBytes = 0, strideBytes = 0, slots = 1, seed = 1;
  int warmup = 1, iters = 1, maxIters = 10000, depth = 1;
  int waves = 0;  // the put kernel's waves of 64 threads; 0: one thread's put in a one-wave kernel
  double targetNs = 0;
  bool trace = false, corrupt = false;
};

// Both PEs read the same line the same way: a point that does not read stops both before
// either makes a collective call.
Point parsePoint(const sdma::ndjson::Value& o) {
  using namespace sdma::ndjson;
  const auto whole = [&](const char* key, std::int64_t min, std::int64_t max) -> std::int64_t {
    const std::optional<std::int64_t> v = intField(o, key);
    if (!v || *v < min || *v > max)
      throw Stop{"usage", std::string("the point's ") + key + " is missing or out of range", ""};
    return *v;
  };
  constexpr std::int64_t kBig = std::int64_t{1} << 62;
  Point p;
  p.id = whole("point", 1, kBig);
  p.sizeBytes = static_cast<std::uint64_t>(whole("size", 1, kBig));
  p.strideBytes = static_cast<std::uint64_t>(whole("stride", 1, kBig));
  p.slots = static_cast<std::uint64_t>(whole("slots", 1, kBig));
  p.regionBytes = static_cast<std::uint64_t>(whole("region", 1, kBig));
  p.maxIters = static_cast<int>(whole("maxIters", 2, 1 << 24));
  p.warmup = static_cast<int>(whole("warmup", 0, p.maxIters - 1));
  p.iters = static_cast<int>(whole("iters", 0, 1 << 24));
  p.depth = static_cast<int>(whole("depth", 1, 1 << 20));
  p.targetNs = static_cast<double>(whole("targetNs", 0, kBig));
  const std::string seed = stringField(o, "seed").value_or("");
  const auto parsed = std::from_chars(seed.data(), seed.data() + seed.size(), p.seed);
  if (seed.empty() || parsed.ec != std::errc() || parsed.ptr != seed.data() + seed.size()) {
    throw Stop{"usage", "the point's seed is missing or not a whole number", ""};
  }
  p.trace = boolField(o, "trace").value_or(false);
  // Absent from a helper of before: 0, the one-thread put.
  if (intField(o, "waves")) p.waves = static_cast<int>(whole("waves", 0, kMaxPutWaves));
  p.corrupt = boolField(o, "corrupt").value_or(false);
  p.warmup = std::max(1, p.warmup);
  p.iters = std::max(1, p.iters);
  if (p.strideBytes < p.sizeBytes || p.slots > p.regionBytes / p.strideBytes) {
    throw Stop{"usage", "the point's size, stride and slots do not fit its region", ""};
  }
  return p;
}

std::string hex(const rocshmem_uniqueid_t& uid) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (std::uint8_t byte : uid) {
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

bool unhex(const std::string& text, rocshmem_uniqueid_t& uid) {
  if (text.size() != 2 * uid.size()) return false;
  auto value = [](char c) { return c >= 'a' ? c - 'a' + 10 : c - '0'; };
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  for (std::size_t i = 0; i < uid.size(); ++i) {
    uid[i] = static_cast<std::uint8_t>(value(text[2 * i]) * 16 + value(text[2 * i + 1]));
  }
  return true;
}

void join(int pe, rocshmem_uniqueid_t& uid) {
  rocshmem_init_attr_t attr{};
  if (rocshmem_set_attr_uniqueid_args(pe, 2, &uid, &attr) != 0 ||
      rocshmem_init_attr(ROCSHMEM_INIT_WITH_UNIQUEID, &attr) != 0) {
    const char* timeout = std::getenv("ROCSHMEM_BOOTSTRAP_TIMEOUT");
    throw Stop{"runtime",
               "rocshmem_init_attr (unique id, 2 PEs) failed on PE " + std::to_string(pe) + " (bootstrap timeout " +
                   (timeout != nullptr ? std::string(timeout) : std::string("5")) + " s)",
               "rocSHMEM's log says why (ROCSHMEM_DEBUG_LEVEL); its bootstrap uses a local socket "
               "(ROCSHMEM_BOOTSTRAP_SOCKET_IFNAME picks the interface)"};
  }
  if (rocshmem_n_pes() != 2 || rocshmem_my_pe() != pe) {
    throw Stop{"runtime", "rocSHMEM formed a job of " + std::to_string(rocshmem_n_pes()) + " PEs, expected 2", ""};
  }
}

unsigned char* symmetricRegions(const Point& p) {
  // Collective: both PEs ask for the same size and get the same symmetric address.
  auto* base = static_cast<unsigned char*>(rocshmem_malloc(2 * p.regionBytes));
  if (base == nullptr) {
    throw Stop{"out-of-memory", "rocshmem_malloc of " + std::to_string(2 * p.regionBytes) + " bytes failed",
               "the symmetric heap (ROCSHMEM_HEAP_SIZE, set by sdma-probe) or GPU memory is too small for this "
               "size: use smaller --sizes"};
  }
  return base;
}

std::vector<double> iterationTimes(unsigned long long* dStart, unsigned long long* dEnd, int iters, int skip,
                                   int depth) {
  std::vector<unsigned long long> start(static_cast<std::size_t>(iters)), end(static_cast<std::size_t>(iters));
  check(hipMemcpy(start.data(), dStart, 8ull * iters, hipMemcpyDeviceToHost), "iteration times");
  check(hipMemcpy(end.data(), dEnd, 8ull * iters, hipMemcpyDeviceToHost), "iteration times");
  std::vector<double> times;
  for (int i = skip; i < iters; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    times.push_back(static_cast<double>(end[k] - start[k]) / kTicksPerNs / depth);
  }
  return times;
}

double hostNowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What PE 0 keeps across points: the start flag the kernel polls, and its stream.
struct SourceState {
  HostControl* control = nullptr;  // host side
  HostControl* controlDev = nullptr;
  hipStream_t stream{};
  std::uint32_t goValue = 0;
};

// Device buffers of one point, freed with it.
struct DeviceBuffer {
  void* ptr = nullptr;
  DeviceBuffer(std::size_t bytes, const char* what) { check(hipMalloc(&ptr, bytes), what); }
  ~DeviceBuffer() {
    if (ptr != nullptr) (void)hipFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr);
  }
};

void measurePoint(const Point& o, SourceState& state) {
  unsigned char* base = symmetricRegions(o);
  unsigned char* src = base;
  unsigned char* dst = base + o.regionBytes;
  // PE 1's destination region mapped into this process (IPC backend): poisoned and checked
  // from here, over the same link the puts use.
  auto* peerDst = static_cast<unsigned char*>(rocshmem_ptr(dst, 1));
  if (peerDst == nullptr) {
    throw Stop{"unsupported", "rocshmem_ptr gave no pointer into PE 1's heap, so the copy cannot be checked",
               "engine/device needs rocSHMEM's IPC backend (ROCSHMEM_BACKEND=ipc, set by sdma-probe) between "
               "GPUs of one node, and rocSHMEM 3.1 or newer (before it rocshmem_ptr gives no pointer)"};
  }
  fillPatternKernel<<<1024, 256>>>(src, o.regionBytes, o.seed);
  check(hipGetLastError(), "pattern kernel");
  poisonKernel<<<1024, 256>>>(peerDst, o.regionBytes);
  check(hipGetLastError(), "poison kernel");
  check(hipDeviceSynchronize(), "pattern and poison");

  const DeviceBuffer iterStart(8ull * o.maxIters, "hipMalloc"), iterEnd(8ull * o.maxIters, "hipMalloc");
  const DeviceBuffer trace(sizeof(PutTrace), "hipMalloc"), result(sizeof(CheckResult), "hipMalloc");
  auto launch = [&](int iters) {
    check(hipMemset(iterStart.ptr, 0, 8ull * iters), "hipMemset");
    check(hipMemset(iterEnd.ptr, 0, 8ull * iters), "hipMemset");
    check(hipDeviceSynchronize(), "hipDeviceSynchronize");
    PutArgs a{src,
              dst,
              o.sizeBytes,
              o.strideBytes,
              o.slots,
              iters,
              o.depth,
              ++state.goValue,
              state.controlDev,
              o.waves,
              iterStart.as<unsigned long long>(),
              iterEnd.as<unsigned long long>(),
              o.trace ? trace.as<PutTrace>() : nullptr};
    const int threads = o.waves > 0 ? 64 * o.waves : 64;
    putKernel<<<1, threads, 0, state.stream>>>(a);
    check(hipGetLastError(), "put kernel launch");
    // The kernel is resident and polling before the puts are asked for: no launch is timed.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    state.control->go = state.goValue;
    const double deadline = hostNowNs() + kHostTimeoutNs;
    while (true) {
      const hipError_t e = hipStreamQuery(state.stream);
      if (e == hipSuccess) break;
      if (e != hipErrorNotReady) check(e, "put kernel");
      if (hostNowNs() > deadline) {
        throw Stop{"timeout", "the put kernel did not finish within 120 s (a put or rocshmem_quiet never completed)",
                   "check `rocm-smi` for other work or a hung device"};
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (state.control->kernelError) throw Stop{"timeout", "the put kernel gave up waiting for its start (timeout)", ""};
  };
  unsigned long long* dStart = iterStart.as<unsigned long long>();
  unsigned long long* dEnd = iterEnd.as<unsigned long long>();
  launch(o.warmup);
  const std::vector<double> warm = iterationTimes(dStart, dEnd, o.warmup, 0, o.depth);
  const int most = o.maxIters - o.warmup;
  const int iters = itersForTime(warm.back() * o.depth, o.targetNs, std::min(o.iters, most), most);
  launch(o.warmup + iters);
  const std::vector<double> times = iterationTimes(dStart, dEnd, o.warmup + iters, o.warmup, o.depth);
  const std::uint64_t opsDone = static_cast<std::uint64_t>(o.warmup + iters) * o.depth;

  record("times", [&](sdma::JsonWriter& j) {
    j.key("ns").beginArray();
    for (double t : times) j.value(t);
    j.endArray();
  });
  record("ops", [&](sdma::JsonWriter& j) { j.key("ops").value(opsDone); });
  if (o.trace) {
    PutTrace t{};
    check(hipMemcpy(&t, trace.ptr, sizeof t, hipMemcpyDeviceToHost), "trace");
    record("trace", [&](sdma::JsonWriter& j) {
      j.key("startNs").value(t.startTicks / kTicksPerNs).key("issuedNs").value(t.issuedTicks / kTicksPerNs);
      j.key("completeNs").value(t.completeTicks / kTicksPerNs).key("cu").value(t.cu).key("xcc").value(t.xcc);
    });
  }

  if (o.corrupt) {
    const std::uint64_t offset = o.sizeBytes / 2;
    storeByteKernel<<<1, 1>>>(peerDst + offset,
                              static_cast<unsigned char>(~expectedByte(o.seed, offset, o.strideBytes, o.sizeBytes)));
    check(hipDeviceSynchronize(), "corrupt");
  }
  const std::uint64_t slotsUsed = std::min<std::uint64_t>(o.slots, std::max<std::uint64_t>(opsDone, 1));
  CheckResult init{0, ~0ull};
  check(hipMemcpy(result.ptr, &init, sizeof init, hipMemcpyHostToDevice), "check init");
  checkKernel<<<1024, 256>>>(peerDst, slotsUsed * o.strideBytes, o.strideBytes, o.sizeBytes, o.seed,
                             result.as<CheckResult>());
  check(hipGetLastError(), "check kernel");
  CheckResult r{};
  check(hipMemcpy(&r, result.ptr, sizeof r, hipMemcpyDeviceToHost), "check result");
  if (r.wrongBytes == 0) {
    record("validation", [](sdma::JsonWriter& j) { j.key("ok").value(true); });
  } else {
    unsigned char got = 0;
    check(hipMemcpy(&got, peerDst + r.firstWrongOffset, 1, hipMemcpyDeviceToHost), "check byte");
    const std::uint64_t slot = r.firstWrongOffset / o.strideBytes, inSlot = r.firstWrongOffset % o.strideBytes;
    char message[256];
    std::snprintf(message, sizeof message,
                  "%llu wrong byte(s); first at byte %llu of slot %llu%s: 0x%02x, expected 0x%02x",
                  static_cast<unsigned long long>(r.wrongBytes), static_cast<unsigned long long>(inSlot),
                  static_cast<unsigned long long>(slot), inSlot >= o.sizeBytes ? " (guard past the end)" : "", got,
                  expectedByte(o.seed, r.firstWrongOffset, o.strideBytes, o.sizeBytes));
    record("validation", [&](sdma::JsonWriter& j) { j.key("ok").value(false).key("message").value(message); });
  }
  rocshmem_barrier_all();  // PE 1 leaves the point once the copy is checked
  rocshmem_free(base);
}

// Reads the helper's lines until `stop` or the end of input; each point through `onPoint`,
// answered with its done record.
template <typename OnPoint>
void servePoints(OnPoint onPoint) {
  while (const std::optional<sdma::ndjson::Value> o = readRecord()) {
    const std::string type = sdma::ndjson::stringField(*o, "type").value_or("");
    if (type == "stop") return;
    if (type != "point") continue;
    const Point p = parsePoint(*o);
    onPoint(p);
    record("done", [&](sdma::JsonWriter& j) { j.key("point").value(p.id); });
  }
}

int runSourcePe() {
  check(hipSetDevice(0), "hipSetDevice (source)");
  setClockRate(0);
  rocshmem_uniqueid_t uid{};
  if (rocshmem_get_uniqueid(&uid) != 0) throw Stop{"runtime", "rocshmem_get_uniqueid failed", ""};
  record("uid", [&](sdma::JsonWriter& j) { j.key("uid").value(hex(uid)); });
  join(0, uid);
  std::string version;
#if defined(ROCSHMEM_VENDOR_MAJOR_VERSION)
  int major = 0, minor = 0, patch = 0;
  rocshmem_vendor_get_version_info(&major, &minor, &patch);
  version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
#endif
  record("version", [&](sdma::JsonWriter& j) {
    j.key("version").value(version).key("init").value(SDMA_PE_WG_INIT ? "wg-init" : "none");
  });

  SourceState state;
  void* host = nullptr;
  check(hipHostMalloc(&host, sizeof(HostControl), hipHostMallocMapped), "hipHostMalloc");
  std::memset(host, 0, sizeof(HostControl));
  state.control = static_cast<HostControl*>(host);
  void* controlDev = nullptr;
  check(hipHostGetDevicePointer(&controlDev, host, 0), "hipHostGetDevicePointer");
  state.controlDev = static_cast<HostControl*>(controlDev);
  check(hipStreamCreateWithFlags(&state.stream, hipStreamNonBlocking), "hipStreamCreate");
  record("ready", [](sdma::JsonWriter&) {});

  servePoints([&](const Point& p) { measurePoint(p, state); });
  (void)hipStreamDestroy(state.stream);
  (void)hipHostFree(host);
  rocshmem_finalize();
  return 0;
}

int runDestinationPe() {
  // HIP starts before the unique id is awaited: the bootstrap window holds the join alone.
  check(hipSetDevice(1), "hipSetDevice (destination)");
  setClockRate(1);
  const std::optional<sdma::ndjson::Value> uidRecord = readRecord();
  if (!uidRecord || sdma::ndjson::stringField(*uidRecord, "type") != std::string("uid")) {
    throw Stop{"usage", "PE 1 expects the uid record on stdin", ""};
  }
  rocshmem_uniqueid_t uid{};
  if (!unhex(sdma::ndjson::stringField(*uidRecord, "uid").value_or(""), uid)) {
    throw Stop{"usage", "PE 1 got a malformed unique id", ""};
  }
  join(1, uid);
  record("ready", [](sdma::JsonWriter&) {});
  servePoints([](const Point& p) {
    unsigned char* base = symmetricRegions(p);
    rocshmem_barrier_all();  // PE 0 enters it once the copy is checked
    rocshmem_free(base);
  });
  rocshmem_finalize();
  return 0;
}

}  // namespace
}  // namespace sdma::gpu

int main(int argc, char** argv) {
  using namespace sdma::gpu;
  moveStdoutToStderr();
  int pe = -1;
  try {
    pe = parsePe(argc, argv);
    return pe == 0 ? runSourcePe() : runDestinationPe();
  } catch (const sdma::Failure& f) {
    // Read by the helper on either PE's records; the line on stderr is for a person.
    const sdma::Error& e = f.error();
    record("error", [&](sdma::JsonWriter& j) {
      j.key("code").value(e.code).key("message").value(e.message).key("hint").value(e.hint);
    });
    std::fprintf(stderr, "sdma-probe-rocshmem-pe %d: %s\n", pe, e.message.c_str());
    return 2;
  }
}
