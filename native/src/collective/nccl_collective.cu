// Collectives through the vendor's NCCL (or RCCL), loaded at run time so one sdma-probe works
// with whichever library version the node has. One process drives every GPU through
// ncclCommInitAll; the few prototypes used are declared here, so no NCCL headers are needed
// to build.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cancel.hpp"
#include "collective/collective_types.hpp"
#include "collective/gpu_engines.hpp"
#include "collective/library_log_line.hpp"
#include "gpu/gpu_compat.hpp"
#include "ingest/control.hpp"
#include "ingest/safe_file.hpp"
#include "reporter.hpp"

namespace sdma::collective {

namespace {

using Comm = void*;
using Window = void*;
constexpr int kNcclSuccess = 0;
constexpr int kNcclUint8 = 1;
constexpr int kNcclFloat32 = 7;
constexpr int kNcclBfloat16 = 9;
constexpr int kWinCollSymmetric = 0x01;  // NCCL_WIN_COLL_SYMMETRIC

struct Nccl {
  void* lib = nullptr;
  std::string path;
  int version = 0;
  int (*getVersion)(int*) = nullptr;
  const char* (*errorString)(int) = nullptr;
  int (*commInitAll)(Comm*, int, const int*) = nullptr;
  int (*commDestroy)(Comm) = nullptr;
  int (*allGather)(const void*, void*, std::size_t, int, Comm, hipStream_t) = nullptr;
  int (*alltoAll)(const void*, void*, std::size_t, int, Comm, hipStream_t) = nullptr;
  int (*send)(const void*, std::size_t, int, int, Comm, hipStream_t) = nullptr;
  int (*recv)(void*, std::size_t, int, int, Comm, hipStream_t) = nullptr;
  int (*groupStart)() = nullptr;
  int (*groupEnd)() = nullptr;
  int (*memAlloc)(void**, std::size_t) = nullptr;
  int (*memFree)(void*) = nullptr;
  int (*winRegister)(Comm, void*, std::size_t, Window*, int) = nullptr;
  int (*winDeregister)(Comm, Window) = nullptr;

  int major() const { return version >= 10000 ? version / 10000 : version / 1000; }
  int minor() const { return version >= 10000 ? version / 100 % 100 : version / 100 % 10; }
  int patch() const { return version % 100; }
  std::string dotted() const {
    return std::to_string(major()) + "." + std::to_string(minor()) + "." + std::to_string(patch());
  }
};

struct NcclError {
  std::string code, message, hint;
};

template <typename Fn>
void bind(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

#if defined(SDMA_GPU_NVIDIA)
constexpr const char* kLibraryName = "nccl";
constexpr const char* kDefaultSonames[] = {"libnccl.so.2", "libnccl.so", "/usr/lib/x86_64-linux-gnu/libnccl.so.2"};
#else
constexpr const char* kLibraryName = "rccl";
constexpr const char* kDefaultSonames[] = {"librccl.so.1", "librccl.so", "/opt/rocm/lib/librccl.so.1"};
#endif

bool loadNccl(const std::string& explicitPath, Nccl& n, std::string& why) {
  std::vector<std::string> candidates;
  if (!explicitPath.empty()) {
    candidates.push_back(explicitPath);
  } else {
    for (const char* name : kDefaultSonames) candidates.emplace_back(name);
  }
  for (const std::string& candidate : candidates) {
    n.lib = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (n.lib != nullptr) break;
    why += (why.empty() ? "" : "; ") + std::string(dlerror());
  }
  if (n.lib == nullptr) return false;
  bind(n.lib, "ncclGetVersion", n.getVersion);
  bind(n.lib, "ncclGetErrorString", n.errorString);
  bind(n.lib, "ncclCommInitAll", n.commInitAll);
  bind(n.lib, "ncclCommDestroy", n.commDestroy);
  bind(n.lib, "ncclAllGather", n.allGather);
  bind(n.lib, "ncclAlltoAll", n.alltoAll);
  bind(n.lib, "ncclSend", n.send);
  bind(n.lib, "ncclRecv", n.recv);
  bind(n.lib, "ncclGroupStart", n.groupStart);
  bind(n.lib, "ncclGroupEnd", n.groupEnd);
  bind(n.lib, "ncclMemAlloc", n.memAlloc);
  bind(n.lib, "ncclMemFree", n.memFree);
  bind(n.lib, "ncclCommWindowRegister", n.winRegister);
  bind(n.lib, "ncclCommWindowDeregister", n.winDeregister);
  if (!n.getVersion || !n.commInitAll || !n.commDestroy || !n.allGather || !n.groupStart || !n.groupEnd ||
      (!n.alltoAll && (!n.send || !n.recv))) {
    why = "the library lacks ncclCommInitAll/ncclAllGather/ncclGroupStart or send/recv";
    return false;
  }
  n.getVersion(&n.version);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(n.getVersion), &info) != 0 && info.dli_fname != nullptr) n.path = info.dli_fname;
  return true;
}

void ncclCheck(const Nccl& n, int result, const char* what) {
  if (result == kNcclSuccess) return;
  const char* text = n.errorString != nullptr ? n.errorString(result) : "error";
  throw NcclError{"runtime", std::string(what) + " failed: " + text + " (" + std::to_string(result) + ")",
                  "run with NCCL_DEBUG=WARN to see the library's reason"};
}

void gpuCheck(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  throw NcclError{e == hipErrorMemoryAllocation ? "out-of-memory" : "runtime",
                  std::string(what) + ": " + hipGetErrorString(e), ""};
}

// ---- data check: every word is a hash of (source rank, salt, index) ----
__host__ __device__ inline std::uint32_t patternWord(std::uint32_t rank, std::uint32_t salt, std::uint64_t i) {
  std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ static_cast<std::uint32_t>(i >> 32) ^
                    (rank + 1u) * 0x85EBCA77u ^ salt;
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

__global__ void fillKernel(std::uint32_t* out, std::uint64_t words, std::uint32_t rank, std::uint32_t salt,
                           std::uint64_t firstIndex) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    out[i] = patternWord(rank, salt, firstIndex + i);
  }
}

// AllGather: block s of the result is rank s's contribution. AlltoAll: block s of rank d's
// result is block d of rank s's send buffer.
__global__ void checkKernel(const std::uint32_t* recv, std::uint64_t words, std::uint64_t blockWords,
                            std::uint32_t self, std::uint32_t salt, int alltoall, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t src = static_cast<std::uint32_t>(i / blockWords);
    const std::uint64_t k = i % blockWords;
    const std::uint32_t expected = patternWord(src, salt, alltoall ? self * blockWords + k : k);
    if (recv[i] != expected) ++local;
  }
  if (local != 0) atomicAdd(wrong, local);
}

constexpr int kFillBlocks = 1024;
constexpr int kFillThreads = 256;

std::uint64_t elementBytesOf(const std::string& dtype) {
  if (dtype == "bf16") return 2;
  if (dtype == "uint8") return 1;
  return 4;
}

int ncclTypeOf(const std::string& dtype) {
  if (dtype == "bf16") return kNcclBfloat16;
  if (dtype == "uint8") return kNcclUint8;
  return kNcclFloat32;
}

// ---- the library's own record of what ran (NCCL_DEBUG=INFO into a file) ----
struct TransportLog {
  // The log is opened like any file the helper did not write (ingest/safe_file.hpp): its path
  // is the user's NCCL_DEBUG_FILE, or a name in /tmp where anyone could have put a link or a
  // FIFO first. At most kMaxReadBytes of what came since skipToEnd() is read per call, in
  // lines of at most kMaxLineBytes (NCCL's are a few hundred bytes; a longer one is skipped).
  static constexpr std::uint64_t kMaxLogBytes = 16ULL << 30;
  static constexpr std::uint64_t kMaxReadBytes = 256ULL << 20;
  static constexpr std::size_t kMaxLineBytes = 64 * 1024;

  std::string path;
  std::uint64_t offset = 0;
  bool enabled = false;

  void skipToEnd() {
    if (!enabled) return;
    const ingest::SafeFile in = ingest::SafeFile::open(path, kMaxLogBytes);
    if (in.ok()) offset = in.size();
  }

  // The last line since skipToEnd() that names the path the library took for `op`.
  std::pair<std::optional<std::string>, std::string> read(Op op) {
    if (!enabled) return {std::nullopt, ""};
    const ingest::SafeFile in = ingest::SafeFile::open(path, kMaxLogBytes);
    if (!in.ok() || lseek(in.fd(), static_cast<off_t>(offset), SEEK_SET) < 0) return {std::nullopt, ""};
    std::string lower, evidence;
    std::optional<std::string> transport;
    const char* opWord = op == Op::AllGather ? "allgather" : "alltoall";
    ingest::Control control = ingest::Control::process();
    ingest::readLines(in, kMaxReadBytes, kMaxLineBytes, control, [&](std::string_view line, bool overlong) {
      if (overlong) return;
      lower.assign(line);
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (lower.find(opWord) == std::string::npos && lower.find("all_to_all") == std::string::npos &&
          lower.find(" ce ") == std::string::npos && lower.find("sendrecv") == std::string::npos) {
        return;
      }
      // The one reader of the library's lines (library_log_line.hpp): RCCL's GIN line, NCCL's
      // tuner line, copy-engine and symmetric-kernel lines.
      if (const auto parsed = librarylog::parseLogLine(line)) {
        transport = parsed->transport;
        evidence.assign(line);
      } else if (evidence.empty() && lower.find("opcount") != std::string::npos) {
        evidence.assign(line);  // at least the call itself, so the user can see what was logged
      }
    });
    skipToEnd();
    const std::size_t nccl = evidence.find("NCCL INFO ");
    if (nccl != std::string::npos) evidence = evidence.substr(nccl + 10);
    if (evidence.size() > 240) evidence.resize(240);
    return {transport, evidence};
  }
};

// Set before the library's first call: NCCL reads its debug settings once per process.
TransportLog prepareTransportLog(bool wanted) {
  TransportLog log;
  if (!wanted) return log;
  if (const char* level = std::getenv("NCCL_DEBUG"); level != nullptr && std::strcmp(level, "INFO") != 0 &&
                                                       std::strcmp(level, "TRACE") != 0) {
    return log;  // the user chose a quieter level: leave it
  }
  if (const char* file = std::getenv("NCCL_DEBUG_FILE"); file != nullptr && *file != '\0') {
    if (std::strchr(file, '%') != nullptr) return log;  // per-host/pid names cannot be followed
    log.path = file;
  } else {
    log.path = "/tmp/sdma-probe-nccl-" + std::to_string(getpid()) + ".log";
    setenv("NCCL_DEBUG_FILE", log.path.c_str(), 1);
  }
  setenv("NCCL_DEBUG", "INFO", 0);
  // ENV makes the library confirm each variable it read ("... set by environment to ...").
  setenv("NCCL_DEBUG_SUBSYS", "INIT,ENV,COLL,TUNING", 0);
  log.enabled = true;
  return log;
}

struct RankState {
  int device = 0;
  Comm comm = nullptr;
  hipStream_t stream = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
  Window sendWin = nullptr;
  Window recvWin = nullptr;
  unsigned long long* wrong = nullptr;
};

class VariantRun {
 public:
  VariantRun(const Nccl& n, std::vector<RankState>& ranks, const CollectiveOptions& o, TransportLog& log)
      : n_(n), ranks_(ranks), o_(o), log_(log) {}

  void launch(Op op, std::uint64_t sizeBytes, bool inPlace) {
    const int count = static_cast<int>(ranks_.size());
    const std::uint64_t elementBytes = elementBytesOf(o_.dtype);
    const int type = ncclTypeOf(o_.dtype);
    ncclCheck(n_, n_.groupStart(), "ncclGroupStart");
    for (int r = 0; r < count; ++r) {
      RankState& s = ranks_[static_cast<std::size_t>(r)];
      char* recv = static_cast<char*>(s.recv);
      if (op == Op::AllGather) {
        const std::uint64_t part = sizeBytes / static_cast<std::uint64_t>(count);
        const void* send = inPlace ? recv + part * static_cast<std::uint64_t>(r) : s.send;
        ncclCheck(n_, n_.allGather(send, recv, part / elementBytes, type, s.comm, s.stream), "ncclAllGather");
      } else {
        const std::uint64_t block = sizeBytes / static_cast<std::uint64_t>(count);
        if (n_.alltoAll != nullptr) {
          ncclCheck(n_, n_.alltoAll(s.send, recv, block / elementBytes, type, s.comm, s.stream), "ncclAlltoAll");
        } else {
          for (int p = 0; p < count; ++p) {
            const char* send = static_cast<const char*>(s.send) + block * static_cast<std::uint64_t>(p);
            ncclCheck(n_, n_.send(send, block / elementBytes, type, p, s.comm, s.stream), "ncclSend");
            ncclCheck(n_, n_.recv(recv + block * static_cast<std::uint64_t>(p), block / elementBytes, type, p,
                                  s.comm, s.stream),
                      "ncclRecv");
          }
        }
      }
    }
    ncclCheck(n_, n_.groupEnd(), "ncclGroupEnd");
  }

  void syncAll() {
    for (RankState& s : ranks_) {
      gpuCheck(hipSetDevice(s.device), "hipSetDevice");
      gpuCheck(hipStreamSynchronize(s.stream), "hipStreamSynchronize");
    }
  }

  void prepare(Op op, std::uint64_t sizeBytes, bool inPlace, std::uint32_t salt) {
    const int count = static_cast<int>(ranks_.size());
    const std::uint64_t part = sizeBytes / static_cast<std::uint64_t>(count);
    for (int r = 0; r < count; ++r) {
      RankState& s = ranks_[static_cast<std::size_t>(r)];
      gpuCheck(hipSetDevice(s.device), "hipSetDevice");
      gpuCheck(hipMemsetAsync(s.recv, 0, sizeBytes, s.stream), "hipMemset");
      if (op == Op::AllGather) {
        std::uint32_t* dst = inPlace ? reinterpret_cast<std::uint32_t*>(static_cast<char*>(s.recv) + part * r)
                                     : static_cast<std::uint32_t*>(s.send);
        fillKernel<<<kFillBlocks, kFillThreads, 0, s.stream>>>(dst, part / 4, static_cast<std::uint32_t>(r), salt, 0);
      } else {
        fillKernel<<<kFillBlocks, kFillThreads, 0, s.stream>>>(static_cast<std::uint32_t*>(s.send), sizeBytes / 4,
                                                               static_cast<std::uint32_t>(r), salt, 0);
      }
      gpuCheck(hipGetLastError(), "fill kernel");
    }
    syncAll();
  }

  std::int64_t check(Op op, std::uint64_t sizeBytes, std::uint32_t salt) {
    const int count = static_cast<int>(ranks_.size());
    const std::uint64_t blockWords = sizeBytes / static_cast<std::uint64_t>(count) / 4;
    std::int64_t total = 0;
    for (int r = 0; r < count; ++r) {
      RankState& s = ranks_[static_cast<std::size_t>(r)];
      gpuCheck(hipSetDevice(s.device), "hipSetDevice");
      gpuCheck(hipMemsetAsync(s.wrong, 0, sizeof(unsigned long long), s.stream), "hipMemset");
      checkKernel<<<kFillBlocks, kFillThreads, 0, s.stream>>>(static_cast<const std::uint32_t*>(s.recv),
                                                              sizeBytes / 4, blockWords, static_cast<std::uint32_t>(r),
                                                              salt, op == Op::AlltoAll ? 1 : 0, s.wrong);
      gpuCheck(hipGetLastError(), "check kernel");
      unsigned long long wrong = 0;
      gpuCheck(hipStreamSynchronize(s.stream), "hipStreamSynchronize");
      gpuCheck(hipMemcpy(&wrong, s.wrong, sizeof wrong, hipMemcpyDeviceToHost), "hipMemcpy");
      total += static_cast<std::int64_t>(wrong);
    }
    return total;
  }

  // What one call becomes on the GPU, read from a graph capture of it: a kernel path shows
  // kernel nodes, a copy-engine path only copy nodes. Independent of what the log says.
  struct CaptureCount {
    bool ok = false;
    int kernels = 0, copies = 0, other = 0;
  };

  static void countNodes(hipGraph_t graph, CaptureCount& c, int depth) {
    std::size_t n = 0;
    if (depth > 4 || hipGraphGetNodes(graph, nullptr, &n) != hipSuccess) return;
    std::vector<hipGraphNode_t> nodes(n);
    if (n == 0 || hipGraphGetNodes(graph, nodes.data(), &n) != hipSuccess) return;
    for (hipGraphNode_t node : nodes) {
      hipGraphNodeType type{};
      if (hipGraphNodeGetType(node, &type) != hipSuccess) continue;
      if (type == hipGraphNodeTypeKernel) {
        ++c.kernels;
      } else if (type == hipGraphNodeTypeMemcpy) {
        ++c.copies;
      } else if (type == hipGraphNodeTypeGraph) {
        hipGraph_t child = nullptr;
        if (hipGraphChildGraphNodeGetGraph(node, &child) == hipSuccess) countNodes(child, c, depth + 1);
      } else {
        ++c.other;
      }
    }
  }

  CaptureCount capture(Op op, std::uint64_t sizeBytes, bool inPlace) {
    CaptureCount c;
    if (!captureWorks_) return c;
    std::vector<hipGraph_t> graphs(ranks_.size(), nullptr);
    std::size_t begun = 0;
    for (; begun < ranks_.size(); ++begun) {
      RankState& s = ranks_[begun];
      if (hipSetDevice(s.device) != hipSuccess ||
          hipStreamBeginCapture(s.stream, hipStreamCaptureModeRelaxed) != hipSuccess) {
        break;
      }
    }
    bool launched = begun == ranks_.size();
    if (launched) {
      try {
        launch(op, sizeBytes, inPlace);
      } catch (const NcclError&) {
        launched = false;
      }
    }
    for (std::size_t r = 0; r < begun; ++r) {
      (void)hipSetDevice(ranks_[r].device);
      if (hipStreamEndCapture(ranks_[r].stream, &graphs[r]) != hipSuccess) launched = false;
    }
    if (launched) {
      for (hipGraph_t g : graphs) {
        if (g != nullptr) countNodes(g, c, 0);
      }
      c.ok = true;
    }
    for (hipGraph_t g : graphs) {
      if (g != nullptr) (void)hipGraphDestroy(g);
    }
    (void)hipGetLastError();
    if (!launched) captureWorks_ = false;  // one failure is enough: later points skip it
    return c;
  }

  // One point: warm-up (and the data check) once, then --repeats timed loops of --iters calls;
  // nullopt when a cancel came between two repeats (a point is printed whole or not at all).
  std::optional<PointReport> point(Op op, const std::string& variant, std::uint64_t sizeBytes, bool inPlace) {
    const std::uint32_t salt = static_cast<std::uint32_t>(sizeBytes * 2654435761u) ^ (inPlace ? 0x5a5a5a5au : 0u) ^
                               (op == Op::AlltoAll ? 0x0f0f0f0fu : 0u) ^ static_cast<std::uint32_t>(o_.seed);
    prepare(op, sizeBytes, inPlace, salt);
    log_.skipToEnd();
    const int warm = std::max(o_.warmupIters, o_.check ? 1 : 0);
    for (int i = 0; i < warm; ++i) launch(op, sizeBytes, inPlace);
    syncAll();
    PointReport p;
    p.op = op;
    p.variant = variant;
    p.ranks = static_cast<int>(ranks_.size());
    p.sizeBytes = sizeBytes;
    p.count = sizeBytes / elementBytesOf(o_.dtype);
    p.dtype = o_.dtype;
    p.inPlace = inPlace;
    p.iters = o_.iters;
    p.wrong = o_.check ? check(op, sizeBytes, salt) : -1;
    // Each repeat is timed like nccl-tests: host clock around back-to-back calls, all streams
    // drained. The point's time is the median of the repeats.
    const int repeats = std::max(o_.repeats, 1);
    for (int r = 0; r < repeats; ++r) {
      if (r > 0) {
        if (cancel::requested()) return std::nullopt;
        heartbeat();
      }
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < o_.iters; ++i) launch(op, sizeBytes, inPlace);
      syncAll();
      const auto t1 = std::chrono::steady_clock::now();
      p.samplesUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / o_.iters);
    }
    p.timeUs = medianOf(p.samplesUs);
    auto [transport, evidence] = log_.read(op);
    p.transport = transport;
    if (log_.enabled && !transport) {
      // NCCL logs a tuner line ("-> Algo RING proto SIMPLE") only for calls it runs as a
      // kernel algorithm; its p2p AlltoAll and its copy-engine and symmetric paths bypass the
      // tuner, so the absence is reported as it is, not guessed at.
      evidence = evidence.empty() ? "no per-call line in the library's log"
                                  : "no algorithm line for this call (p2p, copy-engine or symmetric path): " + evidence;
    }
    const CaptureCount c = capture(op, sizeBytes, inPlace);
    if (c.ok) {
      if (!p.transport) {
        if (c.kernels == 0 && c.copies > 0) p.transport = "ce";
        if (c.kernels > 0) p.transport = "kernel";
      }
      evidence += (evidence.empty() ? "" : " | ") + std::string("graph capture of one call: ") +
                  std::to_string(c.kernels) + " kernel, " + std::to_string(c.copies) + " copy, " +
                  std::to_string(c.other) + " other nodes (all ranks)";
    }
    p.evidence = evidence;
    return p;
  }

 private:
  const Nccl& n_;
  bool captureWorks_ = true;
  std::vector<RankState>& ranks_;
  const CollectiveOptions& o_;
  TransportLog& log_;
};

struct SavedEnv {
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  void set(const EnvList& env) {
    for (const auto& [name, value] : env) {
      const char* old = std::getenv(name.c_str());
      saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~SavedEnv() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }
};

// The operations a variant runs here: librccl's GIN-SDMA path is ncclAlltoAll's only
// (collective_types.hpp), so on RCCL gin-sdma runs no AllGather.
bool variantRunsOp(const std::string& name, Op op) {
#if defined(SDMA_GPU_NVIDIA)
  (void)name;
  (void)op;
  return true;
#else
  return name != "gin-sdma" || ginSdmaRunsOp(op);
#endif
}

// What a variant is with this library: whether it can run (and if not, why and what to do),
// the environment it sets and its buffers. Decided before anything runs, so the progress
// total counts only the points that will.
VariantReport describeVariant(const Nccl& n, const std::string& name) {
  VariantReport report;
  report.name = name;
  report.library = kLibraryName;
  report.libraryVersion = n.dotted();
  report.libraryPath = n.path;
#if defined(SDMA_GPU_NVIDIA)
  report.symmetric = name == "ce";
  if (name == "ce") report.env = ceEnv();
  if (name == "gin-sdma") {
    report.supported = false;
    report.reason = "GIN-SDMA is RCCL's (AMD); NVIDIA's engine path is the 'ce' variant";
  }
  const int needVersion = 22700;
#else
  report.symmetric = name == "gin-sdma";
  if (name == "gin-sdma") {
    // The Anvil SDMA GIN type needs the patch version: 2.30.4 and 2.30.7 change it.
    if (const std::optional<int> ginType = ginSdmaTypeForRccl(n.major(), n.minor(), n.patch())) {
      report.env = ginSdmaEnv(*ginType);
    } else {
      report.supported = false;
      report.reason = ginSdmaUnsupportedReason(n.dotted());
      report.hint = ginSdmaUnsupportedHint();
    }
  }
  if (name == "ce") {
    report.supported = false;
    report.reason = "copy-engine collectives are NVIDIA's; RCCL's engine path is the 'gin-sdma' variant";
  }
  const int needVersion = 22800;
#endif
  if (report.supported && report.symmetric) {
    if (!n.memAlloc || !n.winRegister || !n.winDeregister || n.version < needVersion) {
      report.supported = false;
      report.reason = std::string(kLibraryName) + " " + n.dotted() +
                      " lacks symmetric windows (ncclMemAlloc + ncclCommWindowRegister)";
      report.hint = std::string("use ") + kLibraryName + " >= " + (needVersion == 22700 ? "2.27" : "2.28") +
                    " (--nccl-lib PATH)";
    }
  }
  return report;
}

// The points a variant will print: every size that holds a whole 32-bit word per rank, in
// each form its operations define, none of an operation it does not run.
std::int64_t pointsOf(const CollectiveOptions& o, const VariantReport& report, int ranks) {
  if (!report.supported) return 0;
  std::int64_t sizes = 0;
  for (std::uint64_t requested : o.sizesBytes) {
    if (alignedSizeBytes(requested, ranks, 4) > 0) ++sizes;
  }
  std::int64_t points = 0;
  for (Op op : o.ops) {
    if (!variantRunsOp(report.name, op)) continue;
    points += sizes * ((o.outOfPlace ? 1 : 0) + (o.inPlace && op == Op::AllGather ? 1 : 0));
  }
  return points;
}

bool runVariant(const Nccl& n, const VariantReport& report, const std::vector<int>& devices,
                const CollectiveOptions& o, TransportLog& log, const CollectiveSink& sink, std::int64_t& done,
                std::int64_t total) {
  const std::string& name = report.name;
  const bool wantSymmetric = report.symmetric;
  if (!report.supported) {
    sink.variant(report);
    return true;
  }
  std::vector<Op> ops;
  bool opSkipped = false;
  for (Op op : o.ops) {
    if (variantRunsOp(name, op)) {
      ops.push_back(op);
    } else {
      opSkipped = true;
    }
  }
  const auto sayOpSkipped = [&] {
    if (opSkipped) sink.warning("variant-op-unsupported", ginSdmaAllGatherSkipped());
  };
  if (ops.empty()) {
    sink.variant(report);
    sayOpSkipped();
    return true;
  }
  SavedEnv env;
  env.set(report.env);

  const int count = static_cast<int>(devices.size());
  std::vector<RankState> ranks(static_cast<std::size_t>(count));
  std::vector<Comm> comms(static_cast<std::size_t>(count), nullptr);
  ncclCheck(n, n.commInitAll(comms.data(), count, devices.data()), "ncclCommInitAll");

  std::uint64_t maxBytes = 0;
  for (std::uint64_t s : o.sizesBytes) maxBytes = std::max(maxBytes, s);
  bool ok = true;
  try {
    for (int r = 0; r < count; ++r) {
      RankState& s = ranks[static_cast<std::size_t>(r)];
      s.device = devices[static_cast<std::size_t>(r)];
      s.comm = comms[static_cast<std::size_t>(r)];
      gpuCheck(hipSetDevice(s.device), "hipSetDevice");
      gpuCheck(hipStreamCreateWithFlags(&s.stream, hipStreamNonBlocking), "hipStreamCreate");
      if (wantSymmetric) {
        ncclCheck(n, n.memAlloc(&s.send, maxBytes), "ncclMemAlloc");
        ncclCheck(n, n.memAlloc(&s.recv, maxBytes), "ncclMemAlloc");
      } else {
        gpuCheck(hipMalloc(&s.send, maxBytes), "hipMalloc");
        gpuCheck(hipMalloc(&s.recv, maxBytes), "hipMalloc");
      }
      gpuCheck(hipMalloc(reinterpret_cast<void**>(&s.wrong), sizeof(unsigned long long)), "hipMalloc");
    }
    if (wantSymmetric) {
      // Registration is collective: every rank's call inside one group.
      ncclCheck(n, n.groupStart(), "ncclGroupStart");
      for (RankState& s : ranks) {
        ncclCheck(n, n.winRegister(s.comm, s.send, maxBytes, &s.sendWin, kWinCollSymmetric), "ncclCommWindowRegister");
        ncclCheck(n, n.winRegister(s.comm, s.recv, maxBytes, &s.recvWin, kWinCollSymmetric), "ncclCommWindowRegister");
      }
      ncclCheck(n, n.groupEnd(), "ncclGroupEnd");
    }
    sink.variant(report);
    sayOpSkipped();
    VariantRun run(n, ranks, o, log);
    for (Op op : ops) {
      for (std::uint64_t requested : o.sizesBytes) {
        // Whole 32-bit words per rank block, so the check can address every block.
        const std::uint64_t size = alignedSizeBytes(requested, count, 4);
        if (size == 0) continue;
        for (int form = 0; form < 2; ++form) {
          const bool inPlace = form == 1;
          // NCCL defines in-place for AllGather only; an in-place AlltoAll would race.
          if (inPlace ? !(o.inPlace && op == Op::AllGather) : !o.outOfPlace) continue;
          if (cancel::requested()) break;
          const std::optional<PointReport> point = run.point(op, name, size, inPlace);
          if (!point) break;  // cancelled between its repeats
          sink.point(*point);
          sink.progress(++done, total, std::string(opName(op)) + " " + name);
        }
      }
    }
  } catch (...) {
    ok = false;
    for (RankState& s : ranks) {
      (void)hipSetDevice(s.device);
      (void)hipDeviceSynchronize();
    }
    for (Comm c : comms) (void)n.commDestroy(c);
    throw;
  }
  if (wantSymmetric) {
    (void)n.groupStart();
    for (RankState& s : ranks) {
      (void)n.winDeregister(s.comm, s.sendWin);
      (void)n.winDeregister(s.comm, s.recvWin);
    }
    (void)n.groupEnd();
  }
  for (RankState& s : ranks) {
    (void)hipSetDevice(s.device);
    if (wantSymmetric) {
      (void)n.memFree(s.send);
      (void)n.memFree(s.recv);
    } else {
      (void)hipFree(s.send);
      (void)hipFree(s.recv);
    }
    (void)hipFree(s.wrong);
    (void)hipStreamDestroy(s.stream);
  }
  for (Comm c : comms) (void)n.commDestroy(c);
  return ok;
}

}  // namespace

bool describeCollectiveLibrary(const std::string& explicitPath, std::string& description) {
  Nccl n;
  std::string why;
  if (!loadNccl(explicitPath, n, why)) {
    description = std::string("cannot load ") + kLibraryName + ": " + why;
    return false;
  }
  description = std::string(kLibraryName) + " " + n.dotted() + (n.path.empty() ? "" : " at " + n.path);
  return true;
}

bool runGpuCollective(const CollectiveOptions& o, const CollectiveSink& sink, EngineFailure& failure) {
  TransportLog log = prepareTransportLog(o.transportLog);
  Nccl n;
  std::string why;
  if (!loadNccl(o.ncclLib, n, why)) {
    failure = {"library-unavailable", std::string("cannot load ") + kLibraryName + ": " + why,
               std::string("install ") + kLibraryName + " or pass --nccl-lib PATH (e.g. the one torch uses)"};
    return false;
  }
  std::vector<int> devices = o.gpus;
  if (devices.empty()) {
    int count = 0;
    gpuCheck(hipGetDeviceCount(&count), "hipGetDeviceCount");
    for (int d = 0; d < count; ++d) devices.push_back(d);
  }
  std::vector<std::string> variants = o.variants;
  if (variants.empty()) variants = {"default", SDMA_GPU_NVIDIA_OR_AMD("ce", "gin-sdma")};
  std::vector<VariantReport> reports;
  std::int64_t total = 0;
  for (const std::string& name : variants) {
    reports.push_back(describeVariant(n, name));
    total += pointsOf(o, reports.back(), static_cast<int>(devices.size()));
  }
  std::int64_t done = 0;
  try {
    for (const VariantReport& report : reports) {
      if (cancel::requested()) return true;
      runVariant(n, report, devices, o, log, sink, done, total);
    }
  } catch (const NcclError& e) {
    failure = {e.code, e.message, e.hint};
    return false;
  }
  if (log.enabled && std::getenv("SDMA_PROBE_KEEP_NCCL_LOG") == nullptr &&
      log.path.rfind("/tmp/sdma-probe-nccl-", 0) == 0) {
    std::remove(log.path.c_str());
  }
  return true;
}

}  // namespace sdma::collective
