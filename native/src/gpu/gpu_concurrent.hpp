#pragma once

// ---- all pairs at once (matrix --concurrent, docs/MATRIX.md) ----

#include <algorithm>

#include "gpu/gpu_backend_class.hpp"

namespace sdma::gpu {
namespace {

void* GpuBackend::sharedGate() {
  if (sharedGateHost_ != nullptr) return sharedGateDev_;
  void* host = nullptr;
  check(hipSetDevice(0), "hipSetDevice");
  // Portable: pinned and mapped for every GPU, not only the one that allocated it.
  check(hipHostMalloc(&host, sizeof(std::uint32_t), hipHostMallocMapped | hipHostMallocPortable), "hipHostMalloc");
  std::memset(host, 0, sizeof(std::uint32_t));
  sharedGateHost_ = static_cast<volatile std::uint32_t*>(host);
  check(hipHostGetDevicePointer(&sharedGateDev_, host, 0), "hipHostGetDevicePointer");
  return sharedGateDev_;
}

void GpuBackend::ensureConcurrentRegions(std::vector<ConcurrentPair>& set) {
  std::set<Pair*> wanted;
  for (ConcurrentPair& c : set) wanted.insert(c.pair);
  for (auto& [key, other] : pairs_) {
    (void)key;
    if (wanted.count(&other) == 0) freeRegions(other);
  }
  std::map<int, std::uint64_t> neededBytes;  // device memory per GPU (host buffers are not counted here)
  for (ConcurrentPair& c : set) {
    if (c.pair->regionBytes >= c.plan.regionBytes) continue;
    freeRegions(*c.pair);
    for (int e : {c.pair->src, c.pair->dst}) {
      if (!isHost(e)) neededBytes[e] += c.plan.regionBytes;
    }
  }
  for (auto [device, bytes] : neededBytes) {
    check(hipSetDevice(device), "hipSetDevice");
    std::size_t freeBytes = 0, totalBytes = 0;
    check(hipMemGetInfo(&freeBytes, &totalBytes), "hipMemGetInfo");
    // Leave room for the runtime's own allocations (streams, kernels' scratch).
    const auto usable = static_cast<std::uint64_t>(static_cast<double>(freeBytes) * 0.9);
    if (bytes > usable) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "all pairs at once need %.2f GiB of buffers on GPU %d; %.2f GiB of it is free",
                    static_cast<double>(bytes) / (1ull << 30), device, static_cast<double>(freeBytes) / (1ull << 30));
      throw GpuFailure{"out-of-memory", text,
                       "use a smaller --size or fewer --gpus, free the GPU, or leave out --concurrent (one pair's "
                       "buffers at a time)"};
    }
  }
  for (ConcurrentPair& c : set) {
    if (c.pair->regionBytes >= c.plan.regionBytes) continue;
    allocRegions(*c.pair, c.plan.regionBytes);
  }
}

void GpuBackend::runConcurrent(const std::vector<CopyRequest>& requests, ConcurrentMeasurement& out) {
  if (requests.empty()) return;
  const CopyRequest& first = requests.front();
  if (first.path == CopyPath::CuDevice || first.path == CopyPath::EngineDevice) {
    // Each device-initiated pair needs its own persistent kernel (cooperative launches that
    // must all be resident at once) or proxy thread: not built for many pairs at once.
    throw GpuFailure{"unsupported",
                     std::string(pathName(first.path)) +
                         " cannot run for all pairs at the same time: its persistent kernels (and, on NVIDIA, "
                         "its proxy thread) are built for one pair",
                     "measure cu/host and engine/host with --concurrent, or leave out --concurrent for " +
                         std::string(pathName(first.path))};
  }
  const bool cu = first.path == CopyPath::CuHost;
  std::vector<ConcurrentPair> set;
  std::map<int, int> copiesFrom;  // per source GPU: copies given CUs so far
  for (const CopyRequest& r : requests) {
    if (r.path != first.path || r.sizeBytes != first.sizeBytes) {
      throw GpuFailure{"runtime", "a concurrent set mixes paths or sizes", ""};
    }
    ConcurrentPair c;
    c.pair = &ensurePair(r.srcGpu, r.dstGpu);
    c.plan = planRotation(r.sizeBytes, llcOf(*c.pair));
    // Each pair its own pattern: a copy that lands in another pair's buffer is caught.
    c.seed = mixSeed(mixSeed(mixSeed(mixSeed(options_.seed, r.sizeBytes), static_cast<std::uint64_t>(r.path)),
                             static_cast<std::uint64_t>(r.srcGpu)),
                     static_cast<std::uint64_t>(r.dstGpu));
    const int k = copiesFrom[c.pair->gpu]++;
    const int gpuCus = topology_.gpus[static_cast<std::size_t>(c.pair->gpu)].cus;
    c.stream = cu ? streamForRange(*c.pair, gpuCus > 0 ? (k * r.cus) % gpuCus : 0, r.cus) : c.pair->stream;
    set.push_back(c);
  }
  ensureConcurrentRegions(set);
  std::set<int> devices;
  for (ConcurrentPair& c : set) {
    preparePair(*c.pair, c.plan, c.seed);
    for (int e : {c.pair->src, c.pair->dst}) {
      if (!isHost(e)) devices.insert(e);
    }
  }

  const int depth = first.mode == TimingMode::OneShot
                        ? 1
                        : pipelineDepth(first.sizeBytes, kBatchTargetBytes, kMaxPipelineDepth);
  const int threads = threadsFor(1);
  std::map<int, int> sharedBytes;
  if (cu) {
    for (int d : devices) {
      sharedBytes[d] = sharedBytesForBlocksPerCu(d, 1);
      if (sharedBytes[d] <= 0) continue;
      check(hipSetDevice(d), "hipSetDevice");
      check(hipFuncSetAttribute(reinterpret_cast<const void*>(&copyKernel),
                                hipFuncAttributeMaxDynamicSharedMemorySize, sharedBytes[d]),
            "hipFuncSetAttribute");
    }
  }
  std::uint32_t* gate = static_cast<std::uint32_t*>(sharedGate());
  bool gated = gateWorks_ && haveStreamMemOps();

  out.pairs.assign(set.size(), CopyMeasurement{});
  // One iteration: every pair queues start/ops/end behind the gate, one write opens it.
  auto iteration = [&](bool keep) {
    const std::uint32_t next = *sharedGateHost_ + 1;
    for (ConcurrentPair& c : set) {
      Pair& pair = *c.pair;
      check(hipSetDevice(pair.gpu), "hipSetDevice");
      if (gated && streamWaitAtLeast(c.stream, gate, next) != hipSuccess) {
        gated = false;
        gateWorks_ = false;
        std::fprintf(stderr, "sdma-probe: the stream gate is unavailable; the pairs start as they are queued\n");
      }
      check(hipEventRecord(pair.start, c.stream), "hipEventRecord");
      for (int b = 0; b < depth; ++b, ++c.op) {
        const std::uint64_t offset = (c.op % c.plan.slots) * c.plan.strideBytes;
        if (cu) {
          copyKernel<<<first.cus, threads, static_cast<std::size_t>(std::max(0, sharedBytes[pair.gpu])), c.stream>>>(
              pair.srcRegion + offset, pair.dstRegion + offset, first.sizeBytes, nullptr);
          check(hipGetLastError(), "copy kernel launch");
        } else {
          check(engineCopy(pair, offset, first.sizeBytes, c.stream), pair.peer() ? "hipMemcpyPeerAsync" : "hipMemcpyAsync");
        }
      }
      check(hipEventRecord(pair.end, c.stream), "hipEventRecord");
    }
    *sharedGateHost_ = next;  // release: every pair is queued
    // Events of different GPUs cannot be compared, so the window is taken per GPU that runs
    // copies (its earliest start to its latest end) and the longest one is the iteration's.
    std::map<int, ConcurrentPair*> firstOf;
    for (ConcurrentPair& c : set) firstOf.emplace(c.pair->gpu, &c);
    std::map<int, double> windowNs;
    for (std::size_t i = 0; i < set.size(); ++i) {
      Pair& pair = *set[i].pair;
      check(hipEventSynchronize(pair.end), "copy");
      float ms = 0;
      check(hipEventElapsedTime(&ms, pair.start, pair.end), "hipEventElapsedTime");
      if (keep) out.pairs[i].timesNs.push_back(ms * 1e6 / depth);
    }
    for (std::size_t i = 0; i < set.size(); ++i) {
      Pair& pair = *set[i].pair;
      double earliestNs = 0;
      for (ConcurrentPair& other : set) {
        if (other.pair->gpu != pair.gpu) continue;
        float ms = 0;
        // start of `other` relative to the first pair of this GPU: negative when earlier.
        check(hipEventElapsedTime(&ms, firstOf[pair.gpu]->pair->start, other.pair->start), "hipEventElapsedTime");
        earliestNs = std::min(earliestNs, static_cast<double>(ms) * 1e6);
      }
      float endMs = 0;
      check(hipEventElapsedTime(&endMs, firstOf[pair.gpu]->pair->start, pair.end), "hipEventElapsedTime");
      windowNs[pair.gpu] = std::max(windowNs[pair.gpu], static_cast<double>(endMs) * 1e6 - earliestNs);
    }
    double longest = 0;
    for (auto [gpu, ns] : windowNs) longest = std::max(longest, ns);
    return longest;
  };
  double warmNs = 0;
  for (int w = 0; w < std::max(1, first.warmupIters); ++w) warmNs = iteration(false);
  const int iters = timedIters(first, warmNs, 0);
  for (int i = 0; i < iters; ++i) {
    if (cancel::requested()) break;
    out.windowsNs.push_back(iteration(true));
  }
  out.bytesPerIteration = static_cast<std::uint64_t>(set.size()) * first.sizeBytes * static_cast<std::uint64_t>(depth);

  for (std::size_t i = 0; i < set.size(); ++i) {
    ConcurrentPair& c = set[i];
    CopyMeasurement& m = out.pairs[i];
    m.mode = first.mode == TimingMode::OneShot ? "one-shot" : "pipelined";
    m.opsPerIter = depth;
    if (requests[i].corruptCopy) corruptOneByte(*c.pair, c.plan, first.sizeBytes, c.seed);
    const std::uint64_t slotsUsed = std::min<std::uint64_t>(c.plan.slots, std::max<std::uint64_t>(c.op, 1));
    if (auto wrong = checkCopy(*c.pair, scratch_.at(c.pair->gpu), c.plan, first.sizeBytes, c.seed, slotsUsed)) {
      m.status = RunStatus::ValidationFailed;
      m.failure = *wrong;
      continue;
    }
    m.validated = true;
    m.cus = cu ? first.cus : 0;
    m.engines = cu ? 0 : 1;
    m.label = c.pair->hostLabel();
  }
}

}  // namespace
}  // namespace sdma::gpu
