#pragma once

// The copy check (the check kernel, or on the host for a host destination), the fault that
// damages one byte, and the host-to-device clock alignment of the timeline.

#include <algorithm>
#include <thread>

#include "gpu/gpu_backend_class.hpp"
#include "rng.hpp"

namespace sdma::gpu {
namespace {

struct HostCheck {
  std::uint64_t wrongBytes = 0;
  std::uint64_t firstWrongOffset = ~0ull;
};

HostCheck checkOnHost(const unsigned char* dst, std::uint64_t bytes, std::uint64_t strideBytes, std::uint64_t sizeBytes,
                      std::uint64_t seed) {
  const std::uint64_t words = bytes / 8;
  const unsigned hw = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  const std::uint64_t perThread = (words + hw - 1) / hw;
  std::vector<HostCheck> parts(hw);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < hw; ++t) {
    threads.emplace_back([&, t] {
      const std::uint64_t begin = t * perThread, end = std::min(words, begin + perThread);
      HostCheck& part = parts[t];
      for (std::uint64_t i = begin; i < end; ++i) {
        std::uint64_t got;
        std::memcpy(&got, dst + i * 8, 8);
        const std::uint64_t offset = i * 8;
        const std::uint64_t want = expectedWord(seed, i, strideBytes, sizeBytes);
        if (got == want) continue;
        for (int k = 0; k < 8; ++k) {
          if (((got ^ want) >> (8 * k)) & 0xFF) {
            ++part.wrongBytes;
            part.firstWrongOffset = std::min<std::uint64_t>(part.firstWrongOffset, offset + k);
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  HostCheck all;
  for (const HostCheck& part : parts) {
    all.wrongBytes += part.wrongBytes;
    all.firstWrongOffset = std::min(all.firstWrongOffset, part.firstWrongOffset);
  }
  return all;
}

void GpuBackend::corruptOneByte(Pair& pair, const RotationPlan& plan, std::uint64_t sizeBytes, std::uint64_t seed) {
  const std::uint64_t offset = sizeBytes / 2;
  const unsigned char wrong = static_cast<unsigned char>(~expectedByte(seed, offset, plan.strideBytes, sizeBytes));
  settle(pair.gpu);
  if (isHost(pair.dst)) {
    pair.dstHost.ptr[offset] = wrong;
    return;
  }
  check(hipSetDevice(pair.dst), "hipSetDevice");
  check(hipMemcpy(pair.dstRegion + offset, &wrong, 1, hipMemcpyHostToDevice), "corrupt");
  settle(pair.dst);
}

std::optional<std::string> GpuBackend::checkCopy(Pair& pair, DeviceScratch& s, const RotationPlan& plan, std::uint64_t sizeBytes,
                                     std::uint64_t seed, std::uint64_t slotsUsed) {
  CheckResult result{0, ~0ull};
  unsigned char got = 0;
  if (isHost(pair.dst)) {
    // A host destination is checked where it is, by the CPU, once every copy has finished.
    settle(pair.gpu);
    const HostCheck h = checkOnHost(pair.dstHost.ptr, slotsUsed * plan.strideBytes, plan.strideBytes, sizeBytes, seed);
    result = {h.wrongBytes, h.firstWrongOffset};
    if (result.wrongBytes == 0) return std::nullopt;
    got = pair.dstHost.ptr[result.firstWrongOffset];
  } else {
    check(hipSetDevice(pair.gpu), "hipSetDevice");
    CheckResult init{0, ~0ull};
    check(hipMemcpy(s.check, &init, sizeof init, hipMemcpyHostToDevice), "check init");
    settle(pair.gpu);
    // The check runs on the pair's GPU: between GPUs the source GPU reads the destination
    // over the link (no second set of scratch, and the bytes checked are the ones the peer
    // holds); host -> GPU and GPU-local copies are checked in the GPU's own memory.
    checkKernel<<<kCheckBlocks, kCheckThreads, 0, pair.stream>>>(pair.dstRegion, slotsUsed * plan.strideBytes,
                                                                 plan.strideBytes, sizeBytes, seed, s.check);
    check(hipGetLastError(), "check kernel");
    check(hipStreamSynchronize(pair.stream), "check kernel");
    check(hipMemcpy(&result, s.check, sizeof result, hipMemcpyDeviceToHost), "check result");
    if (result.wrongBytes == 0) return std::nullopt;
    check(hipMemcpy(&got, pair.dstRegion + result.firstWrongOffset, 1, hipMemcpyDeviceToHost), "check byte");
  }
  const std::uint64_t off = result.firstWrongOffset;
  const std::uint64_t slot = off / plan.strideBytes, inSlot = off % plan.strideBytes;
  char text[256];
  std::snprintf(text, sizeof text, "%llu wrong byte(s) in the destination (%s); first at byte %llu of slot %llu%s: "
                "0x%02x, expected 0x%02x",
                static_cast<unsigned long long>(result.wrongBytes), isHost(pair.dst) ? "host memory" : "GPU memory",
                static_cast<unsigned long long>(inSlot), static_cast<unsigned long long>(slot),
                inSlot >= sizeBytes ? " (guard past the end)" : "", got, expectedByte(seed, off, plan.strideBytes, sizeBytes));
  return std::string(text);
}

void GpuBackend::alignClock(Pair& pair) {
  if (clock_.rounds > 0) return;
  DeviceScratch& s = scratch_.at(pair.gpu);
  HostControl* c = s.controlHost;
  c->ping = 0;
  c->pongAck = 0;
  clockPingKernel<<<1, 32, 0, pair.stream>>>(s.controlDev, kClockPingRounds, timeoutTicks());
  check(hipGetLastError(), "clock ping kernel");
  std::vector<ClockPing> pings;
  for (int r = 1; r <= kClockPingRounds; ++r) {
    const double sendNs = hostNowNs();
    c->ping = static_cast<std::uint32_t>(r);
    const double deadline = sendNs + 1e9;
    while (c->pongAck != static_cast<std::uint32_t>(r) && hostNowNs() < deadline) {
    }
    const double receiveNs = hostNowNs();
    if (c->pongAck != static_cast<std::uint32_t>(r)) break;
    pings.push_back({sendNs, receiveNs, ticksToNs(c->pongTicks)});
  }
  if (pings.size() < static_cast<std::size_t>(kClockPingRounds)) c->abort = 1;
  waitForKernel(pair.stream, s, "clock ping kernel");
  clock_ = alignClocks(pings);
}

}  // namespace
}  // namespace sdma::gpu
