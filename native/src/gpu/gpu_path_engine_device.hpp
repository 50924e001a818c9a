#pragma once

// engine/device: a running kernel asks for an engine copy (NVIDIA: through a host proxy
// thread; AMD: rocSHMEM's device API in its own PE processes).

#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "gpu/gpu_backend_class.hpp"
#include "gpu/rocshmem_launcher.hpp"

namespace sdma::gpu {
namespace {

// ---- how the NVIDIA proxy thread submits (engine/device) ----
// SDMA_LENS_PROXY_SUBMIT=runtime|driver picks the copy call, SDMA_LENS_PROXY_PIN=0|1 keeps the
// proxy thread on the CPU it started on. Both exist to compare submissions on one node; the
// defaults are the fastest measured (docs/MEASUREMENT.md).
struct ProxyTuning {
  bool viaDriver = true;
  bool pinned = true;
};

[[maybe_unused]] ProxyTuning readProxyTuning() {
  ProxyTuning t;
  if (const char* v = std::getenv("SDMA_LENS_PROXY_SUBMIT")) t.viaDriver = std::strcmp(v, "runtime") != 0;
  if (const char* v = std::getenv("SDMA_LENS_PROXY_PIN")) t.pinned = std::strcmp(v, "0") != 0;
  return t;
}

[[maybe_unused]] void pinToCurrentCpu() {
  const int cpu = sched_getcpu();
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)sched_setaffinity(0, sizeof(set), &set);  // best effort: a refused pin leaves the thread free
}

void GpuBackend::runEngineDevice(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
                     bool trace, RunResult& run, CopyMeasurement& m) {
#if defined(SDMA_GPU_AMD)
  (void)s;
#if defined(SDMA_HAVE_ROCSHMEM_PE)
  PePutRequest put;
  put.srcGpu = pair.src;
  put.dstGpu = pair.dst;
  put.sizeBytes = request.sizeBytes;
  put.strideBytes = plan.strideBytes;
  put.slots = plan.slots;
  put.regionBytes = plan.regionBytes;
  put.warmupIters = std::max(1, request.warmupIters);
  put.iters = request.iters;
  put.maxIters = kMaxItersPerLaunch;
  put.depth = depth;
  put.targetNs = request.targetNs;
  put.seed = mixSeed(mixSeed(options_.seed, request.sizeBytes), static_cast<std::uint64_t>(request.path));
  put.trace = trace;
  put.corrupt = request.corruptCopy;
  const PePutResult r = runRocshmemPut(peBinaryNextToHelper(), put, [] { return cancel::requested(); });
  if (r.status == "validation") {
    m.status = RunStatus::ValidationFailed;
    m.failure = r.failure;
    return;
  }
  if (r.status == "cancelled") throw GpuFailure{"cancelled", "cancelled", ""};
  if (r.status != "ok") throw GpuFailure{r.status, r.failure, r.hint};
  run.timesNs = r.timesNs;
  run.opsDone = r.opsDone;
  run.checkedByPeers = true;  // PE 0 checked PE 1's heap: pair.dstRegion was not written
  m.label = "rocshmem-sdma";
  if (r.traced) {
    // Observable: the put calls (packets written, doorbells rung inside rocSHMEM) and the
    // return of rocshmem_quiet. Not observable: when an engine started or which one ran.
    run.last.blocks = {BlockTrace{static_cast<std::uint64_t>(r.trace.startNs / 10.0),
                                  static_cast<std::uint64_t>(r.trace.completeNs / 10.0), r.trace.cu, r.trace.xcc}};
    run.last.startNs = r.trace.startNs;
    run.last.endNs = r.trace.completeNs;
    run.last.ringNs = r.trace.issuedNs;
    run.last.pickupNs = r.trace.issuedNs;
    run.last.submitNs = r.trace.issuedNs;
    run.last.completeNs = r.trace.completeNs;
    run.cusSeen = 1;
  }
#else
  (void)pair, (void)plan, (void)request, (void)depth, (void)trace, (void)run;
  m.status = RunStatus::Failed;
#if defined(SDMA_ROCSHMEM_UNUSABLE)
  m.errorCode = "library-too-old";
  m.failure = std::string("engine/device on AMD needs rocSHMEM with unique-id initialization and its SDMA "
                          "transport, and ") + SDMA_ROCSHMEM_UNUSABLE;
  m.hint = "install a rocSHMEM built with USE_SDMA (ROCm 7.1 or newer) and rebuild native/, or drop "
           "engine/device from --paths";
#else
  m.errorCode = "library-not-found";
  m.failure = "engine/device on AMD needs rocSHMEM (with its SDMA transport), and none was found when this "
              "sdma-probe was built";
  m.hint = "install rocSHMEM built with USE_SDMA under ROCM_PATH (or set SDMA_ROCSHMEM_ROOT) and rebuild native/, "
           "or drop engine/device from --paths";
#endif
#endif
#else
  if (!haveStreamMemOps()) {
    m.status = RunStatus::Failed;
    m.errorCode = "driver-too-old";
    m.failure = "the driver has no stream memory operations (cuStreamWriteValue32), which the proxy needs";
    m.hint = "update the NVIDIA driver to one matching CUDA 12 or newer";
    return;
  }
  HostControl* control = s.controlHost;
  static const ProxyTuning proxyTuning = readProxyTuning();
  struct ProxyRecord {
    double pickupNs = -1, submitNs = -1;
  };
  auto launch = [&](int iters, std::vector<ProxyRecord>& records) {
    resetIterationScratch(s, iters);
    const std::uint64_t totalOps = static_cast<std::uint64_t>(iters) * depth;
    records.assign(totalOps, {});
    control->doorbell = 0;
    std::atomic<bool> stop{false};
    std::string proxyError;
    std::thread proxy([&] {
      (void)hipSetDevice(pair.src);
      if (proxyTuning.pinned) pinToCurrentCpu();
      std::uint64_t seen = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        const std::uint64_t rung = control->doorbell;
        while (seen < rung) {
          const double pickup = hostNowNs();
          const volatile Descriptor& d = control->ring[seen % kRingSlots];
          const std::uint64_t srcOffset = d.srcOffset, dstOffset = d.dstOffset, bytes = d.bytes;
          // Peer access is on, so a plain device-to-device copy goes to the copy engine over
          // the link, with less API work than the Peer variant on this latency-bound path.
          hipError_t e = proxyCopy(pair.dstRegion + dstOffset, pair.srcRegion + srcOffset, bytes,
                                   pair.proxyStream, proxyTuning.viaDriver);
          if (e == hipSuccess) e = streamWrite(pair.proxyStream, s.completedSeq, static_cast<std::uint32_t>(seen + 1));
          if (e != hipSuccess) {
            proxyError = errorText(e);
            control->abort = 1;
            return;
          }
          records[seen] = {pickup, hostNowNs()};
          ++seen;
        }
      }
    });
    DeviceScratch* sp = &s;
    ProxyArgs a{request.sizeBytes, plan.strideBytes, plan.slots, iters, depth, ++s.goValue, timeoutTicks(),
                s.controlDev, s.completedSeq, s.iterStart, s.iterEnd, s.ringTicks, trace ? s.trace : nullptr};
    proxyKernel<<<1, 32, 0, pair.stream>>>(a);
    const hipError_t launched = hipGetLastError();
    if (launched == hipSuccess) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      control->go = s.goValue;
    }
    try {
      if (launched != hipSuccess) check(launched, "proxy kernel launch");
      waitForKernel(pair.stream, *sp, "engine/device kernel");
    } catch (...) {
      stop = true;
      proxy.join();
      throw;
    }
    stop = true;
    proxy.join();
    check(hipStreamSynchronize(pair.proxyStream), "proxy copies");
    if (!proxyError.empty()) throw GpuFailure{"runtime", "proxy copy failed: " + proxyError, ""};
  };
  std::vector<ProxyRecord> records;
  const int warm = std::max(1, request.warmupIters);
  launch(warm, records);
  const std::vector<double> warmTimes = iterationTimes(s, warm, 0, depth);
  const int iters = timedIters(request, warmTimes.back() * depth, warm);
  launch(warm + iters, records);
  run.timesNs = iterationTimes(s, warm + iters, warm, depth);
  run.opsDone = static_cast<std::uint64_t>(warm + iters) * depth;
  if (trace) {
    const std::size_t lastOp = records.size() - 1;
    std::vector<unsigned long long> rings(records.size()), ends(static_cast<std::size_t>(warm + iters));
    check(hipMemcpy(rings.data(), s.ringTicks, 8 * rings.size(), hipMemcpyDeviceToHost), "trace");
    check(hipMemcpy(ends.data(), s.iterEnd, 8 * ends.size(), hipMemcpyDeviceToHost), "trace");
    BlockTrace kernelSpan{};
    check(hipMemcpy(&kernelSpan, s.trace, sizeof kernelSpan, hipMemcpyDeviceToHost), "trace");
    run.last.blocks = {kernelSpan};
    run.last.ringNs = ticksToNs(rings[lastOp]);
    run.last.pickupNs = records[lastOp].pickupNs + clock_.offsetNs;
    run.last.submitNs = records[lastOp].submitNs + clock_.offsetNs;
    run.last.completeNs = ticksToNs(ends.back());
    run.last.startNs = ticksToNs(kernelSpan.startTicks);
    run.last.endNs = ticksToNs(kernelSpan.endTicks);
    run.cusSeen = 1;
  }
#endif
}

}  // namespace
}  // namespace sdma::gpu
