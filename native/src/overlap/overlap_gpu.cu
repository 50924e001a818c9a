// sdma-probe overlap on a GPU: a compute kernel runs alone, then beside each copy path, then
// alone again; what it keeps is its throughput against the mean of the two alone runs. The
// board's clocks, power and throttle reasons are sampled in every phase, because a GEMM at
// its power cap slows when anything else draws power, whether or not it lost SMs.
// Clocks and power limits are only read, never set.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend.hpp"
#include "cancel.hpp"
#include "collective/collective_types.hpp"
#include "collective/gpu_engines.hpp"
#include "gpu/gpu_compat.hpp"
#include "gpu/nvml.hpp"

namespace sdma::collective {

namespace {

struct OverlapError {
  std::string code, message, hint;
};

void gpuCheck(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  throw OverlapError{e == hipErrorMemoryAllocation ? "out-of-memory" : "runtime",
                     std::string(what) + ": " + hipGetErrorString(e), ""};
}

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---- board telemetry (NVML, gpu/nvml.hpp; read-only calls) ----
struct Telemetry {
  void* device = nullptr;
  int (*clockInfo)(void*, int, unsigned int*) = nullptr;
  int (*powerUsage)(void*, unsigned int*) = nullptr;
  int (*powerLimit)(void*, unsigned int*) = nullptr;
  int (*reasons)(void*, unsigned long long*) = nullptr;
  int (*fieldValues)(void*, int, void*) = nullptr;

  // nvmlFieldValue_t: fieldId, scopeId, timestamp, latencyUsec, valueType, nvmlReturn, value.
  struct FieldValue {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;
    int nvmlReturn;
    unsigned long long value;
  };
  static constexpr unsigned int kPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT, milliwatts

  // The instant reading where the driver has it: nvmlDeviceGetPowerUsage averages over about
  // a second on recent boards, longer than a phase's ramp.
  bool power(unsigned int& milliwatts) {
    if (fieldValues != nullptr) {
      FieldValue v{};
      v.fieldId = kPowerInstant;
      if (fieldValues(device, 1, &v) == 0 && v.nvmlReturn == 0) {
        milliwatts = static_cast<unsigned int>(v.value & 0xFFFFFFFFu);
        return true;
      }
    }
    return powerUsage != nullptr && powerUsage(device, &milliwatts) == 0;
  }

  bool open(int gpu) {
#if defined(SDMA_GPU_NVIDIA)
    const sdma::gpu::Nvml& n = sdma::gpu::nvml();
    if (!n.ok) return false;
    clockInfo = n.clockInfo;
    powerUsage = n.powerUsage;
    powerLimit = n.powerLimit;
    reasons = n.clockReasons;
    fieldValues = n.fieldValues;
    char bus[32] = {};
    if (hipDeviceGetPCIBusId(bus, sizeof bus, gpu) != hipSuccess) return false;
    return n.handleByBusId(bus, &device) == 0;
#else
    (void)gpu;
    return false;  // amdsmi is not read yet: the overlap record leaves these fields null
#endif
  }
};

// NVML clock-event reason bits, by the names nvidia-smi prints.
std::vector<std::string> reasonNames(unsigned long long bits) {
  static const std::pair<unsigned long long, const char*> kNames[] = {
      {0x1, "gpu-idle"},          {0x2, "applications-clocks"}, {0x4, "sw-power-cap"},
      {0x8, "hw-slowdown"},       {0x10, "sync-boost"},         {0x20, "sw-thermal"},
      {0x40, "hw-thermal"},       {0x80, "hw-power-brake"},     {0x100, "display-clocks"}};
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames) {
    if ((bits & bit) != 0) names.emplace_back(name);
  }
  return names;
}

class Sampler {
 public:
  explicit Sampler(Telemetry& t) : t_(t) {
    if (t_.device != nullptr) thread_ = std::thread([this] { loop(); });
  }
  ~Sampler() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    sm_ = mem_ = power_ = 0;
    samples_ = powerSamples_ = 0;
    reasonBits_ = 0;
  }
  ClockSample read() {
    std::lock_guard<std::mutex> lock(mutex_);
    ClockSample s;
    if (samples_ > 0) {
      s.smMHz = sm_ / samples_;
      s.memMHz = mem_ / samples_;
      if (powerSamples_ > 0) s.powerW = power_ / powerSamples_ / 1000.0;
      s.throttleReasons = reasonNames(reasonBits_ & ~0x1ull);  // idle bits between kernels are noise
    }
    unsigned int limit = 0;
    if (t_.powerLimit != nullptr && t_.powerLimit(t_.device, &limit) == 0) s.powerLimitW = limit / 1000.0;
    return s;
  }

 private:
  void loop() {
    while (!stop_) {
      unsigned int sm = 0, mem = 0, power = 0;
      unsigned long long bits = 0;
      const bool okClock = t_.clockInfo != nullptr && t_.clockInfo(t_.device, 1, &sm) == 0 &&
                           t_.clockInfo(t_.device, 2, &mem) == 0;  // NVML_CLOCK_SM, NVML_CLOCK_MEM
      const bool okPower = t_.power(power);
      if (t_.reasons != nullptr) t_.reasons(t_.device, &bits);
      if (okClock) {
        std::lock_guard<std::mutex> lock(mutex_);
        sm_ += sm;
        mem_ += mem;
        if (okPower) {
          power_ += power;
          ++powerSamples_;
        }
        reasonBits_ |= bits;
        ++samples_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  Telemetry& t_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  double sm_ = 0, mem_ = 0, power_ = 0;
  int samples_ = 0;
  int powerSamples_ = 0;
  unsigned long long reasonBits_ = 0;
};

// ---- compute ----
constexpr int kFmaChains = 8;
constexpr int kFmaThreads = 256;

// Independent chains keep the FMA pipes full; the store keeps the compiler from dropping them.
__global__ void fmaKernel(float* sink, int iters, float seed) {
  float v[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) v[c] = seed + static_cast<float>(threadIdx.x + c);
  const float a = 0.999999f, b = 1e-7f;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) v[c] = fmaf(v[c], a, b);
  }
  float sum = 0;
  for (int c = 0; c < kFmaChains; ++c) sum += v[c];
  if (sum == 12345.678f) sink[blockIdx.x] = sum;
}

#if defined(SDMA_GPU_NVIDIA)
// bf16 values in about [-1, 1): a hash of the index, truncated from fp32.
__global__ void randomBf16Kernel(std::uint16_t* out, std::uint64_t count, std::uint32_t salt) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ salt * 0x85EBCA77u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    const float f = static_cast<float>(x & 0xFFFFFF) / 8388608.0f - 1.0f;
    std::uint32_t bits;
    memcpy(&bits, &f, 4);
    out[i] = static_cast<std::uint16_t>(bits >> 16);
  }
}

struct Cublas {
  void* lib = nullptr;
  void* handle = nullptr;
  int (*create)(void**) = nullptr;
  int (*destroy)(void*) = nullptr;
  int (*setStream)(void*, hipStream_t) = nullptr;
  int (*gemmEx)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                const void*, void*, int, int, int, int) = nullptr;
  std::string path;
};

bool openCublas(Cublas& c) {
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
    c.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (c.lib != nullptr) {
      c.path = name;
      break;
    }
  }
  if (c.lib == nullptr) return false;
  c.create = reinterpret_cast<int (*)(void**)>(dlsym(c.lib, "cublasCreate_v2"));
  c.destroy = reinterpret_cast<int (*)(void*)>(dlsym(c.lib, "cublasDestroy_v2"));
  c.setStream = reinterpret_cast<int (*)(void*, hipStream_t)>(dlsym(c.lib, "cublasSetStream_v2"));
  c.gemmEx = reinterpret_cast<decltype(c.gemmEx)>(dlsym(c.lib, "cublasGemmEx"));
  return c.create && c.destroy && c.setStream && c.gemmEx && c.create(&c.handle) == 0;
}
constexpr int kCudaR16BF = 14;
constexpr int kCublasCompute32F = 68;
constexpr int kCublasGemmDefault = -1;
#endif

class Compute {
 public:
  Compute(const std::string& kind, int gpu, int n, int sms) : kind_(kind), n_(n), sms_(sms) {
    gpuCheck(hipSetDevice(gpu), "hipSetDevice");
    gpuCheck(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), "hipStreamCreate");
    gpuCheck(hipEventCreate(&start_), "hipEventCreate");
    gpuCheck(hipEventCreate(&end_), "hipEventCreate");
    if (kind_ == "gemm") {
#if defined(SDMA_GPU_NVIDIA)
      if (!openCublas(blas_)) throw OverlapError{"library-unavailable", "cannot load cuBLAS (libcublas.so)", ""};
      blas_.setStream(blas_.handle, stream_);
      const std::size_t bytes = static_cast<std::size_t>(n) * n * 2;
      std::uint32_t salt = 1;
      for (void** p : {&a_, &b_, &c_}) {
        gpuCheck(hipMalloc(p, bytes), "hipMalloc");
        // Random operands: constant ones toggle few bits, draw far less power and would hide
        // the power cap this measurement exists to show.
        randomBf16Kernel<<<1024, 256, 0, stream_>>>(static_cast<std::uint16_t*>(*p), bytes / 2, salt++);
        gpuCheck(hipGetLastError(), "random fill");
      }
      gpuCheck(hipStreamSynchronize(stream_), "hipStreamSynchronize");
      label_ = "cublasGemmEx bf16 " + std::to_string(n) + "^3 (" + blas_.path + ")";
#else
      throw OverlapError{"unsupported", "the GEMM overlap is not built for AMD yet (hipBLASLt)",
                         "use --compute fma on AMD"};
#endif
    } else {
      gpuCheck(hipMalloc(&c_, 4096 * sizeof(float)), "hipMalloc");
      fmaBlocks_ = sms_ * 8;
      label_ = "FMA-bound kernel fp32, " + std::to_string(fmaBlocks_) + "x" + std::to_string(kFmaThreads);
    }
  }
  ~Compute() {
#if defined(SDMA_GPU_NVIDIA)
    if (blas_.handle != nullptr) blas_.destroy(blas_.handle);
#endif
    (void)hipFree(a_);
    (void)hipFree(b_);
    (void)hipFree(c_);
    (void)hipEventDestroy(start_);
    (void)hipEventDestroy(end_);
    (void)hipStreamDestroy(stream_);
  }

  const std::string& label() const { return label_; }

  void launchOne() {
    if (kind_ == "gemm") {
#if defined(SDMA_GPU_NVIDIA)
      const float alpha = 1.0f, beta = 0.0f;
      const int r = blas_.gemmEx(blas_.handle, 0, 0, n_, n_, n_, &alpha, a_, kCudaR16BF, n_, b_, kCudaR16BF, n_, &beta,
                                 c_, kCudaR16BF, n_, kCublasCompute32F, kCublasGemmDefault);
      if (r != 0) throw OverlapError{"runtime", "cublasGemmEx failed (" + std::to_string(r) + ")", ""};
#endif
    } else {
      fmaKernel<<<fmaBlocks_, kFmaThreads, 0, stream_>>>(static_cast<float*>(c_), kFmaIters, 1.0f);
      gpuCheck(hipGetLastError(), "fma kernel");
    }
  }

  double flopsPerLaunch() const {
    if (kind_ == "gemm") return 2.0 * n_ * static_cast<double>(n_) * n_;
    return 2.0 * kFmaChains * static_cast<double>(kFmaIters) * fmaBlocks_ * kFmaThreads;
  }

  // Batches of launches timed by events for about `seconds`; returns TFLOP/s.
  double run(double seconds) {
    double gpuMs = 0, flops = 0;
    const auto t0 = Clock::now();
    while (secondsSince(t0) < seconds && !cancel::requested()) {
      gpuCheck(hipEventRecord(start_, stream_), "hipEventRecord");
      for (int i = 0; i < kBatch; ++i) launchOne();
      gpuCheck(hipEventRecord(end_, stream_), "hipEventRecord");
      gpuCheck(hipEventSynchronize(end_), "hipEventSynchronize");
      float ms = 0;
      gpuCheck(hipEventElapsedTime(&ms, start_, end_), "hipEventElapsedTime");
      gpuMs += ms;
      flops += flopsPerLaunch() * kBatch;
    }
    return gpuMs > 0 ? flops / (gpuMs * 1e-3) / 1e12 : 0;
  }

 private:
  static constexpr int kBatch = 8;
  static constexpr int kFmaIters = 20000;
  std::string kind_;
  int n_;
  int sms_;
  int fmaBlocks_ = 0;
  hipStream_t stream_ = nullptr;
  hipEvent_t start_ = nullptr, end_ = nullptr;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  std::string label_;
#if defined(SDMA_GPU_NVIDIA)
  Cublas blas_;
#endif
};

// ---- copies ----
constexpr int kCopyThreads = 1024;
// More than half of an SM's shared memory: no two copy blocks share an SM, so N blocks
// occupy N SMs, as the sweep's cu/host copy does.
constexpr int kCopySharedBytes = 120 * 1024;

// The copy holds its SMs for the whole phase, as a communication kernel running beside the
// math does: each block copies its own slice over and over until the host raises `stop`,
// and adds the bytes of every finished pass to a counter the host reads while it runs.
// (Relaunching per copy would let a persistent GEMM take the SMs back between copies.)
__global__ void smCopyKernel(uint4* dst, const uint4* src, std::uint64_t vectors, volatile std::uint32_t* stop,
                             unsigned long long* bytesDone) {
  extern __shared__ unsigned char reserve[];
  (void)reserve;
  const std::uint64_t perBlock = (vectors + gridDim.x - 1) / gridDim.x;
  const std::uint64_t begin = blockIdx.x * perBlock;
  const std::uint64_t end = begin + perBlock < vectors ? begin + perBlock : vectors;
  __shared__ std::uint32_t stopSeen;
  while (true) {
    for (std::uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x) dst[i] = src[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      atomicAdd(bytesDone, static_cast<unsigned long long>(end > begin ? end - begin : 0) * 16ull);
      stopSeen = *stop;
    }
    __syncthreads();
    if (stopSeen != 0) return;
  }
}

// engine/device: the running kernel rings a doorbell in host memory; a host proxy issues the
// copy on the copy engine (NVIDIA has no device-writable engine queue).
__global__ void doorbellKernel(volatile std::uint32_t* doorbell, std::uint32_t seq) {
  if (threadIdx.x == 0) {
    __threadfence_system();
    *doorbell = seq;
  }
}

// Endpoints are GPU indices or host memory (kHostEndpoint): a host endpoint is pinned host
// memory mapped for the GPU, which the copy kernel reads or writes through its device address
// and the copy engine reaches over PCIe. The copy runs on `gpu()`, the GPU at its other end.
class Copier {
 public:
  Copier(int src, int dst, std::uint64_t bytes)
      : src_(src), dst_(dst), gpu_(isHost(src) ? dst : src), bytes_(bytes) {
    const bool peer = !isHost(src) && !isHost(dst) && src != dst;
    if (isHost(dst)) {
      gpuCheck(hipSetDevice(gpu_), "hipSetDevice");
      gpuCheck(hipHostMalloc(&dstBuf_, bytes, hipHostMallocMapped | hipHostMallocPortable), "hipHostMalloc");
      gpuCheck(hipHostGetDevicePointer(&dstDev_, dstBuf_, 0), "hipHostGetDevicePointer");
    } else {
      gpuCheck(hipSetDevice(dst), "hipSetDevice");
      gpuCheck(hipMalloc(&dstBuf_, bytes), "hipMalloc");
      dstDev_ = dstBuf_;
    }
    if (peer) {
      const hipError_t back = hipDeviceEnablePeerAccess(src, 0);
      if (back != hipSuccess && back != hipErrorPeerAccessAlreadyEnabled) gpuCheck(back, "hipDeviceEnablePeerAccess");
      (void)hipGetLastError();
    }
    gpuCheck(hipSetDevice(gpu_), "hipSetDevice");
    if (peer) {
      const hipError_t e = hipDeviceEnablePeerAccess(dst, 0);
      if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) gpuCheck(e, "hipDeviceEnablePeerAccess");
      (void)hipGetLastError();
    }
    if (isHost(src)) {
      gpuCheck(hipHostMalloc(&srcBuf_, bytes, hipHostMallocMapped | hipHostMallocPortable), "hipHostMalloc");
      std::memset(srcBuf_, 0x5a, bytes);
      gpuCheck(hipHostGetDevicePointer(&srcDev_, srcBuf_, 0), "hipHostGetDevicePointer");
    } else {
      gpuCheck(hipMalloc(&srcBuf_, bytes), "hipMalloc");
      gpuCheck(hipMemset(srcBuf_, 0x5a, bytes), "hipMemset");
      srcDev_ = srcBuf_;
    }
    // The copy runs at the highest stream priority, as communication does in training
    // frameworks: its blocks take SMs as the GEMM's retire instead of queueing behind the
    // next GEMM, so N blocks hold N SMs for the copy's duration.
    int leastPriority = 0, greatestPriority = 0;
    gpuCheck(hipDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority), "hipDeviceGetStreamPriorityRange");
    gpuCheck(hipStreamCreateWithPriority(&stream_, hipStreamNonBlocking, greatestPriority), "hipStreamCreate");
    gpuCheck(hipEventCreate(&start_), "hipEventCreate");
    gpuCheck(hipEventCreate(&end_), "hipEventCreate");
    gpuCheck(hipHostMalloc(reinterpret_cast<void**>(&doorbell_), sizeof(std::uint32_t), hipHostMallocMapped),
             "hipHostMalloc");
    *doorbell_ = 0;
    gpuCheck(hipHostMalloc(reinterpret_cast<void**>(&stop_flag_), sizeof(std::uint32_t), hipHostMallocMapped),
             "hipHostMalloc");
    gpuCheck(hipHostMalloc(reinterpret_cast<void**>(&bytesDone_), sizeof(unsigned long long), hipHostMallocMapped),
             "hipHostMalloc");
    gpuCheck(hipHostGetDevicePointer(reinterpret_cast<void**>(&stopFlagDev_), stop_flag_, 0), "hipHostGetDevicePointer");
    gpuCheck(hipHostGetDevicePointer(reinterpret_cast<void**>(&bytesDoneDev_), bytesDone_, 0),
             "hipHostGetDevicePointer");
    gpuCheck(hipHostGetDevicePointer(reinterpret_cast<void**>(&doorbellDev_), doorbell_, 0), "hipHostGetDevicePointer");
    gpuCheck(hipFuncSetAttribute(reinterpret_cast<const void*>(&smCopyKernel),
                                 hipFuncAttributeMaxDynamicSharedMemorySize, kCopySharedBytes),
             "hipFuncSetAttribute");
  }
  ~Copier() {
    try {
      stopAndJoin();
    } catch (const OverlapError&) {
      // already reported by the phase that failed
    }
    (void)hipSetDevice(gpu_);
    if (isHost(src_)) {
      (void)hipHostFree(srcBuf_);
    } else {
      (void)hipFree(srcBuf_);
    }
    (void)hipHostFree(doorbell_);
    (void)hipHostFree(stop_flag_);
    (void)hipHostFree(bytesDone_);
    (void)hipEventDestroy(start_);
    (void)hipEventDestroy(end_);
    (void)hipStreamDestroy(stream_);
    if (isHost(dst_)) {
      (void)hipHostFree(dstBuf_);
    } else {
      (void)hipSetDevice(dst_);
      (void)hipFree(dstBuf_);
    }
  }

  bool peer() const { return !isHost(src_) && !isHost(dst_) && src_ != dst_; }

  void start(const std::string& path, int cus) {
    stop_ = false;
    copies_ = 0;
    seconds_ = 0;
    failure_.clear();
    persistent_ = path == "cu/host";
    if (persistent_) {
      gpuCheck(hipSetDevice(gpu_), "hipSetDevice");
      *static_cast<volatile std::uint32_t*>(stop_flag_) = 0;
      *static_cast<volatile unsigned long long*>(bytesDone_) = 0;
      smCopyKernel<<<cus, kCopyThreads, kCopySharedBytes, stream_>>>(
          static_cast<uint4*>(dstDev_), static_cast<const uint4*>(srcDev_), bytes_ / 16, stopFlagDev_, bytesDoneDev_);
      gpuCheck(hipGetLastError(), "copy kernel");
      return;
    }
    thread_ = std::thread([this, path, cus] {
      try {
        loop(path, cus);
      } catch (const OverlapError& e) {
        failure_ = e.message;
      }
    });
  }

  // GB/s over the copies that completed while the compute ran.
  double stopAndJoin() {
    if (persistent_) {
      const unsigned long long bytes = *static_cast<volatile unsigned long long*>(bytesDone_) - windowBytes0_;
      const double seconds = secondsSince(window0_);
      *static_cast<volatile std::uint32_t*>(stop_flag_) = 1;
      gpuCheck(hipStreamSynchronize(stream_), "hipStreamSynchronize");
      persistent_ = false;
      copies_ = static_cast<std::int64_t>(bytes / bytes_);
      return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0;
    }
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (!failure_.empty()) throw OverlapError{"runtime", "copy beside the compute: " + failure_, ""};
    return seconds_ > 0 ? static_cast<double>(bytes_) * copies_ / seconds_ / 1e9 : 0;
  }
  void markWindow() {
    copies_ = 0;
    seconds_ = 0;
    counting_ = true;
    windowBytes0_ = *static_cast<volatile unsigned long long*>(bytesDone_);
    window0_ = Clock::now();
  }
  std::int64_t copies() const { return copies_; }

 private:
  void one(const std::string& path, int cus) {
    (void)cus;
    if (path == "engine/host" && !peer()) {
      const hipMemcpyKind kind = isHost(src_)   ? hipMemcpyHostToDevice
                                 : isHost(dst_) ? hipMemcpyDeviceToHost
                                                : hipMemcpyDeviceToDevice;
      gpuCheck(hipMemcpyAsync(dstBuf_, srcBuf_, bytes_, kind, stream_), "hipMemcpyAsync");
    } else if (path == "engine/host") {
      gpuCheck(hipMemcpyPeerAsync(dstBuf_, dst_, srcBuf_, src_, bytes_, stream_), "hipMemcpyPeerAsync");
    } else {
      const std::uint32_t seq = ++seq_;
      doorbellKernel<<<1, 32, 0, stream_>>>(doorbellDev_, seq);
      gpuCheck(hipGetLastError(), "doorbell kernel");
      const volatile std::uint32_t* bell = doorbell_;
      while (*bell != seq) {
        if (stop_ && hipStreamQuery(stream_) == hipSuccess && *bell != seq) break;
      }
      gpuCheck(hipMemcpyPeerAsync(dstBuf_, dst_, srcBuf_, src_, bytes_, stream_), "hipMemcpyPeerAsync");
    }
  }

  void loop(const std::string& path, int cus) {
    gpuCheck(hipSetDevice(gpu_), "hipSetDevice");
    while (!stop_) {
      const auto t0 = Clock::now();
      gpuCheck(hipEventRecord(start_, stream_), "hipEventRecord");
      one(path, cus);
      gpuCheck(hipEventRecord(end_, stream_), "hipEventRecord");
      gpuCheck(hipEventSynchronize(end_), "hipEventSynchronize");
      float ms = 0;
      gpuCheck(hipEventElapsedTime(&ms, start_, end_), "hipEventElapsedTime");
      // The proxy path's time runs from the doorbell kernel's launch: the host round trip counts.
      const double seconds = path == "engine/device" ? secondsSince(t0) : ms * 1e-3;
      if (counting_) {
        seconds_ += seconds;
        ++copies_;
      }
    }
  }

  int src_, dst_, gpu_;
  std::uint64_t bytes_;
  void* srcBuf_ = nullptr;  // what the runtime's copy calls take (host buffers: the CPU's address)
  void* dstBuf_ = nullptr;
  void* srcDev_ = nullptr;  // what the copy kernel takes (host buffers: their mapped address)
  void* dstDev_ = nullptr;
  hipStream_t stream_ = nullptr;
  hipEvent_t start_ = nullptr, end_ = nullptr;
  std::uint32_t* doorbell_ = nullptr;
  std::uint32_t* doorbellDev_ = nullptr;
  std::uint32_t* stop_flag_ = nullptr;
  std::uint32_t* stopFlagDev_ = nullptr;
  unsigned long long* bytesDone_ = nullptr;
  unsigned long long* bytesDoneDev_ = nullptr;
  unsigned long long windowBytes0_ = 0;
  Clock::time_point window0_{};
  bool persistent_ = false;
  std::uint32_t seq_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> counting_{false};
  std::atomic<std::int64_t> copies_{0};
  double seconds_ = 0;
  std::string failure_;
};

}  // namespace

bool runGpuOverlap(const OverlapOptions& o, const OverlapSink& sink, EngineFailure& failure) {
  try {
    if (isHost(o.srcGpu) && isHost(o.dstGpu)) {
      throw OverlapError{"unsupported", "overlap needs a GPU at one end of the copy (it runs the compute)",
                         "use --src host --dst 0, --src 0 --dst host, or two GPUs"};
    }
    // The compute runs on the GPU that runs the copy: the source, or the destination of a
    // host -> GPU copy.
    const int gpu = isHost(o.srcGpu) ? o.dstGpu : o.srcGpu;
    const bool peer = !isHost(o.srcGpu) && !isHost(o.dstGpu) && o.srcGpu != o.dstGpu;
    std::vector<std::string> paths;
    for (const std::string& path : o.paths) {
      if (path == "engine/device" && !peer) {
        // The proxy path hands peer copies between two GPUs; with host memory or one GPU it has no form.
        sink.warning("path-unsupported", "engine/device is left out: it needs two GPUs (a kernel hands peer copies to "
                                         "a host proxy); host and GPU-local copies use engine/host");
        continue;
      }
      paths.push_back(path);
    }
    if (paths.empty()) {
      throw OverlapError{"unsupported", "no copy path of --paths exists between these endpoints (engine/device needs two GPUs)",
                         "use --paths cu/host,engine/host"};
    }
    hipDeviceProp_t props{};
    gpuCheck(hipGetDeviceProperties(&props, gpu), "hipGetDeviceProperties");
    Telemetry telemetry;
    if (!telemetry.open(gpu)) {
      sink.warning("no-telemetry", "board clocks and power could not be read (NVML/amdsmi): those fields are null");
    }
    Sampler sampler(telemetry);
    Copier copier(o.srcGpu, o.dstGpu, o.copySizeBytes / 16 * 16);
    struct Phase {
      std::string phase, path;
      int cus;
    };
    std::vector<Phase> phases = {{"alone-before", "alone", 0}};
    for (const std::string& path : paths) {
      if (path == "cu/host") {
        for (int cus : o.cus) phases.push_back({"beside", path, cus});
      } else {
        phases.push_back({"beside", path, 0});
      }
    }
    phases.push_back({"alone-after", "alone", 0});
    const std::int64_t total = static_cast<std::int64_t>(phases.size() * o.computes.size());
    std::int64_t done = 0;
    const double seconds = o.phaseMs / 1e3;
    for (const std::string& kind : o.computes) {
      Compute compute(kind, gpu, o.gemmN, props.multiProcessorCount);
      compute.run(0.3);  // clocks and cuBLAS heuristics settle before the first phase
      std::vector<OverlapReport> reports;
      double aloneSum = 0;
      int aloneCount = 0;
      for (const Phase& phase : phases) {
        if (cancel::requested()) return true;
        OverlapReport r;
        r.compute = kind;
        r.computeLabel = compute.label();
        r.phase = phase.phase;
        r.path = phase.path;
        r.cus = phase.cus;
        const bool beside = phase.path != "alone";
        r.copySizeBytes = beside ? o.copySizeBytes : 0;
        if (beside) {
          copier.start(phase.path, phase.cus);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the copy is running before timing starts
          copier.markWindow();
        }
        sampler.reset();
        const auto t0 = Clock::now();
        r.computeTflops = compute.run(seconds);
        r.durationMs = secondsSince(t0) * 1e3;
        r.clocks = sampler.read();
        if (beside) {
          r.copyGbps = copier.stopAndJoin();
          r.copies = copier.copies();
        } else {
          aloneSum += r.computeTflops;
          ++aloneCount;
        }
        reports.push_back(r);
        sink.progress(++done, total, kind + " " + phase.phase + " " + phase.path);
      }
      const double aloneMean = aloneCount > 0 ? aloneSum / aloneCount : 0;
      for (OverlapReport& r : reports) {
        if (r.path != "alone" && aloneMean > 0) r.keptFraction = r.computeTflops / aloneMean;
        sink.point(r);
      }
    }
  } catch (const OverlapError& e) {
    failure = {e.code, e.message, e.hint};
    return false;
  }
  return true;
}

}  // namespace sdma::collective
