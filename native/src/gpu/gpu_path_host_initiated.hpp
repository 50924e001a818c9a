#pragma once

// cu/host and engine/host: copies the host starts, behind a gate; engine/host also on one
// named SDMA engine (AMD).

#include "gpu/gpu_backend_class.hpp"

namespace sdma::gpu {
namespace {

void GpuBackend::runHostInitiated(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
                      bool trace, RunResult& run) {
  const bool cu = request.path == CopyPath::CuHost;
  const hipStream_t stream = cu ? streamFor(pair, request.cus) : pair.stream;
  const int blocks = request.cus * request.blocksPerCu;
  const int threads = threadsFor(request.blocksPerCu);
  const int sharedBytes = cu ? sharedBytesForBlocksPerCu(pair.gpu, request.blocksPerCu) : 0;
  if (cu && sharedBytes > 0) {
    check(hipFuncSetAttribute(reinterpret_cast<const void*>(&copyKernel), hipFuncAttributeMaxDynamicSharedMemorySize,
                              sharedBytes),
          "hipFuncSetAttribute");
  }
  std::uint64_t op = 0;
  auto iteration = [&](bool traceThis) -> double {
    // Without stream memory operations (or where the driver refuses them on host memory)
    // the copies run ungated; the sample then includes the enqueue cost, and says so.
    if (gateWorks_ && haveStreamMemOps() &&
        streamWaitAtLeast(stream, const_cast<std::uint32_t*>(&s.controlDev->gate), s.gateValue + 1) == hipSuccess) {
      ++s.gateValue;
    } else if (gateWorks_) {
      gateWorks_ = false;
      std::fprintf(stderr, "sdma-probe: the stream gate is unavailable; host-initiated copies run ungated\n");
    }
    if (traceThis && !cu) {
      stampKernel<<<1, 32, 0, stream>>>(s.stamp);
      check(hipEventRecord(pair.stampDone, stream), "hipEventRecord");
    }
    check(hipEventRecord(pair.start, stream), "hipEventRecord");
    for (int b = 0; b < depth; ++b, ++op) {
      const std::uint64_t offset = (op % plan.slots) * plan.strideBytes;
      if (cu) {
        copyKernel<<<blocks, threads, static_cast<std::size_t>(sharedBytes), stream>>>(
            pair.srcRegion + offset, pair.dstRegion + offset, request.sizeBytes, traceThis ? s.trace : nullptr);
        check(hipGetLastError(), "copy kernel launch");
      } else {
        check(engineCopy(pair, offset, request.sizeBytes, stream), pair.peer() ? "hipMemcpyPeerAsync" : "hipMemcpyAsync");
      }
    }
    check(hipEventRecord(pair.end, stream), "hipEventRecord");
    s.controlHost->gate = s.gateValue;  // release: everything is queued
    check(hipEventSynchronize(pair.end), "copy");
    float ms = 0;
    check(hipEventElapsedTime(&ms, pair.start, pair.end), "hipEventElapsedTime");
    return ms * 1e6 / depth;
  };
  double warmNs = 0;
  for (int w = 0; w < std::max(1, request.warmupIters); ++w) warmNs = iteration(false);
  const int iters = timedIters(request, warmNs * depth, 0);
  for (int i = 0; i < iters; ++i) {
    if (cancel::requested()) break;
    run.timesNs.push_back(iteration(trace));
  }
  run.opsDone = op;
  if (!trace) return;
  if (cu) {
    readBlockTrace(s, blocks, run);
  } else {
    unsigned long long stamp = 0;
    check(hipMemcpy(&stamp, s.stamp, 8, hipMemcpyDeviceToHost), "stamp");
    float msToStart = 0, msToEnd = 0;
    check(hipEventElapsedTime(&msToStart, pair.stampDone, pair.start), "hipEventElapsedTime");
    check(hipEventElapsedTime(&msToEnd, pair.stampDone, pair.end), "hipEventElapsedTime");
    run.last.startNs = ticksToNs(stamp) + msToStart * 1e6;
    run.last.endNs = ticksToNs(stamp) + msToEnd * 1e6;
  }
}

void GpuBackend::runOnEngine(Pair& pair, const RotationPlan& plan, const CopyRequest& request, int depth, RunResult& run,
                 CopyMeasurement& m) {
#if defined(SDMA_HAVE_COPY_ON_ENGINE)
  if (static_cast<std::size_t>(pair.gpu) >= agents_.size() ||
      (static_cast<std::size_t>(std::max(pair.src, pair.dst)) >= agents_.size())) {
    throw GpuFailure{"runtime", "no HSA agent matches the HIP devices", ""};
  }
  // Host memory is named by a CPU agent (its pages are pinned and mapped for the GPU): on a
  // host <-> GPU copy ROCr then picks among the GPU's PCIe SDMA engines.
  auto agentOf = [&](int endpoint) {
    if (!isHost(endpoint)) return agents_[static_cast<std::size_t>(endpoint)];
    if (!cpuAgent_) cpuAgent_ = firstCpuAgent();
    if (!cpuAgent_) throw GpuFailure{"runtime", "ROCr lists no CPU agent for host memory", ""};
    return *cpuAgent_;
  };
  const hsa_agent_t srcAgent = agentOf(pair.src);
  const hsa_agent_t dstAgent = agentOf(pair.dst);
  const auto engine = static_cast<hsa_amd_sdma_engine_id_t>(1u << request.engineId);
  std::uint32_t available = 0;
  if (hsa_amd_memory_copy_engine_status(dstAgent, srcAgent, &available) != HSA_STATUS_SUCCESS ||
      (available & static_cast<std::uint32_t>(engine)) == 0) {
    m.status = RunStatus::Failed;
    m.errorCode = "engine-unavailable";
    m.failure = "SDMA engine " + std::to_string(request.engineId) + " cannot copy from " + endpointName(pair.src) +
                " to " + endpointName(pair.dst) + " now (available mask 0x" +
                [&] { char hex[16]; std::snprintf(hex, sizeof hex, "%x", available); return std::string(hex); }() + ")";
    m.hint = "pick an engine from the mask (bit n = engine n), or leave out --engine";
    return;
  }
  hsa_signal_t done{};
  if (hsa_signal_create(0, 0, nullptr, &done) != HSA_STATUS_SUCCESS) throw GpuFailure{"runtime", "hsa_signal_create", ""};
  std::uint64_t op = 0;
  auto iteration = [&]() -> double {
    hsa_signal_store_relaxed(done, depth);
    const double t0 = hostNowNs();
    for (int b = 0; b < depth; ++b, ++op) {
      const std::uint64_t offset = (op % plan.slots) * plan.strideBytes;
      // Device addresses: a host buffer's mapped address is the one every agent can use.
      if (hsa_amd_memory_async_copy_on_engine(pair.dstRegion + offset, dstAgent, pair.srcRegion + offset, srcAgent,
                                              request.sizeBytes, 0, nullptr, done, engine, true) !=
          HSA_STATUS_SUCCESS) {
        throw GpuFailure{"runtime", "hsa_amd_memory_async_copy_on_engine failed", ""};
      }
    }
    hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_ACTIVE);
    return (hostNowNs() - t0) / depth;
  };
  double warmNs = 0;
  for (int w = 0; w < std::max(1, request.warmupIters); ++w) warmNs = iteration();
  const int iters = timedIters(request, warmNs * depth, 0);
  for (int i = 0; i < iters && !cancel::requested(); ++i) run.timesNs.push_back(iteration());
  run.opsDone = op;
  hsa_signal_destroy(done);
#else
  (void)pair, (void)plan, (void)depth, (void)run, (void)request;
  m.status = RunStatus::Failed;
#if defined(SDMA_GPU_NVIDIA)
  m.errorCode = "unsupported";
  m.failure = "the CUDA runtime does not let a program choose the copy engine (--engine " +
              std::to_string(request.engineId) + ")";
  m.hint = "leave out --engine on NVIDIA GPUs";
#else
  m.errorCode = "unsupported";
  m.failure = "--engine needs hsa_amd_memory_async_copy_on_engine (ROCm 5.7 or newer); this sdma-probe was "
              "built against older ROCm headers";
  m.hint = "rebuild native/ against ROCm 5.7 or newer, or leave out --engine";
#endif
#endif
}

}  // namespace
}  // namespace sdma::gpu
