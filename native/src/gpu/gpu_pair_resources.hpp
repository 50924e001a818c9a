#pragma once

// ---- per-pair resources ----
// Streams, regions and scratch of a pair, made on first use and freed when another pair needs the memory.

#include <algorithm>

#include "gpu/gpu_backend_class.hpp"

namespace sdma::gpu {
namespace {

Pair& GpuBackend::ensurePair(int src, int dst) {
  const int deviceCount = static_cast<int>(topology_.gpus.size());
  if (deviceCount == 0) {
    throw GpuFailure{"no-gpu", std::string("no ") + SDMA_GPU_NVIDIA_OR_AMD("NVIDIA", "AMD") + " GPU is visible to this process",
                     "run on a GPU node; without a GPU use --backend sim"};
  }
  for (int e : {src, dst}) {
    if (!isHost(e) && (e < 0 || e >= deviceCount)) {
      throw GpuFailure{"runtime", endpointName(e) + " does not exist (this node has " + std::to_string(deviceCount) +
                                      " GPU" + (deviceCount == 1 ? "" : "s") + ")",
                       "name a GPU from `sdma-probe info`, or host"};
    }
  }
  if (isHost(src) && isHost(dst)) {
    throw GpuFailure{"unsupported", "a copy from host memory to host memory involves no GPU",
                     "put a GPU at one end at least (--src host --dst 0)"};
  }
  const int key = (src + 1) * 4096 + (dst + 1);
  auto it = pairs_.find(key);
  if (it != pairs_.end()) return it->second;
  Pair pair;
  pair.src = src;
  pair.dst = dst;
  pair.gpu = isHost(src) ? dst : src;
  if (!pair.peer()) {
    check(hipSetDevice(pair.gpu), "hipSetDevice");
    createPairStreams(pair);
    return pairs_.emplace(key, pair).first->second;
  }
  int canAccess = 0;
  check(hipDeviceCanAccessPeer(&canAccess, src, dst), "hipDeviceCanAccessPeer");
  if (!canAccess) {
    throw GpuFailure{"peer-access", "GPU " + std::to_string(src) + " cannot access GPU " + std::to_string(dst) +
                                        " directly (no peer access)",
                     "check the link with `nvidia-smi topo -m` / `rocm-smi --showtopo`; in VMs and containers "
                     "peer access needs the IOMMU / ACS settings that allow P2P"};
  }
  for (auto [a, b] : {std::pair{src, dst}, std::pair{dst, src}}) {
    check(hipSetDevice(a), "hipSetDevice");
    const hipError_t e = hipDeviceEnablePeerAccess(b, 0);
    if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) check(e, "hipDeviceEnablePeerAccess");
    (void)hipGetLastError();
  }
  check(hipSetDevice(src), "hipSetDevice");
  createPairStreams(pair);
  return pairs_.emplace(key, pair).first->second;
}

void GpuBackend::createPairStreams(Pair& pair) {
  check(hipStreamCreateWithFlags(&pair.stream, hipStreamNonBlocking), "hipStreamCreate");
  check(hipStreamCreateWithFlags(&pair.proxyStream, hipStreamNonBlocking), "hipStreamCreate");
  check(hipEventCreate(&pair.start), "hipEventCreate");
  check(hipEventCreate(&pair.end), "hipEventCreate");
  check(hipEventCreate(&pair.stampDone), "hipEventCreate");
  ensureScratch(pair.gpu);
}

void GpuBackend::allocEndpoint(Pair& pair, bool source, std::uint64_t bytes) {
  const int endpoint = source ? pair.src : pair.dst;
  unsigned char*& region = source ? pair.srcRegion : pair.dstRegion;
  if (isHost(endpoint)) {
    HostBuffer& host = source ? pair.srcHost : pair.dstHost;
    check(hipSetDevice(pair.gpu), "hipSetDevice");
    host = allocHostBuffer(bytes, numaNodeOf(pair.gpu));
    if (!host.why.empty() && warnedPlacement_.insert(pair.gpu).second) {
      std::fprintf(stderr, "sdma-probe: host buffers for GPU %d are not placed on a NUMA node (%s); the kernel's "
                   "default placement applies (samples labelled host-numa-unknown)\n", pair.gpu, host.why.c_str());
    }
    region = host.dev;
    return;
  }
  check(hipSetDevice(endpoint), "hipSetDevice");
  check(hipMalloc(reinterpret_cast<void**>(&region), bytes), source ? "hipMalloc (source)" : "hipMalloc (destination)");
}

void GpuBackend::freeEndpoint(Pair& pair, bool source) {
  const int endpoint = source ? pair.src : pair.dst;
  unsigned char*& region = source ? pair.srcRegion : pair.dstRegion;
  if (isHost(endpoint)) {
    freeHostBuffer(source ? pair.srcHost : pair.dstHost);
  } else if (region != nullptr) {
    (void)hipSetDevice(endpoint);
    (void)hipFree(region);
  }
  region = nullptr;
}

void GpuBackend::allocRegions(Pair& pair, std::uint64_t regionBytes) {
  allocEndpoint(pair, true, regionBytes);
  try {
    allocEndpoint(pair, false, regionBytes);
  } catch (...) {
    freeEndpoint(pair, true);
    throw;
  }
  pair.regionBytes = regionBytes;
}

DeviceScratch& GpuBackend::ensureScratch(int device) {
  auto it = scratch_.find(device);
  if (it != scratch_.end()) return it->second;
  DeviceScratch s;
  check(hipSetDevice(device), "hipSetDevice");
  void* host = nullptr;
  check(hipHostMalloc(&host, sizeof(HostControl), hipHostMallocMapped), "hipHostMalloc");
  std::memset(host, 0, sizeof(HostControl));
  s.controlHost = static_cast<HostControl*>(host);
  void* dev = nullptr;
  check(hipHostGetDevicePointer(&dev, host, 0), "hipHostGetDevicePointer");
  s.controlDev = static_cast<HostControl*>(dev);
  const std::size_t maxBlocks = 16384;  // CUs x blocks per CU, with room
  check(hipMalloc(reinterpret_cast<void**>(&s.barrier), sizeof(GridBarrier)), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.blocksDone), sizeof(unsigned int) * kMaxItersPerLaunch), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.iterStart), 8 * kMaxItersPerLaunch), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.iterEnd), 8 * kMaxItersPerLaunch), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.ringTicks), 8ull * kMaxItersPerLaunch * kMaxPipelineDepth),
        "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.stamp), 8), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.completedSeq), 4), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.trace), sizeof(BlockTrace) * maxBlocks), "hipMalloc");
  check(hipMalloc(reinterpret_cast<void**>(&s.check), sizeof(CheckResult)), "hipMalloc");
  return scratch_.emplace(device, s).first->second;
}

void GpuBackend::freeRegions(Pair& pair) {
  if (!pair.srcRegion && !pair.dstRegion) return;
  freeEndpoint(pair, true);
  freeEndpoint(pair, false);
  pair.regionBytes = 0;
}

void GpuBackend::ensureRegions(Pair& pair, std::uint64_t regionBytes) {
  if (pair.regionBytes >= regionBytes) return;
  for (auto& [key, other] : pairs_) {
    (void)key;
    if (&other != &pair) freeRegions(other);
  }
  freeRegions(pair);
  allocRegions(pair, regionBytes);
  check(hipSetDevice(pair.gpu), "hipSetDevice");
}

int GpuBackend::sharedBytesForBlocksPerCu(int device, int blocksPerCu) const {
  const int perCu = smemPerCu_[static_cast<std::size_t>(device)];
  if (perCu == 0) return 0;
  // The runtime keeps 1 KiB per block and the kernels' static shared memory needs a few
  // bytes: leave 2 KiB so exactly blocksPerCu blocks fit on one CU, never one more.
  const int headroomPerBlock = 2048;
  return std::min(smemOptin_[static_cast<std::size_t>(device)] - 1024, perCu / blocksPerCu - headroomPerBlock);
}

// Streams whose kernels may only use CUs [firstCu, firstCu + cus) (see the class).
hipStream_t GpuBackend::streamForRange(Pair& pair, int firstCu, int cus) {
#if defined(SDMA_HAVE_CU_MASK)
  const int key = firstCu * 65536 + cus;
  auto it = pair.cuMaskStreams.find(key);
  if (it != pair.cuMaskStreams.end()) return it->second;
  const int total = topology_.gpus[static_cast<std::size_t>(pair.gpu)].cus;
  std::vector<std::uint32_t> mask((static_cast<std::size_t>(total) + 31) / 32, 0);
  for (int c = 0; c < cus; ++c) {
    const int cu = (firstCu + c) % total;
    mask[static_cast<std::size_t>(cu / 32)] |= 1u << (cu % 32);
  }
  hipStream_t s{};
  check(hipExtStreamCreateWithCUMask(&s, static_cast<std::uint32_t>(mask.size()), mask.data()),
        "hipExtStreamCreateWithCUMask");
  pair.cuMaskStreams[key] = s;
  return s;
#else
  (void)firstCu, (void)cus;
  return pair.stream;
#endif
}

}  // namespace
}  // namespace sdma::gpu
