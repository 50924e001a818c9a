#pragma once

// cu/device: a persistent kernel's blocks copy, started by the device itself.

#include "gpu/gpu_backend_class.hpp"

namespace sdma::gpu {
namespace {

void GpuBackend::runCuDevice(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
                 bool trace, RunResult& run) {
  const int blocks = request.cus * request.blocksPerCu;
  const int threads = threadsFor(request.blocksPerCu);
  const int sharedBytes = sharedBytesForBlocksPerCu(pair.gpu, request.blocksPerCu);
  if (sharedBytes > 0) {
    check(hipFuncSetAttribute(reinterpret_cast<const void*>(&deviceCopyKernel),
                              hipFuncAttributeMaxDynamicSharedMemorySize, sharedBytes),
          "hipFuncSetAttribute");
  }
  const hipStream_t stream = streamFor(pair, request.cus);
  auto launch = [&](int iters) {
    resetIterationScratch(s, iters);
    DeviceCopyArgs a{pair.srcRegion, pair.dstRegion, request.sizeBytes, plan.strideBytes, plan.slots, iters, depth,
                     ++s.goValue, timeoutTicks(), s.controlDev, s.barrier, s.blocksDone, s.iterStart, s.iterEnd,
                     trace ? s.trace : nullptr};
    void* args[] = {&a};
    check(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&deviceCopyKernel), dim3(blocks), dim3(threads),
                                     args, static_cast<unsigned int>(sharedBytes), stream),
          "cooperative launch (cu/device)");
    // The kernel is resident and polling before the copy is asked for: no launch is timed.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    s.controlHost->go = s.goValue;
    waitForKernel(stream, s, "cu/device kernel");
  };
  const int warm = std::max(1, request.warmupIters);
  launch(warm);
  const std::vector<double> warmTimes = iterationTimes(s, warm, 0, depth);
  const int iters = timedIters(request, warmTimes.back() * depth, warm);
  launch(warm + iters);
  run.timesNs = iterationTimes(s, warm + iters, warm, depth);
  run.opsDone = static_cast<std::uint64_t>(warm + iters) * depth;
  if (trace) {
    readBlockTrace(s, blocks, run);
  }
}

}  // namespace
}  // namespace sdma::gpu
