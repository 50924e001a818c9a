#pragma once

// What one copy between two endpoints holds: pinned host memory near a GPU, device scratch,
// the pair's regions and streams, the result of one run.

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "endpoints.hpp"
#include "gpu/gpu_common.hpp"
#include "gpu/gpu_kernels.hpp"

namespace sdma::gpu {
namespace {

// ---- pinned host memory near a GPU ----
// Placement by the mbind(2) system call, so no libnuma is needed: MPOL_PREFERRED (1) on the
// fresh mapping before any page is touched, then the runtime registers (pins and maps) it,
// which faults every page in under that policy.
constexpr int kMpolPreferred = 1;
constexpr unsigned long kMpolFNode = 1, kMpolFAddr = 2;

long bindToNode(void* addr, std::size_t bytes, int node) {
  unsigned long mask[16] = {};  // 1024 nodes
  mask[node / 64] |= 1ul << (node % 64);
  return syscall(SYS_mbind, addr, bytes, kMpolPreferred, mask, sizeof mask * 8 + 1, 0u);
}

// The node a page of ours is on, or -1 where the kernel does not say.
int nodeOfPage(const void* addr) {
  int node = -1;
  if (syscall(SYS_get_mempolicy, &node, nullptr, 0ul, const_cast<void*>(addr), kMpolFNode | kMpolFAddr) != 0) return -1;
  return node;
}

struct HostBuffer {
  unsigned char* ptr = nullptr;  // the CPU's address (the runtime's copy calls take it too)
  unsigned char* dev = nullptr;  // the GPUs' address of the same memory (kernels)
  std::uint64_t bytes = 0;
  bool registered = false;       // mmap + register (placed) rather than the runtime's allocation
  int numaNode = -1;             // where its pages are, -1 unknown
  std::string why;               // why it is not placed, when it is not
};

void freeHostBuffer(HostBuffer& b) {
  if (b.ptr == nullptr) return;
  if (b.registered) {
    (void)hipHostUnregister(b.ptr);
    munmap(b.ptr, b.bytes);
  } else {
    (void)hipHostFree(b.ptr);
  }
  b = {};
}

// Pinned, mapped for every GPU (portable), on `node` when it is known (>= 0) and the
// platform lets us place it; otherwise the runtime's own allocation, wherever the kernel puts it.
HostBuffer allocHostBuffer(std::uint64_t bytes, int node) {
  HostBuffer b;
  b.bytes = bytes;
  if (node >= 0) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw GpuFailure{"out-of-memory", "mmap of " + std::to_string(bytes) + " bytes of host memory failed",
                                          "use smaller --sizes or free host memory"};
    if (bindToNode(p, bytes, node) != 0) {
      b.why = std::string("mbind refused (") + std::strerror(errno) + ")";
      munmap(p, bytes);
    } else {
      const hipError_t e = hipHostRegister(p, bytes, hipHostRegisterMapped | hipHostRegisterPortable);
      if (e == hipSuccess) {
        b.ptr = static_cast<unsigned char*>(p);
        b.registered = true;
        void* dev = nullptr;
        check(hipHostGetDevicePointer(&dev, p, 0), "hipHostGetDevicePointer (host buffer)");
        b.dev = static_cast<unsigned char*>(dev);
        const int seen = nodeOfPage(p);
        b.numaNode = seen >= 0 ? seen : node;
        return b;
      }
      (void)hipGetLastError();
      b.why = std::string("registering placed memory failed (") + hipGetErrorName(e) + ")";
      munmap(p, bytes);
    }
  } else {
    b.why = "the platform does not say which NUMA node is nearest the GPU";
  }
  void* p = nullptr;
  check(hipHostMalloc(&p, bytes, hipHostMallocMapped | hipHostMallocPortable), "hipHostMalloc (host buffer)");
  b.ptr = static_cast<unsigned char*>(p);
  void* dev = nullptr;
  check(hipHostGetDevicePointer(&dev, p, 0), "hipHostGetDevicePointer (host buffer)");
  b.dev = static_cast<unsigned char*>(dev);
  return b;
}

// Validation of a host destination, on the host: the check kernel's rules (pattern in every

std::string endpointName(int endpoint) { return isHost(endpoint) ? "host" : "GPU " + std::to_string(endpoint); }

struct PeerLink {
  std::string kind = "pcie";
  int count = 0;
  double gbpsPerDirection = 0;
};

// ---- the backend ----
struct DeviceScratch {
  HostControl* controlHost = nullptr;
  HostControl* controlDev = nullptr;
  GridBarrier* barrier = nullptr;
  unsigned int* blocksDone = nullptr;
  unsigned long long* iterStart = nullptr;
  unsigned long long* iterEnd = nullptr;
  unsigned long long* ringTicks = nullptr;
  unsigned long long* stamp = nullptr;
  std::uint32_t* completedSeq = nullptr;
  BlockTrace* trace = nullptr;
  CheckResult* check = nullptr;
  std::uint32_t gateValue = 0;
  std::uint32_t goValue = 0;
};

// The endpoints of a copy and what runs it. `gpu` runs the streams, kernels and checks: the
// source GPU, or the destination GPU when the source is host memory. A host endpoint's
// region is pinned host memory on the NUMA node nearest that GPU (where the platform says).
struct Pair {
  int src = 0, dst = 0;  // GPU index or kHostEndpoint; src == dst: GPU-local
  int gpu = 0;
  hipStream_t stream{};       // on gpu: launches, host-initiated copies
  hipStream_t proxyStream{};  // on gpu: the proxy's copies and completion writes
  hipEvent_t start{}, end{}, stampDone{};
  unsigned char* srcRegion = nullptr;  // device address of the source (host buffer: its mapped address)
  unsigned char* dstRegion = nullptr;  // device address of the destination
  HostBuffer srcHost, dstHost;         // set for host endpoints
  std::uint64_t regionBytes = 0;
  std::map<int, hipStream_t> cuMaskStreams;  // AMD: one stream per CU count
  bool peer() const { return !isHost(src) && !isHost(dst) && src != dst; }
  // The addresses the runtime's copy calls take: the CPU's for host memory.
  unsigned char* srcCopy() const { return isHost(src) ? srcHost.ptr : srcRegion; }
  unsigned char* dstCopy() const { return isHost(dst) ? dstHost.ptr : dstRegion; }
  // Where a host endpoint's pages are, for the sample's label.
  std::string hostLabel() const {
    const HostBuffer& h = isHost(src) ? srcHost : dstHost;
    if (!isHost(src) && !isHost(dst)) return {};
    return h.numaNode >= 0 ? "host-numa-" + std::to_string(h.numaNode) : "host-numa-unknown";
  }
};

// A copy within one GPU on an engine: HIP's hipMemcpyDeviceToDeviceNoCU (HIP 6.1 on), which CLR
// turns into an SDMA copy (ROCm/clr hipamd/src/hip_memory.cpp, ihipGetMemcpyType: same device and
// this kind -> hipCopyBufferSDMA); plain hipMemcpyDeviceToDevice within a GPU is CLR's blit kernel
// on the CUs at every size. Found by overload: a HIP without the enumerator (and CUDA, whose
// device-to-device copy already runs on a copy engine) keeps hipMemcpyDeviceToDevice.
template <class Kind>
constexpr auto localEngineKind(int) -> decltype(Kind::hipMemcpyDeviceToDeviceNoCU) {
  return Kind::hipMemcpyDeviceToDeviceNoCU;
}
template <class Kind>
constexpr Kind localEngineKind(...) {
  return hipMemcpyDeviceToDevice;
}
constexpr hipMemcpyKind kLocalEngineKind = localEngineKind<hipMemcpyKind>(0);

// The engine path between two endpoints: a peer copy between GPUs, else the runtime's
// host-to-device, device-to-host or (on an engine) device-to-device copy.
hipError_t engineCopy(const Pair& pair, std::uint64_t offset, std::uint64_t bytes, hipStream_t stream) {
  if (pair.peer()) {
    return hipMemcpyPeerAsync(pair.dstRegion + offset, pair.dst, pair.srcRegion + offset, pair.src, bytes, stream);
  }
  const hipMemcpyKind kind = isHost(pair.src)   ? hipMemcpyHostToDevice
                             : isHost(pair.dst) ? hipMemcpyDeviceToHost
                                                : kLocalEngineKind;
  return hipMemcpyAsync(pair.dstCopy() + offset, pair.srcCopy() + offset, bytes, kind, stream);
}

// Raw trace of one iteration, for the timeline.
struct IterationTrace {
  std::vector<BlockTrace> blocks;
  double startNs = 0, endNs = 0;  // device clock, ns
  // engine/device
  double ringNs = -1, pickupNs = -1, submitNs = -1, completeNs = -1;
};

struct RunResult {
  std::vector<double> timesNs;  // per copy, timed iterations only
  int opsPerIter = 1;
  std::uint64_t opsDone = 0;
  std::optional<int> cusSeen;
  IterationTrace last;
  bool checkedByPeers = false;  // AMD engine/device: the rocSHMEM PEs validated the copy themselves
};

}  // namespace
}  // namespace sdma::gpu
