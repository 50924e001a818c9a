// sdma-probe-rocshmem-pe: one rocSHMEM PE of the AMD engine/device measurement. Started in
// pairs by the helper (rocshmem_launcher.cpp), each with HIP_VISIBLE_DEVICES=<src>,<dst>:
//   PE 0 (device 0, the source) writes its unique id, measures rocshmem_putmem_nbi +
//        rocshmem_quiet from a running kernel into PE 1's heap, checks the bytes, writes the
//        result records read by PeOutput (rocshmem_launcher.hpp lists them): NDJSON on
//        stdout, one object a line, written with the helper's JsonWriter;
//   PE 1 (device 1, the destination) reads the uid record on stdin (through the helper's
//        NDJSON reader), joins, holds the heap the puts land in, and waits in the final
//        barrier.
// Written against rocSHMEM's documented public API only (docs/MEASUREMENT.md cites the
// pages). Built only when CMake finds rocSHMEM with unique-id init and SDMA; compile-checked
// elsewhere against native/ci/rocshmem_shim (declarations only).

#include <rocshmem/rocshmem.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "backends/gpu/gpu_kernels.hpp"
#include "backend/timing_plan.hpp"
#include "util/json_writer.hpp"
#include "util/error.hpp"
#include "util/ndjson_reader.hpp"

using namespace rocshmem;  // the API's names live in namespace rocshmem

namespace sdma::gpu {
namespace {

constexpr double kTicksPerNs = 0.1;                            // s_memrealtime: 100 MHz on CDNA
constexpr std::uint64_t kTimeoutTicks = 10ull * 100000000ull;  // 10 s
constexpr double kHostTimeoutNs = 120e9;

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
  unsigned long long* iterStartTicks;  // [iters]
  unsigned long long* iterEndTicks;    // [iters]
  PutTrace* trace;                     // [1], or null
};

// engine/device: one thread of one workgroup is the initiator. Each iteration issues `depth`
// non-blocking puts to PE 1, each into the next rotation slot, then rocshmem_quiet, which
// returns when all of them are complete. With ROCSHMEM_SDMA_ENABLED=1 and a threshold of 0
// rocSHMEM carries each put with an SDMA engine; the kernel sees only the call spans.
__global__ void putKernel(PutArgs a) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
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

__global__ void poisonKernel(unsigned char* base, std::uint64_t bytes) {
  std::uint64_t* words = reinterpret_cast<std::uint64_t*>(base);
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < bytes / 8;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    words[i] = 0xA5A5A5A5A5A5A5A5ull;
  }
}

__global__ void storeByteKernel(unsigned char* at, unsigned char value) { *at = value; }

struct Options {
  int pe = -1;
  std::uint64_t regionBytes = 0, sizeBytes = 0, strideBytes = 0, slots = 1, seed = 1;
  int warmup = 1, iters = 1, maxIters = 10000, depth = 1;
  double targetNs = 0;
  bool trace = false, corrupt = false;
};

// A failure after which this PE stops is thrown as an sdma::Failure: written as an error
// record (PE 0) and the exit code.
using Stop = sdma::Failure;

// One record of PE 0's stdout: the object `fill` writes into, on a line of its own, flushed
// so that the helper reads it as soon as it is written.
template <typename Fill>
void record(const char* type, Fill fill) {
  sdma::JsonWriter j;
  j.beginObject().key("type").value(type);
  fill(j);
  j.endObject();
  std::fwrite(j.str().data(), 1, j.str().size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void check(hipError_t e, const char* what) {
  if (e != hipSuccess) {
    throw Stop{e == hipErrorMemoryAllocation ? "out-of-memory" : "runtime",
               std::string(what) + ": " + hipGetErrorName(e) + ": " + hipGetErrorString(e), ""};
  }
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) throw Stop{"usage", a + " needs a value", ""};
      return argv[++i];
    };
    if (a == "--pe")
      o.pe = std::atoi(next());
    else if (a == "--region")
      o.regionBytes = std::strtoull(next(), nullptr, 10);
    else if (a == "--size")
      o.sizeBytes = std::strtoull(next(), nullptr, 10);
    else if (a == "--stride")
      o.strideBytes = std::strtoull(next(), nullptr, 10);
    else if (a == "--slots")
      o.slots = std::strtoull(next(), nullptr, 10);
    else if (a == "--seed")
      o.seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--warmup")
      o.warmup = std::atoi(next());
    else if (a == "--iters")
      o.iters = std::atoi(next());
    else if (a == "--max-iters")
      o.maxIters = std::atoi(next());
    else if (a == "--depth")
      o.depth = std::atoi(next());
    else if (a == "--target-ns")
      o.targetNs = std::strtod(next(), nullptr);
    else if (a == "--trace")
      o.trace = true;
    else if (a == "--corrupt")
      o.corrupt = true;
    else
      throw Stop{"usage", "unknown argument " + a, ""};
  }
  if (o.pe != 0 && o.pe != 1) throw Stop{"usage", "--pe must be 0 or 1", ""};
  if (o.regionBytes == 0) throw Stop{"usage", "--region must be positive", ""};
  if (o.pe == 0 && (o.sizeBytes == 0 || o.strideBytes < o.sizeBytes || o.slots == 0 || o.depth < 1 ||
                    o.slots * o.strideBytes > o.regionBytes)) {
    throw Stop{"usage", "--size, --stride, --slots, --depth do not fit --region", ""};
  }
  o.warmup = std::max(1, o.warmup);
  o.iters = std::max(1, o.iters);
  return o;
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
    throw Stop{"runtime", "rocshmem_init_attr (unique id, 2 PEs) failed on PE " + std::to_string(pe),
               "rocSHMEM logs why with ROCSHMEM_DEBUG_LEVEL=info; its bootstrap uses a local socket "
               "(ROCSHMEM_BOOTSTRAP_SOCKET_IFNAME picks the interface)"};
  }
  if (rocshmem_n_pes() != 2 || rocshmem_my_pe() != pe) {
    throw Stop{"runtime", "rocSHMEM formed a job of " + std::to_string(rocshmem_n_pes()) + " PEs, expected 2", ""};
  }
}

unsigned char* symmetricRegions(const Options& o) {
  // Collective: both PEs ask for the same size and get the same symmetric address.
  auto* base = static_cast<unsigned char*>(rocshmem_malloc(2 * o.regionBytes));
  if (base == nullptr) {
    throw Stop{"out-of-memory", "rocshmem_malloc of " + std::to_string(2 * o.regionBytes) + " bytes failed",
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

int runSourcePe(const Options& o) {
  check(hipSetDevice(0), "hipSetDevice (source)");
  rocshmem_uniqueid_t uid{};
  if (rocshmem_get_uniqueid(&uid) != 0) throw Stop{"runtime", "rocshmem_get_uniqueid failed", ""};
  record("uid", [&](sdma::JsonWriter& j) { j.key("uid").value(hex(uid)); });
  join(0, uid);
  int major = 0, minor = 0, patch = 0;
  rocshmem_vendor_get_version_info(&major, &minor, &patch);
  const std::string version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  record("version", [&](sdma::JsonWriter& j) { j.key("version").value(version); });

  unsigned char* base = symmetricRegions(o);
  unsigned char* src = base;
  unsigned char* dst = base + o.regionBytes;
  // PE 1's destination region mapped into this process (IPC backend): poisoned and checked
  // from here, over the same link the puts use.
  auto* peerDst = static_cast<unsigned char*>(rocshmem_ptr(dst, 1));
  if (peerDst == nullptr) {
    throw Stop{"unsupported", "rocshmem_ptr gave no pointer into PE 1's heap, so the copy cannot be checked",
               "engine/device needs rocSHMEM's IPC backend (ROCSHMEM_BACKEND=ipc, set by sdma-probe) between "
               "GPUs of one node"};
  }
  fillPatternKernel<<<1024, 256>>>(src, o.regionBytes, o.seed);
  check(hipGetLastError(), "pattern kernel");
  poisonKernel<<<1024, 256>>>(peerDst, o.regionBytes);
  check(hipGetLastError(), "poison kernel");
  check(hipDeviceSynchronize(), "pattern and poison");

  void* host = nullptr;
  check(hipHostMalloc(&host, sizeof(HostControl), hipHostMallocMapped), "hipHostMalloc");
  std::memset(host, 0, sizeof(HostControl));
  auto* control = static_cast<HostControl*>(host);
  void* controlDev = nullptr;
  check(hipHostGetDevicePointer(&controlDev, host, 0), "hipHostGetDevicePointer");
  unsigned long long *iterStart = nullptr, *iterEnd = nullptr;
  PutTrace* trace = nullptr;
  CheckResult* result = nullptr;
  check(hipMalloc(reinterpret_cast<void**>(&iterStart), 8ull * o.maxIters), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&iterEnd), 8ull * o.maxIters), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&trace), sizeof(PutTrace)), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&result), sizeof(CheckResult)), "hipMalloc");
  hipStream_t stream{};
  check(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "hipStreamCreate");

  std::uint32_t goValue = 0;
  auto launch = [&](int iters) {
    check(hipMemset(iterStart, 0, 8ull * iters), "hipMemset");
    check(hipMemset(iterEnd, 0, 8ull * iters), "hipMemset");
    check(hipDeviceSynchronize(), "hipDeviceSynchronize");
    PutArgs a{src,           dst,       o.sizeBytes,
              o.strideBytes, o.slots,   iters,
              o.depth,       ++goValue, static_cast<HostControl*>(controlDev),
              iterStart,     iterEnd,   o.trace ? trace : nullptr};
    putKernel<<<1, 64, 0, stream>>>(a);
    check(hipGetLastError(), "put kernel launch");
    // The kernel is resident and polling before the puts are asked for: no launch is timed.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    control->go = goValue;
    const double deadline = hostNowNs() + kHostTimeoutNs;
    while (true) {
      const hipError_t e = hipStreamQuery(stream);
      if (e == hipSuccess) break;
      if (e != hipErrorNotReady) check(e, "put kernel");
      if (hostNowNs() > deadline) {
        throw Stop{"timeout", "the put kernel did not finish within 120 s (a put or rocshmem_quiet never completed)",
                   "check `rocm-smi` for other work or a hung device"};
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (control->kernelError) throw Stop{"timeout", "the put kernel gave up waiting for its start (timeout)", ""};
  };
  launch(o.warmup);
  const std::vector<double> warm = iterationTimes(iterStart, iterEnd, o.warmup, 0, o.depth);
  const int most = o.maxIters - o.warmup;
  const int iters = itersForTime(warm.back() * o.depth, o.targetNs, std::min(o.iters, most), most);
  launch(o.warmup + iters);
  const std::vector<double> times = iterationTimes(iterStart, iterEnd, o.warmup + iters, o.warmup, o.depth);
  const std::uint64_t opsDone = static_cast<std::uint64_t>(o.warmup + iters) * o.depth;

  record("times", [&](sdma::JsonWriter& j) {
    j.key("ns").beginArray();
    for (double t : times) j.value(t);
    j.endArray();
  });
  record("ops", [&](sdma::JsonWriter& j) { j.key("ops").value(opsDone); });
  if (o.trace) {
    PutTrace t{};
    check(hipMemcpy(&t, trace, sizeof t, hipMemcpyDeviceToHost), "trace");
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
  check(hipMemcpy(result, &init, sizeof init, hipMemcpyHostToDevice), "check init");
  checkKernel<<<1024, 256>>>(peerDst, slotsUsed * o.strideBytes, o.strideBytes, o.sizeBytes, o.seed, result);
  check(hipGetLastError(), "check kernel");
  CheckResult r{};
  check(hipMemcpy(&r, result, sizeof r, hipMemcpyDeviceToHost), "check result");
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
  rocshmem_barrier_all();
  rocshmem_free(base);
  rocshmem_finalize();
  return 0;
}

int runDestinationPe(const Options& o) {
  // {"type":"uid","uid":"<hex>"}: a few hundred bytes, one line.
  char line[1024] = {};
  if (std::fgets(line, sizeof line, stdin) == nullptr) {
    throw Stop{"usage", "PE 1 expects the uid record on stdin", ""};
  }
  sdma::ndjson::Limits limits;
  limits.maxLineBytes = sizeof line;
  const auto uidRecord = sdma::ndjson::parseLine(line, limits);
  if (!uidRecord || sdma::ndjson::stringField(*uidRecord, "type") != std::string("uid")) {
    throw Stop{"usage", "PE 1 expects the uid record on stdin", ""};
  }
  rocshmem_uniqueid_t uid{};
  if (!unhex(sdma::ndjson::stringField(*uidRecord, "uid").value_or(""), uid)) {
    throw Stop{"usage", "PE 1 got a malformed unique id", ""};
  }
  check(hipSetDevice(1), "hipSetDevice (destination)");
  join(1, uid);
  unsigned char* base = symmetricRegions(o);
  rocshmem_barrier_all();  // PE 0 enters it once the copy is checked
  rocshmem_free(base);
  rocshmem_finalize();
  return 0;
}

}  // namespace
}  // namespace sdma::gpu

int main(int argc, char** argv) {
  using namespace sdma::gpu;
  int pe = -1;
  try {
    const Options o = parse(argc, argv);
    pe = o.pe;
    return o.pe == 0 ? runSourcePe(o) : runDestinationPe(o);
  } catch (const sdma::Failure& f) {
    // PE 0's stdout is read by the helper; PE 1's stderr is quoted when it fails.
    const sdma::Error& e = f.error();
    if (pe == 0) {
      record("error", [&](sdma::JsonWriter& j) {
        j.key("code").value(e.code).key("message").value(e.message).key("hint").value(e.hint);
      });
    }
    std::fprintf(stderr, "sdma-probe-rocshmem-pe %d: %s\n", pe, e.message.c_str());
    std::fflush(stdout);
    return 2;
  }
}
