#pragma once

// ---- one measurement ----
// The Backend calls (measure, concurrent, timeline), one run of a path, and the timing
// helpers every path shares: settling, timeouts, per-iteration device times.

#include <algorithm>
#include <set>

#include "cancel.hpp"
#include "gpu/gpu_backend_class.hpp"

namespace sdma::gpu {
namespace {

GpuBackend::GpuBackend(const GpuOptions& options, int deviceCount) : options_(options) {
  loadStreamMemOps();
  buildTopology(deviceCount);
}

CopyMeasurement GpuBackend::measure(const CopyRequest& request) {
  CopyMeasurement m;
  try {
    RunResult run = runPath(request, request.trace, request.corruptCopy, m);
    if (m.status != RunStatus::Ok) return m;
    m.timesNs = std::move(run.timesNs);
    m.opsPerIter = run.opsPerIter;
    m.mode = request.mode == TimingMode::OneShot ? "one-shot" : "pipelined";
    m.cusSeen = run.cusSeen;
    m.traced = request.trace;
  } catch (const GpuFailure& f) {
    m = {};
    m.status = RunStatus::Failed;
    m.errorCode = f.code;
    m.failure = f.message;
    m.hint = f.hint;
  }
  return m;
}

ConcurrentMeasurement GpuBackend::measureConcurrent(const std::vector<CopyRequest>& requests) {
  ConcurrentMeasurement out;
  try {
    runConcurrent(requests, out);
  } catch (const GpuFailure& f) {
    out = {};
    out.status = f.code == "cancelled" ? RunStatus::Cancelled : RunStatus::Failed;
    out.errorCode = f.code;
    out.failure = f.message;
    out.hint = f.hint;
  }
  return out;
}

std::uint64_t GpuBackend::timelineEventCount(const TimelineRequest& request) const {
  std::uint64_t perRepeat = 0;
  for (CopyPath p : request.paths) {
    if (!pathUnsupported(p, request.srcGpu, request.dstGpu).empty()) continue;
    switch (p) {
      case CopyPath::CuHost:
      case CopyPath::CuDevice: perRepeat += 1 + static_cast<std::uint64_t>(request.cus); break;
      case CopyPath::EngineHost: perRepeat += 1; break;
      case CopyPath::EngineDevice: perRepeat += 5; break;
    }
  }
  return perRepeat * static_cast<std::uint64_t>(request.repeats);
}

RunStatus GpuBackend::recordTimeline(const TimelineRequest& request, TimelineEvents& out) {
  try {
    Pair& pair = ensurePair(request.srcGpu, request.dstGpu);
    alignClock(pair);
    std::vector<std::pair<CopyPath, IterationTrace>> traces;
    for (int r = 0; r < request.repeats; ++r) {
      for (CopyPath path : request.paths) {
        if (cancel::requested()) return RunStatus::Cancelled;
        if (!pathUnsupported(path, request.srcGpu, request.dstGpu).empty()) continue;  // nothing to draw
        CopyRequest unit{path, request.srcGpu, request.dstGpu, request.sizeBytes, request.cus, 1, 1};
        unit.mode = TimingMode::OneShot;
        CopyMeasurement m;
        RunResult run = runPath(unit, true, false, m);
        if (m.status != RunStatus::Ok) {
          timelineFailure_ = m;
          return m.status;
        }
        traces.emplace_back(path, std::move(run.last));
      }
    }
    appendEvents(request, pair.gpu, traces, out);
  } catch (const GpuFailure& f) {
    timelineFailure_.status = RunStatus::Failed;
    timelineFailure_.errorCode = f.code;
    timelineFailure_.failure = f.message;
    timelineFailure_.hint = f.hint;
    return RunStatus::Failed;
  }
  return RunStatus::Ok;
}

std::optional<TimelineClock> GpuBackend::timelineClock() const {
#if defined(SDMA_GPU_NVIDIA)
  return TimelineClock{"globaltimer", clock_.uncertaintyNs};
#else
  return TimelineClock{"s_memrealtime", clock_.uncertaintyNs};
#endif
}

std::uint64_t GpuBackend::llcOf(const Pair& pair) const {
  std::uint64_t llc = l2Bytes_[static_cast<std::size_t>(pair.gpu)];
  for (int e : {pair.src, pair.dst}) {
    if (!isHost(e)) llc = std::max(llc, l2Bytes_[static_cast<std::size_t>(e)]);
  }
  return llc;
}

void GpuBackend::preparePair(Pair& pair, const RotationPlan& plan, std::uint64_t seed) {
  check(hipSetDevice(pair.gpu), "hipSetDevice");
  fillPatternKernel<<<kCheckBlocks, kCheckThreads, 0, pair.stream>>>(pair.srcRegion, plan.regionBytes, seed);
  check(hipGetLastError(), "pattern kernel");
  if (isHost(pair.dst)) {
    std::memset(pair.dstHost.ptr, kPoisonByte, plan.regionBytes);
  } else {
    check(hipSetDevice(pair.dst), "hipSetDevice");
    check(hipMemset(pair.dstRegion, kPoisonByte, plan.regionBytes), "hipMemset (poison)");
    settle(pair.dst);
  }
  settle(pair.gpu);
}

RunResult GpuBackend::runPath(const CopyRequest& request, bool trace, bool corrupt, CopyMeasurement& m) {
  if (std::string why = pathUnsupported(request.path, request.srcGpu, request.dstGpu); !why.empty()) {
    m.status = RunStatus::Failed;
    m.errorCode = "unsupported";
    m.failure = why;
    m.hint = "leave engine/device out of --paths for host and GPU-local copies";
    return {};
  }
  Pair& pair = ensurePair(request.srcGpu, request.dstGpu);
  DeviceScratch& s = scratch_.at(pair.gpu);
  const RotationPlan plan = planRotation(request.sizeBytes, llcOf(pair));
  ensureRegions(pair, plan.regionBytes);

  const std::uint64_t seed = mixSeed(mixSeed(options_.seed, request.sizeBytes), static_cast<std::uint64_t>(request.path));
  preparePair(pair, plan, seed);

  const int depth = request.mode == TimingMode::OneShot
                        ? 1
                        : pipelineDepth(request.sizeBytes, kBatchTargetBytes, kMaxPipelineDepth);
  RunResult run;
  run.opsPerIter = depth;
#if defined(SDMA_GPU_NVIDIA)
  if (!usesEngine(request.path) && request.blocksPerCu > 1) {
    // Measured on H200: 16 blocks sized for 2 per SM landed on 16 SMs, not 8. Without CU
    // masks the scheduler spreads blocks over idle SMs, so the SM count would be wrong.
    m.status = RunStatus::Failed;
    m.errorCode = "unsupported";
    m.failure = "--blocks-per-cu " + std::to_string(request.blocksPerCu) +
                ": NVIDIA GPUs have no CU masks, so blocks cannot be packed onto a chosen number of SMs";
    m.hint = "use --blocks-per-cu 1 (one block per SM; --cus then counts SMs exactly, as --trace shows)";
    return run;
  }
#endif
  if (request.engineId >= 0 && request.path == CopyPath::EngineHost) {
    runOnEngine(pair, plan, request, depth, run, m);
  } else {
    switch (request.path) {
      case CopyPath::CuHost:
      case CopyPath::EngineHost: runHostInitiated(pair, s, plan, request, depth, trace, run); break;
      case CopyPath::CuDevice: runCuDevice(pair, s, plan, request, depth, trace, run); break;
      case CopyPath::EngineDevice: runEngineDevice(pair, s, plan, request, depth, trace, run, m); break;
    }
  }
  if (m.status != RunStatus::Ok) return run;

  if (corrupt && !run.checkedByPeers) corruptOneByte(pair, plan, request.sizeBytes, seed);
  const std::uint64_t slotsUsed = std::min<std::uint64_t>(plan.slots, std::max<std::uint64_t>(run.opsDone, 1));
  if (auto wrong = run.checkedByPeers ? std::nullopt : checkCopy(pair, s, plan, request.sizeBytes, seed, slotsUsed)) {
    m.status = RunStatus::ValidationFailed;
    m.failure = *wrong;
    return run;
  }
  m.validated = true;
  m.cus = usesEngine(request.path) ? (request.path == CopyPath::EngineDevice ? 1 : 0) : request.cus;
  m.engines = usesEngine(request.path) ? 1 : 0;
  if (request.path == CopyPath::EngineDevice && m.label.empty()) m.label = "proxy-initiated";
  if (m.label.empty()) m.label = pair.hostLabel();
  if (request.engineId >= 0 && request.path == CopyPath::EngineHost) m.engineIds = {request.engineId};
  return run;
}

void GpuBackend::readBlockTrace(const DeviceScratch& s, int blocks, RunResult& run) const {
  run.last.blocks.resize(static_cast<std::size_t>(blocks));
  check(hipMemcpy(run.last.blocks.data(), s.trace, sizeof(BlockTrace) * run.last.blocks.size(), hipMemcpyDeviceToHost),
        "trace");
  std::set<std::uint64_t> cusSeen;
  double lo = 1e300, hi = 0;
  for (const BlockTrace& b : run.last.blocks) {
    cusSeen.insert((static_cast<std::uint64_t>(b.xcc) << 32) | b.cu);
    lo = std::min(lo, ticksToNs(b.startTicks));
    hi = std::max(hi, ticksToNs(b.endTicks));
  }
  run.cusSeen = static_cast<int>(cusSeen.size());
  run.last.startNs = lo;
  run.last.endNs = hi;
}

std::uint64_t GpuBackend::timeoutTicks() const {
#if defined(SDMA_GPU_NVIDIA)
  return static_cast<std::uint64_t>(kKernelTimeoutNs);
#else
  return static_cast<std::uint64_t>(kKernelTimeoutNs / 10.0);
#endif
}

int GpuBackend::timedIters(const CopyRequest& request, double estimateNs, int warmIters) const {
  const int most = kMaxItersPerLaunch - warmIters;
  return itersForTime(estimateNs, request.targetNs, std::min(request.iters, most), most);
}

void GpuBackend::settle(int device) {
  check(hipSetDevice(device), "hipSetDevice");
  check(hipDeviceSynchronize(), "hipDeviceSynchronize");
}

void GpuBackend::waitForKernel(hipStream_t stream, DeviceScratch& s, const char* what) {
  const double deadline = hostNowNs() + kHostTimeoutNs;
  while (true) {
    const hipError_t e = hipStreamQuery(stream);
    if (e == hipSuccess) break;
    if (e != hipErrorNotReady) check(e, what);
    if (hostNowNs() > deadline || cancel::requested()) s.controlHost->abort = 1;
    // Each query takes the runtime's locks, which the proxy thread needs for its
    // submissions: polling hot cost the proxy round trip about 1 us here.
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  if (s.controlHost->kernelError) {
    s.controlHost->kernelError = 0;
    s.controlHost->abort = 0;
    if (cancel::requested()) throw GpuFailure{"cancelled", "cancelled", ""};
    throw GpuFailure{"timeout", std::string(what) + ": the running kernel gave up waiting (timeout)",
                     "the GPU did not make progress within 10 s; check `nvidia-smi` / `rocm-smi` for other work or "
                     "a hung device"};
  }
}

void GpuBackend::resetIterationScratch(DeviceScratch& s, int iters) {
  check(hipMemset(s.iterStart, 0xFF, 8ull * iters), "hipMemset");
  check(hipMemset(s.iterEnd, 0, 8ull * iters), "hipMemset");
  check(hipMemset(s.blocksDone, 0, 4ull * iters), "hipMemset");
  check(hipMemset(s.barrier, 0, sizeof(GridBarrier)), "hipMemset");
  check(hipMemset(s.completedSeq, 0, 4), "hipMemset");
  check(hipDeviceSynchronize(), "hipDeviceSynchronize");
}

std::vector<double> GpuBackend::iterationTimes(DeviceScratch& s, int iters, int skip, int depth) {
  std::vector<unsigned long long> start(static_cast<std::size_t>(iters)), end(static_cast<std::size_t>(iters));
  check(hipMemcpy(start.data(), s.iterStart, 8ull * iters, hipMemcpyDeviceToHost), "iteration times");
  check(hipMemcpy(end.data(), s.iterEnd, 8ull * iters, hipMemcpyDeviceToHost), "iteration times");
  std::vector<double> times;
  for (int i = skip; i < iters; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    times.push_back((ticksToNs(end[k]) - ticksToNs(start[k])) / depth);
  }
  return times;
}

void GpuBackend::appendEvents(const TimelineRequest& request, int pairGpu,
                  const std::vector<std::pair<CopyPath, IterationTrace>>& traces, TimelineEvents& out) {
  double base = 1e300;
  for (const auto& [path, t] : traces) {
    base = std::min(base, t.startNs);
    if (t.ringNs >= 0) base = std::min(base, t.ringNs);
  }
  const auto gpu = static_cast<std::uint16_t>(pairGpu);  // the GPU that ran the copy
  const double bytes = static_cast<double>(request.sizeBytes);
  for (const auto& [path, t] : traces) {
    auto at = [&](double ns) { return ns - base; };
    if (path == CopyPath::EngineHost) {
      out.add({EventKind::Packet, PacketOp::Copy, path, gpu, 0, -1, at(t.startNs), at(t.endNs), at(t.startNs), bytes});
      continue;
    }
    out.add({EventKind::Kernel, PacketOp::None, path, gpu, 0, -1, at(t.startNs), at(t.endNs), -1, 0});
    if (path == CopyPath::EngineDevice) {
      const BlockTrace b = t.blocks.empty() ? BlockTrace{} : t.blocks[0];
      out.add({EventKind::Cu, PacketOp::None, path, gpu, b.cu, -1, at(t.startNs), at(t.endNs), -1, 0});
      const std::int32_t packetId = out.nextId() + 1;
      out.add({EventKind::Doorbell, PacketOp::None, path, gpu, 0, packetId, at(t.ringNs), at(t.ringNs), -1, 0});
      out.add({EventKind::Packet, PacketOp::CopySignal, path, gpu, 0, -1, at(t.submitNs), at(t.completeNs),
               at(t.pickupNs), bytes});
      out.add({EventKind::Proxy, PacketOp::None, path, gpu, 0, -1, at(t.pickupNs), at(t.submitNs), -1, 0});
      continue;
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(request.cus); ++i) {
      const BlockTrace b = i < t.blocks.size() ? t.blocks[i] : BlockTrace{};
      const double share = bytes / std::max<std::size_t>(1, t.blocks.size());
      out.add({EventKind::Cu, PacketOp::None, path, gpu, b.xcc * 1024u + b.cu, -1, at(ticksToNs(b.startTicks)),
               at(ticksToNs(b.endTicks)), -1, share});
    }
  }
}

}  // namespace
}  // namespace sdma::gpu
