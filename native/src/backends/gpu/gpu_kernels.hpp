#pragma once

// Device code of the GPU backends: the copy kernels of the four paths, their
// instrumentation, and the pattern/check kernels of the validation. HIP-first; nvcc builds
// reach it through gpu_compat.hpp. Only included by gpu_backend_impl.hpp.

#include <cstdint>

#include "backends/gpu/gpu_compat.hpp"

namespace sdma::gpu {

inline constexpr unsigned char kPoisonByte = 0xA5;
inline constexpr int kRingSlots = 1024;

// One per workgroup (block): where it ran and when, on the device clock.
struct BlockTrace {
  std::uint64_t startTicks;
  std::uint64_t endTicks;
  std::uint32_t cu;
  std::uint32_t xcc;
};

// A copy a kernel asks the host proxy to submit to the copy engine.
struct Descriptor {
  std::uint64_t srcOffset;
  std::uint64_t dstOffset;
  std::uint64_t bytes;
  std::uint64_t seq;
};

// Host-pinned, device-mapped: the only memory both the CPU and a running kernel poll.
struct HostControl {
  volatile std::uint32_t gate;         // host-initiated timing: the stream waits for >= its value
  volatile std::uint32_t go;           // persistent kernels start once it reaches their value
  volatile std::uint32_t abort;        // the host tells a running kernel to give up
  volatile std::uint32_t kernelError;  // a kernel gave up waiting (timeout or abort)
  volatile std::uint32_t ping;
  volatile std::uint32_t pongAck;
  volatile std::uint64_t pongTicks;
  volatile std::uint64_t doorbell;  // descriptors published so far
  Descriptor ring[kRingSlots];
};

__host__ __device__ inline std::uint64_t patternWord(std::uint64_t seed, std::uint64_t wordIndex) {
  // splitmix64 of (seed, index): every word differs, and 2^-64 odds of matching the poison.
  std::uint64_t z = seed ^ (wordIndex * 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__host__ __device__ inline unsigned char expectedByte(std::uint64_t seed, std::uint64_t offset,
                                                      std::uint64_t strideBytes, std::uint64_t sizeBytes) {
  if (offset % strideBytes >= sizeBytes) return kPoisonByte;
  return static_cast<unsigned char>(patternWord(seed, offset / 8) >> (8 * (offset % 8)));
}

// The 8 bytes the check expects at word `wordIndex` of a destination: the pattern inside a used
// slot, poison in its guard gap, byte by byte where a word straddles the two. The device check
// and the host check of host-memory destinations both use it.
__host__ __device__ inline std::uint64_t expectedWord(std::uint64_t seed, std::uint64_t wordIndex,
                                                      std::uint64_t strideBytes, std::uint64_t sizeBytes) {
  const std::uint64_t offset = wordIndex * 8;
  const std::uint64_t inSlot = offset % strideBytes;
  if (inSlot + 8 <= sizeBytes) return patternWord(seed, wordIndex);
  if (inSlot >= sizeBytes && inSlot + 8 <= strideBytes) return 0xA5A5A5A5A5A5A5A5ull;
  std::uint64_t want = 0;
  for (int b = 0; b < 8; ++b) {
    want |= static_cast<std::uint64_t>(expectedByte(seed, offset + b, strideBytes, sizeBytes)) << (8 * b);
  }
  return want;
}

__device__ inline std::uint64_t deviceTicks() {
#if defined(SDMA_GPU_NVIDIA)
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return __builtin_amdgcn_s_memrealtime();
#endif
}

// Release at system scope: orders this block's stores (and, being cumulative after a
// barrier, its threads' stores) before what follows, without the global serialisation of a
// sequentially consistent fence (fence.sc.sys).
__device__ inline void releaseSystem() {
#if defined(SDMA_GPU_NVIDIA)
  asm volatile("fence.acq_rel.sys;" ::: "memory");
#else
  __threadfence_system();
#endif
}

__device__ inline void releaseGpu() {
#if defined(SDMA_GPU_NVIDIA)
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  __threadfence();
#endif
}

__device__ inline std::uint32_t cuId() {
#if defined(SDMA_GPU_NVIDIA)
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#else
  return __smid();
#endif
}

__device__ inline std::uint32_t xccId() {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
  // HW_REG_XCC_ID (register 20), bits [3:0]: the die this wave runs on.
  return __builtin_amdgcn_s_getreg((3 << 11) | (0 << 6) | 20) & 0xF;
#else
  return 0;
#endif
}

// Volatile loads with a fence: what both vendors' compilers keep in order without a
// library atomic_ref, for flags written by the host or by a stream memory op.
__device__ inline std::uint64_t loadFlag(const volatile std::uint64_t* p) {
  const std::uint64_t v = *p;
  __threadfence_system();
  return v;
}
__device__ inline std::uint32_t loadFlag(const volatile std::uint32_t* p) {
  const std::uint32_t v = *p;
  __threadfence_system();
  return v;
}

// The abort flag lives in host memory: reading it is a PCIe round trip, and many waves
// reading it at once queue behind each other (seen here: 131 spinning blocks took 125 us to
// notice a barrier release). So it is read once every 4096 polls.
__device__ inline bool shouldGiveUp(HostControl* control, std::uint32_t spins, std::uint64_t startTicks,
                                    std::uint64_t timeoutTicks) {
  if ((spins & 4095u) != 0) return false;
  if (control->abort || deviceTicks() - startTicks > timeoutTicks) {
    control->kernelError = 1;
    return true;
  }
  return false;
}

// Waits until *flag >= value; false on timeout or when the host set abort. The poll is a
// plain volatile load: a system fence per poll would add its own latency to every wait
// (measured: about 1 us on the proxy round trip); one fence after the flag is seen orders
// what follows.
template <typename Flag>
__device__ bool waitAtLeast(const volatile Flag* flag, Flag value, HostControl* control, std::uint64_t timeoutTicks) {
  const std::uint64_t start = deviceTicks();
  for (std::uint32_t spins = 1; *flag < value; ++spins) {
    if (shouldGiveUp(control, spins, start, timeoutTicks)) return false;
  }
  __threadfence_system();
  return true;
}

// Backs off a spinning wave so its polling leaves the memory system to the waves still
// copying.
__device__ inline void spinPause() {
#if defined(SDMA_GPU_NVIDIA)
  __nanosleep(100);
#else
  __builtin_amdgcn_s_sleep(2);
#endif
}

// The load/store copy every cu/* path uses: 16-byte accesses, consecutive threads on
// consecutive addresses, kUnroll independent loads in flight before the first store so a
// single CU keeps enough bytes on the link.
inline constexpr int kUnroll = 8;

__device__ inline void copySlice(const unsigned char* src, unsigned char* dst, std::uint64_t bytes, std::uint64_t rank,
                                 std::uint64_t ranks) {
  const uint4* s = reinterpret_cast<const uint4*>(src);
  uint4* d = reinterpret_cast<uint4*>(dst);
  const std::uint64_t n16 = bytes / 16;
  const std::uint64_t stride = ranks * blockDim.x;
  std::uint64_t i = rank * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n16; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = s[i + k * stride];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) d[i + k * stride] = v[k];
  }
  for (; i < n16; i += stride) d[i] = s[i];
  if (rank == 0) {
    for (std::uint64_t b = n16 * 16 + threadIdx.x; b < bytes; b += blockDim.x) dst[b] = src[b];
  }
}

__device__ inline void traceBegin(BlockTrace* trace, std::uint64_t& startTicks) {
  if (trace != nullptr && threadIdx.x == 0) startTicks = deviceTicks();
}

__device__ inline void traceEnd(BlockTrace* trace, std::uint64_t startTicks) {
  if (trace == nullptr) return;
  __syncthreads();  // the block's span ends when its last thread is done
  if (threadIdx.x == 0) {
    trace[blockIdx.x] = BlockTrace{startTicks, deviceTicks(), cuId(), xccId()};
  }
}

// cu/host: one launch, one copy.
__global__ void copyKernel(const unsigned char* src, unsigned char* dst, std::uint64_t bytes, BlockTrace* trace) {
  std::uint64_t startTicks = 0;
  traceBegin(trace, startTicks);
  copySlice(src, dst, bytes, blockIdx.x, gridDim.x);
  traceEnd(trace, startTicks);
}

struct GridBarrier {
  unsigned int count;
  unsigned int generation;
};

// All blocks are co-resident, so spinning cannot starve a block that has not started: on
// NVIDIA a cooperative launch guarantees it; on AMD the grid is sized to what the masked CUs
// hold at once (amd::residentGrid), because CLR runs a cooperative launch on its own device
// queue, which carries no CU mask (gpu_path_cu_device.inc). Gives up with the same timeout as
// every other wait.
__device__ inline bool gridSync(GridBarrier* barrier, HostControl* control, std::uint64_t timeoutTicks) {
  bool ok = true;
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile unsigned int* generation = &barrier->generation;
    const unsigned int seen = *generation;
    releaseGpu();
    if (atomicAdd(&barrier->count, 1u) == gridDim.x - 1) {
      barrier->count = 0;
      releaseGpu();
      atomicAdd(&barrier->generation, 1u);
    } else {
      const std::uint64_t start = deviceTicks();
      for (std::uint32_t spins = 1; *generation == seen; ++spins) {
        spinPause();
        if (shouldGiveUp(control, spins, start, timeoutTicks)) {
          ok = false;
          break;
        }
      }
    }
    releaseGpu();
  }
  __syncthreads();
  return ok;
}

struct DeviceCopyArgs {
  const unsigned char* src;
  unsigned char* dst;
  std::uint64_t sizeBytes;
  std::uint64_t strideBytes;
  std::uint64_t slots;
  int iters;
  int opsPerIter;
  std::uint32_t goValue;
  std::uint64_t timeoutTicks;
  HostControl* control;  // device view of the mapped control block
  GridBarrier* barrier;
  unsigned int* blocksDone;            // [iters]
  unsigned long long* iterStartTicks;  // [iters], preset to all ones
  unsigned long long* iterEndTicks;    // [iters]
  BlockTrace* trace;                   // [blocks] for the last iteration, or null
};

// cu/device: the kernel is already running when the copy is asked for; each iteration is
// copied by every block after a grid-wide barrier, timed from the first block to start to
// the last block to finish (its stores fenced to system scope, so the peer sees them).
__global__ void deviceCopyKernel(DeviceCopyArgs a) {
  __shared__ int aborted;
  if (threadIdx.x == 0) {
    aborted = waitAtLeast(&a.control->go, a.goValue, a.control, a.timeoutTicks) ? 0 : 1;
  }
  __syncthreads();
  if (aborted) return;
  for (int it = 0; it < a.iters; ++it) {
    if (!gridSync(a.barrier, a.control, a.timeoutTicks)) return;
    std::uint64_t startTicks = 0;
    if (threadIdx.x == 0) {
      startTicks = deviceTicks();
      atomicMin(&a.iterStartTicks[it], static_cast<unsigned long long>(startTicks));
    }
    for (int op = 0; op < a.opsPerIter; ++op) {
      const std::uint64_t slot = (static_cast<std::uint64_t>(it) * a.opsPerIter + op) % a.slots;
      copySlice(a.src + slot * a.strideBytes, a.dst + slot * a.strideBytes, a.sizeBytes, blockIdx.x, gridDim.x);
    }
    // One system-scope fence per block, after the barrier: fences are cumulative, so it
    // orders every thread's stores before the end time (thousands of per-thread system
    // fences cost over 100 us here).
    __syncthreads();
    if (threadIdx.x == 0) {
      releaseSystem();
      const std::uint64_t endTicks = deviceTicks();
      if (a.trace != nullptr && it == a.iters - 1) {
        a.trace[blockIdx.x] = BlockTrace{startTicks, endTicks, cuId(), xccId()};
      }
      if (atomicAdd(&a.blocksDone[it], 1u) == gridDim.x - 1) a.iterEndTicks[it] = endTicks;
    }
  }
}

struct ProxyArgs {
  std::uint64_t sizeBytes;
  std::uint64_t strideBytes;
  std::uint64_t slots;
  int iters;
  int opsPerIter;
  std::uint32_t goValue;
  std::uint64_t timeoutTicks;
  HostControl* control;
  const volatile std::uint32_t* completedSeq;  // device memory, written by the copy stream
  unsigned long long* iterStartTicks;          // [iters]
  unsigned long long* iterEndTicks;            // [iters]
  unsigned long long* ringTicks;               // [iters * opsPerIter]: doorbell written
  BlockTrace* trace;                           // [1], or null
};

// The per-iteration device times of a launch, copied by a kernel into host-mapped memory: the
// read-back of a warm-up inside a point's evidence window moves no bytes on a copy engine
// (a hipMemcpy of them might: docs/MEASUREMENT.md, "What moved the bytes").
__global__ void copyTicksKernel(const unsigned long long* start, const unsigned long long* end, int iters,
                                unsigned long long* out) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < iters;
       i += static_cast<int>(gridDim.x * blockDim.x)) {
    out[i] = start[i];
    out[iters + i] = end[i];
  }
  __threadfence_system();
}

// engine/device through a host proxy: a running kernel publishes a descriptor and rings a
// doorbell in host memory; the proxy submits the copy and a stream write of the sequence
// number; the kernel waits for that number in its own memory.
__global__ void proxyKernel(ProxyArgs a) {
  if (threadIdx.x != 0) return;
  if (!waitAtLeast(&a.control->go, a.goValue, a.control, a.timeoutTicks)) return;
  std::uint64_t seq = 0;
  std::uint64_t startTicks = 0;
  for (int it = 0; it < a.iters; ++it) {
    startTicks = deviceTicks();
    for (int op = 0; op < a.opsPerIter; ++op) {
      const std::uint64_t slot = seq % a.slots;
      Descriptor& d = a.control->ring[seq % kRingSlots];
      d.srcOffset = slot * a.strideBytes;
      d.dstOffset = slot * a.strideBytes;
      d.bytes = a.sizeBytes;
      d.seq = seq + 1;
      __threadfence_system();  // the descriptor lands before the doorbell that announces it
      a.ringTicks[seq] = deviceTicks();
      a.control->doorbell = seq + 1;
      __threadfence_system();
      ++seq;
    }
    if (!waitAtLeast(a.completedSeq, static_cast<std::uint32_t>(seq), a.control, a.timeoutTicks)) return;
    a.iterStartTicks[it] = startTicks;
    a.iterEndTicks[it] = deviceTicks();
  }
  if (a.trace != nullptr) a.trace[0] = BlockTrace{startTicks, deviceTicks(), cuId(), xccId()};
}

// Host/device clock alignment: the host sends ping r, the kernel answers with its clock.
__global__ void clockPingKernel(HostControl* control, int rounds, std::uint64_t timeoutTicks) {
  if (threadIdx.x != 0) return;
  for (int r = 1; r <= rounds; ++r) {
    if (!waitAtLeast(&control->ping, static_cast<std::uint32_t>(r), control, timeoutTicks)) return;
    control->pongTicks = deviceTicks();
    __threadfence_system();
    control->pongAck = static_cast<std::uint32_t>(r);
    __threadfence_system();
  }
}

__global__ void stampKernel(unsigned long long* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = deviceTicks();
}

__global__ void fillPatternKernel(unsigned char* base, std::uint64_t bytes, std::uint64_t seed) {
  std::uint64_t* words = reinterpret_cast<std::uint64_t*>(base);
  const std::uint64_t n = bytes / 8;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    words[i] = patternWord(seed, i);
  }
}

struct CheckResult {
  unsigned long long wrongBytes;
  unsigned long long firstWrongOffset;  // preset to all ones
};

// Every byte of the used slots must be the pattern, every byte of their guard gaps still
// poison: a short copy, a long copy and a misplaced copy all show.
__global__ void checkKernel(const unsigned char* dst, std::uint64_t bytes, std::uint64_t strideBytes,
                            std::uint64_t sizeBytes, std::uint64_t seed, CheckResult* result) {
  const std::uint64_t* words = reinterpret_cast<const std::uint64_t*>(dst);
  const std::uint64_t n = bytes / 8;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t got = words[i];
    const std::uint64_t offset = i * 8;
    const std::uint64_t want = expectedWord(seed, i, strideBytes, sizeBytes);
    if (got != want) {
      for (int b = 0; b < 8; ++b) {
        if (((got ^ want) >> (8 * b)) & 0xFF) {
          atomicAdd(&result->wrongBytes, 1ull);
          atomicMin(&result->firstWrongOffset, static_cast<unsigned long long>(offset + b));
        }
      }
    }
  }
}

}  // namespace sdma::gpu
