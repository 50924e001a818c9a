#pragma once

// The GPU backend's host side, one source for both vendors: cuda_backend.cu and
// hip_backend.hip each include it once. The measurement method is docs/MEASUREMENT.md.

#include <dirent.h>
#include <dlfcn.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cancel.hpp"
#include "gpu/gpu_backend.hpp"
#include "gpu/gpu_kernels.hpp"
#include "gpu/rocshmem_launcher.hpp"
#include "gpu/timing_plan.hpp"
#include "rng.hpp"

namespace sdma::gpu {
namespace {

constexpr int kMaxItersPerLaunch = 10000;
constexpr int kMaxPipelineDepth = 256;
// A pipelined iteration moves at least this much, so per-copy overheads overlap.
constexpr std::uint64_t kBatchTargetBytes = 64ull << 20;
constexpr double kKernelTimeoutNs = 10e9;
constexpr double kHostTimeoutNs = 120e9;
constexpr int kClockPingRounds = 64;
constexpr int kCheckBlocks = 1024;
constexpr int kCheckThreads = 256;

double hostNowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string errorText(hipError_t e) { return std::string(hipGetErrorName(e)) + ": " + hipGetErrorString(e); }

// A GPU call failed: carried up to measure() as an error record.
struct GpuFailure {
  std::string code;
  std::string message;
  std::string hint;
};

void check(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  (void)hipGetLastError();
  if (e == hipErrorMemoryAllocation) {
    throw GpuFailure{"out-of-memory", std::string(what) + ": " + errorText(e),
                     "the GPU has too little free memory for this size: use smaller --sizes or free the GPU"};
  }
  throw GpuFailure{"runtime", std::string(what) + ": " + errorText(e), ""};
}

// ---- stream memory operations (the gate and the proxy's completion write) ----
#if defined(SDMA_GPU_NVIDIA)
// Reached through the runtime's entry-point query, so the binary needs no libcuda at link
// time and still starts (and reports "no GPU") on machines without a driver.
using WaitValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WriteValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using MemcpyDtoDAsyncFn = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
WaitValueFn gWaitValue = nullptr;
WriteValueFn gWriteValue = nullptr;
MemcpyDtoDAsyncFn gMemcpyDtoDAsync = nullptr;

void loadStreamMemOps() {
  cudaDriverEntryPointQueryResult status{};
  void* fn = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &fn, 12000, cudaEnableDefault, &status) ==
          cudaSuccess && status == cudaDriverEntryPointSuccess) {
    gWaitValue = reinterpret_cast<WaitValueFn>(fn);
  }
  fn = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &fn, 12000, cudaEnableDefault, &status) ==
          cudaSuccess && status == cudaDriverEntryPointSuccess) {
    gWriteValue = reinterpret_cast<WriteValueFn>(fn);
  }
  fn = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuMemcpyDtoDAsync", &fn, 12000, cudaEnableDefault, &status) ==
          cudaSuccess && status == cudaDriverEntryPointSuccess) {
    gMemcpyDtoDAsync = reinterpret_cast<MemcpyDtoDAsyncFn>(fn);
  }
}
bool haveStreamMemOps() { return gWaitValue != nullptr && gWriteValue != nullptr; }
hipError_t streamWaitAtLeast(hipStream_t s, void* devPtr, std::uint32_t value) {
  return gWaitValue(s, reinterpret_cast<CUdeviceptr>(devPtr), value, CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS
             ? hipSuccess
             : cudaErrorUnknown;
}
hipError_t streamWrite(hipStream_t s, void* devPtr, std::uint32_t value) {
  return gWriteValue(s, reinterpret_cast<CUdeviceptr>(devPtr), value, CU_STREAM_WRITE_VALUE_DEFAULT) ==
                 CUDA_SUCCESS
             ? hipSuccess
             : cudaErrorUnknown;
}
// The proxy's submission: the driver's copy call skips the runtime's own bookkeeping on a
// path whose small-copy cost is mostly API time (docs/MEASUREMENT.md, "proxy submission").
hipError_t proxyCopy(void* dst, const void* src, std::size_t bytes, hipStream_t s, bool viaDriver) {
  if (viaDriver && gMemcpyDtoDAsync != nullptr) {
    return gMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes,
                            s) == CUDA_SUCCESS
               ? hipSuccess
               : cudaErrorUnknown;
  }
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, s);
}
#else
void loadStreamMemOps() {}
bool haveStreamMemOps() { return true; }
hipError_t streamWaitAtLeast(hipStream_t s, void* devPtr, std::uint32_t value) {
  return hipStreamWaitValue32(s, devPtr, value, hipStreamWaitValueGte, 0xFFFFFFFFu);
}
[[maybe_unused]] hipError_t streamWrite(hipStream_t s, void* devPtr, std::uint32_t value) {
  return hipStreamWriteValue32(s, devPtr, value, 0);
}
#endif

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

// ---- library and driver facts for `info` ----
std::string versionFromNccl(int code) {
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  if (code >= 10000) {
    return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
  }
  return std::to_string(code / 1000) + "." + std::to_string(code / 100 % 10) + "." + std::to_string(code % 100);
}

void* openFirst(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL)) return handle;
  }
  return nullptr;
}

void addCollectiveLibraries(std::vector<LibraryInfo>& out) {
#if defined(SDMA_GPU_NVIDIA)
  const char* ncclName = "nccl";
  void* nccl = openFirst({"libnccl.so.2", "libnccl.so"});
#else
  const char* ncclName = "rccl";
  void* nccl = openFirst({"librccl.so.1", "librccl.so"});
#endif
  if (nccl != nullptr) {
    using GetVersion = int (*)(int*);
    int code = 0;
    auto fn = reinterpret_cast<GetVersion>(dlsym(nccl, "ncclGetVersion"));
    out.push_back({ncclName, fn != nullptr && fn(&code) == 0 ? versionFromNccl(code) : "found (version unknown)"});
  }
#if defined(SDMA_GPU_NVIDIA)
  if (void* shmem = openFirst({"libnvshmem_host.so.3", "libnvshmem_host.so"})) {
    using GetVersion = void (*)(int*, int*, int*);
    auto fn = reinterpret_cast<GetVersion>(dlsym(shmem, "nvshmemx_vendor_get_version_info"));
    int major = 0, minor = 0, patch = 0;
    if (fn != nullptr) fn(&major, &minor, &patch);
    out.push_back({"nvshmem", fn != nullptr ? std::to_string(major) + "." + std::to_string(minor) + "." +
                                                  std::to_string(patch)
                                            : "found (version unknown)"});
  }
#else
  if (openFirst({"librocshmem.so.3", "librocshmem.so.2", "librocshmem.so"}) != nullptr) {
    out.push_back({"rocshmem", "found (version unknown)"});
  }
#endif
}

std::string dottedVersion(int code) {
  // CUDA: 1000*major + 10*minor; HIP: 10^7*major + 10^5*minor + patch.
#if defined(SDMA_GPU_NVIDIA)
  return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
#else
  return std::to_string(code / 10000000) + "." + std::to_string(code / 100000 % 100) + "." +
         std::to_string(code % 100000);
#endif
}

#if defined(SDMA_GPU_NVIDIA)
// NVML through dlopen with the few declarations used (its header is not in every toolkit):
// the link count and NVLink version between two GPUs, and the driver's version string.
struct NvmlPciInfo {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
struct Nvml {
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*handleByBusId)(const char*, void**) = nullptr;
  int (*linkState)(void*, unsigned int, int*) = nullptr;
  int (*linkVersion)(void*, unsigned int, unsigned int*) = nullptr;
  int (*remotePci)(void*, unsigned int, NvmlPciInfo*) = nullptr;
  int (*driverVersion)(char*, unsigned int) = nullptr;
  int (*remoteType)(void*, unsigned int, int*) = nullptr;
  int (*p2pStatus)(void*, void*, int, int*) = nullptr;
  int (*maxPcieGeneration)(void*, unsigned int*) = nullptr;
  int (*maxPcieWidth)(void*, unsigned int*) = nullptr;
  bool ok = false;
};

Nvml& nvml() {
  static Nvml n = [] {
    Nvml v;
    v.lib = openFirst({"libnvidia-ml.so.1", "libnvidia-ml.so"});
    if (v.lib == nullptr) return v;
    v.init = reinterpret_cast<int (*)()>(dlsym(v.lib, "nvmlInit_v2"));
    v.handleByBusId = reinterpret_cast<int (*)(const char*, void**)>(dlsym(v.lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    v.linkState = reinterpret_cast<int (*)(void*, unsigned int, int*)>(dlsym(v.lib, "nvmlDeviceGetNvLinkState"));
    v.linkVersion =
        reinterpret_cast<int (*)(void*, unsigned int, unsigned int*)>(dlsym(v.lib, "nvmlDeviceGetNvLinkVersion"));
    v.remotePci =
        reinterpret_cast<int (*)(void*, unsigned int, NvmlPciInfo*)>(dlsym(v.lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2"));
    v.driverVersion = reinterpret_cast<int (*)(char*, unsigned int)>(dlsym(v.lib, "nvmlSystemGetDriverVersion"));
    v.remoteType = reinterpret_cast<int (*)(void*, unsigned int, int*)>(dlsym(v.lib, "nvmlDeviceGetNvLinkRemoteDeviceType"));
    v.p2pStatus = reinterpret_cast<int (*)(void*, void*, int, int*)>(dlsym(v.lib, "nvmlDeviceGetP2PStatus"));
    v.maxPcieGeneration =
        reinterpret_cast<int (*)(void*, unsigned int*)>(dlsym(v.lib, "nvmlDeviceGetMaxPcieLinkGeneration"));
    v.maxPcieWidth = reinterpret_cast<int (*)(void*, unsigned int*)>(dlsym(v.lib, "nvmlDeviceGetMaxPcieLinkWidth"));
    v.ok = v.init != nullptr && v.handleByBusId != nullptr && v.linkState != nullptr && v.remotePci != nullptr &&
           v.init() == 0;
    return v;
  }();
  return n;
}

// NVLink per-link rate per direction by NVLink version (1e9 B/s): 2.0 20, 3.0 25, 4.0 26.5625.
double nvlinkGbps(unsigned int version) {
  if (version >= 4) return 26.5625;
  if (version == 3) return 25.0;
  return 20.0;
}
#endif

#if defined(SDMA_HAVE_HSA)
// HIP numbers GPUs in the order ROCr lists its GPU agents (with the same visible-devices
// filtering), so the n-th GPU agent is HIP device n.
std::vector<hsa_agent_t> gpuAgents() {
  std::vector<hsa_agent_t> agents;
  if (hsa_init() != HSA_STATUS_SUCCESS) return agents;
  hsa_iterate_agents(
      [](hsa_agent_t agent, void* data) {
        hsa_device_type_t type{};
        if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS &&
            type == HSA_DEVICE_TYPE_GPU) {
          static_cast<std::vector<hsa_agent_t>*>(data)->push_back(agent);
        }
        return HSA_STATUS_SUCCESS;
      },
      &agents);
  return agents;
}

// The first CPU agent: the agent a host buffer is named by in ROCr's copy calls.
[[maybe_unused]] std::optional<hsa_agent_t> firstCpuAgent() {
  std::optional<hsa_agent_t> found;
  hsa_iterate_agents(
      [](hsa_agent_t agent, void* data) {
        hsa_device_type_t type{};
        if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS && type == HSA_DEVICE_TYPE_CPU) {
          *static_cast<std::optional<hsa_agent_t>*>(data) = agent;
          return HSA_STATUS_INFO_BREAK;
        }
        return HSA_STATUS_SUCCESS;
      },
      &found);
  return found;
}

// SDMA engine counts by their numeric attribute ids (HSA_AMD_AGENT_INFO_NUM_SDMA_ENG 0xA10A,
// _NUM_SDMA_XGMI_ENG 0xA10B): older headers lack the names, older runtimes answer an error.
std::pair<std::uint32_t, std::uint32_t> sdmaEngineCounts(hsa_agent_t agent) {
  std::uint32_t pcie = 0, xgmi = 0;
  if (hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(0xA10A), &pcie) != HSA_STATUS_SUCCESS) pcie = 0;
  if (hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(0xA10B), &xgmi) != HSA_STATUS_SUCCESS) xgmi = 0;
  return {pcie, xgmi};
}
#endif

// ---- host facts: NUMA placement and the GPU's PCIe link, from sysfs ----
std::string readSysfsLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  return line;
}

// The runtimes print PCI addresses in upper or lower case with domains of 4 or 8 digits;
// sysfs names devices dddd:bb:dd.f in lower case.
std::string sysfsPciDevice(const std::string& busId) {
  unsigned int domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(busId.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return {};
  char name[64];
  std::snprintf(name, sizeof name, "/sys/bus/pci/devices/%04x:%02x:%02x.%x", domain & 0xFFFFu, bus, device, function);
  return name;
}

// The NUMA node the platform puts the device on; -1 when it does not say (sysfs prints -1 then too).
int sysfsNumaNode(const std::string& busId) {
  const std::string dir = sysfsPciDevice(busId);
  if (dir.empty()) return -1;
  const std::string text = readSysfsLine(dir + "/numa_node");
  if (text.empty()) return -1;
  char* end = nullptr;
  const long node = std::strtol(text.c_str(), &end, 10);
  return end != text.c_str() && node >= 0 && node < 1024 ? static_cast<int>(node) : -1;
}

// NUMA nodes of the host: node<N> folders in sysfs; 0 when sysfs does not say.
int hostNumaNodeCount() {
  DIR* dir = opendir("/sys/devices/system/node");
  if (dir == nullptr) return 0;
  int count = 0;
  while (const dirent* e = readdir(dir)) {
    if (std::strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9') ++count;
  }
  closedir(dir);
  return count;
}

// Usable bytes per direction of a PCIe link: GT/s per lane x lanes x line-code efficiency / 8
// (8b/10b up to 5 GT/s, 128b/130b for 8-32 GT/s, FLIT mode's 242/256 from 64 GT/s).
double pcieGbpsPerDirection(double gtPerSecond, int lanes) {
  const double efficiency = gtPerSecond >= 64 ? 242.0 / 256.0 : (gtPerSecond >= 8 ? 128.0 / 130.0 : 0.8);
  return gtPerSecond * lanes * efficiency / 8.0;
}

[[maybe_unused]] double pcieGtPerSecondOfGeneration(unsigned int generation) {
  static const double kRates[] = {0, 2.5, 5, 8, 16, 32, 64, 128};
  return generation < sizeof kRates / sizeof kRates[0] ? kRates[generation] : 0;
}

struct PcieLinkFacts {
  double gtPerSecond = 0;
  int lanes = 0;
};

// What the GPU's link can carry: the lower of the device's and its upstream port's maximum
// speed and width. An idle GPU drops its link to a lower speed, so current_link_speed read at
// `info` time would understate it; current_* is the fallback where max_* is missing.
PcieLinkFacts sysfsPcieLink(const std::string& busId) {
  PcieLinkFacts facts;
  const std::string dir = sysfsPciDevice(busId);
  if (dir.empty()) return facts;
  auto speed = [](const std::string& path) { return std::atof(readSysfsLine(path).c_str()); };  // "32.0 GT/s PCIe"
  auto width = [](const std::string& path) { return std::atoi(readSysfsLine(path).c_str()); };
  double gt = speed(dir + "/max_link_speed");
  int lanes = width(dir + "/max_link_width");
  char real[4096];
  if (realpath(dir.c_str(), real) != nullptr) {
    std::string upstream(real);
    upstream = upstream.substr(0, upstream.rfind('/'));
    const double upGt = speed(upstream + "/max_link_speed");
    const int upLanes = width(upstream + "/max_link_width");
    if (upGt > 0 && (gt <= 0 || upGt < gt)) gt = upGt;
    if (upLanes > 0 && (lanes <= 0 || upLanes < lanes)) lanes = upLanes;
  }
  if (gt <= 0) gt = speed(dir + "/current_link_speed");
  if (lanes <= 0) lanes = width(dir + "/current_link_width");
  if (gt > 0 && lanes > 0) facts = {gt, lanes};
  return facts;
}

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
// copied byte, poison in every guard byte), split over a few threads.
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

// The engine path between two endpoints: a peer copy between GPUs, else the runtime's
// host-to-device, device-to-host or device-to-device copy.
hipError_t engineCopy(const Pair& pair, std::uint64_t offset, std::uint64_t bytes, hipStream_t stream) {
  if (pair.peer()) {
    return hipMemcpyPeerAsync(pair.dstRegion + offset, pair.dst, pair.srcRegion + offset, pair.src, bytes, stream);
  }
  const hipMemcpyKind kind = isHost(pair.src)   ? hipMemcpyHostToDevice
                             : isHost(pair.dst) ? hipMemcpyDeviceToHost
                                                : hipMemcpyDeviceToDevice;
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

class GpuBackend final : public Backend {
 public:
  GpuBackend(const GpuOptions& options, int deviceCount) : options_(options) {
    loadStreamMemOps();
    buildTopology(deviceCount);
  }
  ~GpuBackend() override {
    if (sharedGateHost_ != nullptr) (void)hipHostFree(const_cast<std::uint32_t*>(sharedGateHost_));
    for (auto& [key, pair] : pairs_) {
      (void)key;
      freeRegions(pair);
    }
  }

  std::string_view name() const override { return SDMA_BACKEND_NAME; }
  bool simulated() const override { return false; }
  const Topology& topology() const override { return topology_; }

#if defined(SDMA_GPU_NVIDIA)
  // NVIDIA's engine/device is a host proxy thread submitting peer copies a kernel asks for:
  // the reasons differ from the default's GPU-initiated SDMA.
  std::string pathUnsupported(CopyPath path, int src, int dst) const override {
    if (path != CopyPath::EngineDevice) return {};
    if (isHost(src) || isHost(dst)) {
      return "engine/device needs two GPUs: on NVIDIA it is a kernel handing peer copies to a host proxy thread "
             "(no public device API drives the copy engine); with host memory at one end that is the CPU's own "
             "copy, engine/host";
    }
    if (src == dst) return "engine/device needs two GPUs: a GPU-local copy has no peer to hand a copy to (engine/host measures it)";
    return {};
  }
#endif

  CopyMeasurement measure(const CopyRequest& request) override {
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

  ConcurrentMeasurement measureConcurrent(const std::vector<CopyRequest>& requests) override {
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

  std::uint64_t timelineEventCount(const TimelineRequest& request) const override {
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

  RunStatus recordTimeline(const TimelineRequest& request, TimelineEvents& out) override {
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

  std::optional<TimelineClock> timelineClock() const override {
#if defined(SDMA_GPU_NVIDIA)
    return TimelineClock{"globaltimer", clock_.uncertaintyNs};
#else
    return TimelineClock{"s_memrealtime", clock_.uncertaintyNs};
#endif
  }
  CopyMeasurement lastTimelineFailure() const override { return timelineFailure_; }

 private:
  // ---- topology ----
  void buildTopology(int deviceCount) {
    topology_.node.vendor = SDMA_VENDOR_NAME;
    topology_.node.simulated = false;
    char host[256] = {};
    topology_.node.name = gethostname(host, sizeof host - 1) == 0 ? host : "gpu node";
    for (int d = 0; d < deviceCount; ++d) {
      hipDeviceProp_t prop{};
      check(hipGetDeviceProperties(&prop, d), "hipGetDeviceProperties");
      GpuInfo gpu;
      gpu.index = d;
      gpu.name = prop.name;
      gpu.cus = prop.multiProcessorCount;
      gpu.memoryBytes = prop.totalGlobalMem;
      gpu.l2Bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
      char bus[64] = {};
      if (hipDeviceGetPCIBusId(bus, sizeof bus, d) == hipSuccess) gpu.pciBusId = bus;
      gpu.numaNode = sysfsNumaNode(gpu.pciBusId);
#if defined(SDMA_GPU_NVIDIA)
      gpu.arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
      // asyncEngineCount counts the copy engines the runtime schedules onto.
      for (int e = 0; e < prop.asyncEngineCount; ++e) gpu.engines.push_back({e, "copy", std::nullopt});
      smemPerCu_.push_back(static_cast<int>(prop.sharedMemPerMultiprocessor));
      smemOptin_.push_back(static_cast<int>(prop.sharedMemPerBlockOptin));
#else
      gpu.arch = prop.gcnArchName;
#if defined(SDMA_HAVE_HSA)
      if (agents_.empty()) agents_ = gpuAgents();
      if (static_cast<std::size_t>(d) < agents_.size()) {
        // Engine ids follow ROCr's numbering: PCIe (host) engines first, then the xGMI ones.
        const auto [pcie, xgmi] = sdmaEngineCounts(agents_[static_cast<std::size_t>(d)]);
        for (std::uint32_t e = 0; e < pcie + xgmi; ++e) {
          gpu.engines.push_back({static_cast<int>(e), e < pcie ? "pcie" : "xgmi", std::nullopt});
        }
      }
#endif
      const std::string arch = gpu.arch;
      // CU counts per die are fixed per product line; the die id itself comes from the trace.
      if (arch.rfind("gfx94", 0) == 0) gpu.xccs = gpu.cus >= 300 ? 8 : (gpu.cus >= 200 ? 6 : 0);
      if (arch.rfind("gfx950", 0) == 0) gpu.xccs = 8;
      smemPerCu_.push_back(0);
      smemOptin_.push_back(0);
#endif
      topology_.gpus.push_back(gpu);
      l2Bytes_.push_back(gpu.l2Bytes);
    }
    topology_.node.model = deviceCount > 0 ? topology_.gpus[0].name : "";
    if (const int nodes = hostNumaNodeCount(); nodes > 0) topology_.host = HostInfo{nodes};
    for (int d = 0; d < deviceCount; ++d) {
      const double gbps = hostLinkGbps(topology_.gpus[static_cast<std::size_t>(d)]);
      if (gbps > 0) topology_.links.push_back({kHostEndpoint, d, "pcie", 1, gbps});
    }
    for (int s = 0; s < deviceCount; ++s) {
      for (int d = 0; d < deviceCount; ++d) {
        if (s == d) continue;
        const PeerLink link = peerLink(s, d);
        topology_.links.push_back({s, d, link.kind, link.count, link.gbpsPerDirection});
      }
    }
    int driver = 0, runtime = 0;
    (void)hipDriverGetVersion(&driver);
    (void)hipRuntimeGetVersion(&runtime);
#if defined(SDMA_GPU_NVIDIA)
    topology_.libraries.push_back({"cuda-driver-api", dottedVersion(driver)});
    topology_.libraries.push_back({"cuda-runtime", dottedVersion(runtime)});
    if (nvml().ok && nvml().driverVersion != nullptr) {
      char version[96] = {};
      if (nvml().driverVersion(version, sizeof version) == 0) topology_.libraries.push_back({"nvidia-driver", version});
    }
#else
    topology_.libraries.push_back({"hip-driver", dottedVersion(driver)});
    topology_.libraries.push_back({"hip-runtime", dottedVersion(runtime)});
#endif
    addCollectiveLibraries(topology_.libraries);
  }

  // Host <-> GPU: NVML's maximum link generation and width for this device in this system
  // (NVIDIA), else sysfs; 0 when neither says.
  double hostLinkGbps(const GpuInfo& gpu) {
#if defined(SDMA_GPU_NVIDIA)
    Nvml& n = nvml();
    void* handle = nullptr;
    unsigned int generation = 0, lanes = 0;
    if (n.ok && n.maxPcieGeneration != nullptr && n.maxPcieWidth != nullptr &&
        n.handleByBusId(gpu.pciBusId.c_str(), &handle) == 0 && n.maxPcieGeneration(handle, &generation) == 0 &&
        n.maxPcieWidth(handle, &lanes) == 0 && pcieGtPerSecondOfGeneration(generation) > 0 && lanes > 0) {
      return pcieGbpsPerDirection(pcieGtPerSecondOfGeneration(generation), static_cast<int>(lanes));
    }
#endif
    const PcieLinkFacts link = sysfsPcieLink(gpu.pciBusId);
    return link.lanes > 0 ? pcieGbpsPerDirection(link.gtPerSecond, link.lanes) : 0;
  }

  PeerLink peerLink(int s, int d) {
    PeerLink link;
#if defined(SDMA_GPU_NVIDIA)
    Nvml& n = nvml();
    const GpuInfo& peer = topology_.gpus[static_cast<std::size_t>(d)];
    void* handle = nullptr;
    void* peerHandle = nullptr;
    if (n.ok && n.handleByBusId(topology_.gpus[static_cast<std::size_t>(s)].pciBusId.c_str(), &handle) == 0 &&
        n.handleByBusId(peer.pciBusId.c_str(), &peerHandle) == 0) {
      // NVML_P2P_CAPS_INDEX_NVLINK (2) reports whether the pair talks over NVLink at all.
      int nvlinkStatus = -1;
      const bool nvlinkP2p = n.p2pStatus != nullptr && n.p2pStatus(handle, peerHandle, 2, &nvlinkStatus) == 0 &&
                             nvlinkStatus == 0;
      unsigned int bus = 0, dev = 0;
      const char* colon = std::strchr(peer.pciBusId.c_str(), ':');
      const bool peerBusKnown = colon != nullptr && std::sscanf(colon + 1, "%x:%x", &bus, &dev) == 2;
      unsigned int version = 0;
      int toPeer = 0, toSwitch = 0, toSomeGpu = 0;
      for (unsigned int l = 0; l < 18; ++l) {
        int active = 0;
        if (n.linkState(handle, l, &active) != 0 || active == 0) continue;
        if (n.linkVersion != nullptr) (void)n.linkVersion(handle, l, &version);
        int type = 0;  // NVML_NVLINK_DEVICE_TYPE_GPU 0, IBMNPU 1, SWITCH 2
        if (n.remoteType != nullptr && n.remoteType(handle, l, &type) == 0 && type == 2) {
          ++toSwitch;
          continue;
        }
        ++toSomeGpu;
        NvmlPciInfo remote{};
        if (peerBusKnown && n.remotePci(handle, l, &remote) == 0 && remote.bus == bus && remote.device == dev) ++toPeer;
      }
      // In a VM the remote end's PCI address is the host's, not the guest's: when no link
      // matches by address but NVLink P2P is up, a two-GPU node's GPU links all reach the
      // peer, and behind NVSwitches every link reaches every peer.
      if (toPeer == 0 && nvlinkP2p) toPeer = toSwitch > 0 ? toSwitch : (topology_.gpus.size() == 2 ? toSomeGpu : 0);
      if (toPeer > 0) {
        link.kind = "nvlink";
        link.count = toPeer;
        link.gbpsPerDirection = toPeer * nvlinkGbps(version);
      }
    }
#else
    std::uint32_t type = 0, hops = 0;
    // HSA_AMD_LINK_INFO_TYPE_XGMI is 4; HIP reports the kind, not the number of links.
    if (hipExtGetLinkTypeAndHopCount(s, d, &type, &hops) == hipSuccess) {
      link.kind = type == 4 ? "xgmi" : "pcie";
      link.count = type == 4 && hops == 1 ? 1 : 0;
    }
#endif
    return link;
  }

  // ---- per-pair resources ----
  Pair& ensurePair(int src, int dst) {
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

  // Streams, events and scratch on the GPU that runs the pair's copies (the current device).
  void createPairStreams(Pair& pair) {
    check(hipStreamCreateWithFlags(&pair.stream, hipStreamNonBlocking), "hipStreamCreate");
    check(hipStreamCreateWithFlags(&pair.proxyStream, hipStreamNonBlocking), "hipStreamCreate");
    check(hipEventCreate(&pair.start), "hipEventCreate");
    check(hipEventCreate(&pair.end), "hipEventCreate");
    check(hipEventCreate(&pair.stampDone), "hipEventCreate");
    ensureScratch(pair.gpu);
  }

  // The NUMA node a pair's host buffer goes on: the one nearest its GPU, -1 unknown.
  int numaNodeOf(int gpu) const {
    return topology_.gpus[static_cast<std::size_t>(gpu)].numaNode.value_or(-1);
  }

  // One endpoint's region: device memory on its GPU, or pinned host memory near the pair's GPU.
  void allocEndpoint(Pair& pair, bool source, std::uint64_t bytes) {
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

  static void freeEndpoint(Pair& pair, bool source) {
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

  // Both regions of a pair; on a failure neither is left allocated.
  void allocRegions(Pair& pair, std::uint64_t regionBytes) {
    allocEndpoint(pair, true, regionBytes);
    try {
      allocEndpoint(pair, false, regionBytes);
    } catch (...) {
      freeEndpoint(pair, true);
      throw;
    }
    pair.regionBytes = regionBytes;
  }

  DeviceScratch& ensureScratch(int device) {
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

  static void freeRegions(Pair& pair) {
    if (!pair.srcRegion && !pair.dstRegion) return;
    freeEndpoint(pair, true);
    freeEndpoint(pair, false);
    pair.regionBytes = 0;
  }

  // One pair holds buffers at a time: a matrix visits all N x (N-1) pairs, and keeping each
  // pair's rotation regions (2 x LLC or more per side) would leave 2 (N-1) of them on every GPU.
  void ensureRegions(Pair& pair, std::uint64_t regionBytes) {
    if (pair.regionBytes >= regionBytes) return;
    for (auto& [key, other] : pairs_) {
      (void)key;
      if (&other != &pair) freeRegions(other);
    }
    freeRegions(pair);
    allocRegions(pair, regionBytes);
    check(hipSetDevice(pair.gpu), "hipSetDevice");
  }

  // Streams whose kernels may only use the first `cus` CUs. On NVIDIA there are no CU
  // masks: the copy kernel reserves so much shared memory that blocksPerCu blocks fill an
  // SM, and the trace reports the SMs that actually ran.
  hipStream_t streamFor(Pair& pair, int cus) {
#if defined(SDMA_HAVE_CU_MASK)
    auto it = pair.cuMaskStreams.find(cus);
    if (it != pair.cuMaskStreams.end()) return it->second;
    std::vector<std::uint32_t> mask((static_cast<std::size_t>(topology_.gpus[static_cast<std::size_t>(pair.gpu)].cus) + 31) / 32, 0);
    for (int c = 0; c < cus; ++c) mask[static_cast<std::size_t>(c / 32)] |= 1u << (c % 32);
    hipStream_t s{};
    check(hipExtStreamCreateWithCUMask(&s, static_cast<std::uint32_t>(mask.size()), mask.data()),
          "hipExtStreamCreateWithCUMask");
    pair.cuMaskStreams[cus] = s;
    return s;
#else
    (void)cus;
    return pair.stream;
#endif
  }

  int sharedBytesForBlocksPerCu(int device, int blocksPerCu) const {
    const int perCu = smemPerCu_[static_cast<std::size_t>(device)];
    if (perCu == 0) return 0;
    // The runtime keeps 1 KiB per block and the kernels' static shared memory needs a few
    // bytes: leave 2 KiB so exactly blocksPerCu blocks fit on one CU, never one more.
    const int headroomPerBlock = 2048;
    return std::min(smemOptin_[static_cast<std::size_t>(device)] - 1024, perCu / blocksPerCu - headroomPerBlock);
  }

  // 1024 threads per CU in total: the copy kernels use up to 64 registers a thread.
  static int threadsFor(int blocksPerCu) { return std::max(64, 1024 / blocksPerCu / 32 * 32); }

  // ---- one measurement ----
  // The larger last-level cache of the pair's GPUs (host memory: the GPU's L2 caches it too).
  std::uint64_t llcOf(const Pair& pair) const {
    std::uint64_t llc = l2Bytes_[static_cast<std::size_t>(pair.gpu)];
    for (int e : {pair.src, pair.dst}) {
      if (!isHost(e)) llc = std::max(llc, l2Bytes_[static_cast<std::size_t>(e)]);
    }
    return llc;
  }

  // Pattern in the whole source region (written by the pair's GPU, through the mapping for
  // host memory), poison in the whole destination region, guard gaps included.
  void preparePair(Pair& pair, const RotationPlan& plan, std::uint64_t seed) {
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

  RunResult runPath(const CopyRequest& request, bool trace, bool corrupt, CopyMeasurement& m) {
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

  // ---- all pairs at once (matrix --concurrent, docs/MATRIX.md) ----
  // Every pair's copies are queued on its own stream behind one gate in host memory that all
  // GPUs read; one host write opens it for all of them, so the pairs start together.
  struct ConcurrentPair {
    Pair* pair = nullptr;
    RotationPlan plan;
    std::uint64_t seed = 0;
    hipStream_t stream{};
    std::uint64_t op = 0;
  };

  void* sharedGate() {
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

  // Source and destination regions of every pair at the same time: N (N-1) pairs, so each GPU
  // holds 2 (N-1) regions. Checked against free memory first, so a node that cannot hold them
  // gets one clear error instead of a failure half way through the allocations.
  void ensureConcurrentRegions(std::vector<ConcurrentPair>& set) {
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

  // AMD: the k-th copy leaving a GPU runs on CUs [k x cus, (k+1) x cus), wrapping around the
  // GPU's CUs when the copies ask for more than it has (those CUs are then shared). NVIDIA has
  // no CU masks: the blocks of all copies go to whichever SMs are free.
  hipStream_t streamForRange(Pair& pair, int firstCu, int cus) {
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

  void runConcurrent(const std::vector<CopyRequest>& requests, ConcurrentMeasurement& out) {
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

  // engine/host on one named SDMA engine (AMD, ROCm >= 5.7). Timed on the host clock from
  // the first submission to the completion signal: ROCr gives no device timestamps here.
  void runOnEngine(Pair& pair, const RotationPlan& plan, const CopyRequest& request, int depth, RunResult& run,
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

  // The fault damages the destination wherever it is: a GPU's memory or the host buffer.
  void corruptOneByte(Pair& pair, const RotationPlan& plan, std::uint64_t sizeBytes, std::uint64_t seed) {
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

  std::optional<std::string> checkCopy(Pair& pair, DeviceScratch& s, const RotationPlan& plan, std::uint64_t sizeBytes,
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

  /** The last traced iteration of a load/store copy: each block's CU (and XCC) and span. */
  void readBlockTrace(const DeviceScratch& s, int blocks, RunResult& run) const {
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

  double ticksToNs(unsigned long long ticks) const {
#if defined(SDMA_GPU_NVIDIA)
    return static_cast<double>(ticks);
#else
    return static_cast<double>(ticks) * 10.0;  // s_memrealtime runs at 100 MHz on CDNA
#endif
  }
  std::uint64_t timeoutTicks() const {
#if defined(SDMA_GPU_NVIDIA)
    return static_cast<std::uint64_t>(kKernelTimeoutNs);
#else
    return static_cast<std::uint64_t>(kKernelTimeoutNs / 10.0);
#endif
  }

  // Persistent kernels keep per-iteration times on the device: warm-up and timed iterations
  // of one launch share kMaxItersPerLaunch slots.
  int timedIters(const CopyRequest& request, double estimateNs, int warmIters) const {
    const int most = kMaxItersPerLaunch - warmIters;
    return itersForTime(estimateNs, request.targetNs, std::min(request.iters, most), most);
  }

  // Blocking memsets and pageable copies may still be in flight when they return; the
  // non-blocking streams the copies run on do not wait for them.
  void settle(int device) {
    check(hipSetDevice(device), "hipSetDevice");
    check(hipDeviceSynchronize(), "hipDeviceSynchronize");
  }

  // cu/host and engine/host: the stream waits on a gate in host memory while
  // event/op.../event is queued behind it, so the time excludes the CPU's enqueue cost.
  void runHostInitiated(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
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

  // Waits for a persistent kernel, giving up (and telling it to stop) after a timeout.
  void waitForKernel(hipStream_t stream, DeviceScratch& s, const char* what) {
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

  void resetIterationScratch(DeviceScratch& s, int iters) {
    check(hipMemset(s.iterStart, 0xFF, 8ull * iters), "hipMemset");
    check(hipMemset(s.iterEnd, 0, 8ull * iters), "hipMemset");
    check(hipMemset(s.blocksDone, 0, 4ull * iters), "hipMemset");
    check(hipMemset(s.barrier, 0, sizeof(GridBarrier)), "hipMemset");
    check(hipMemset(s.completedSeq, 0, 4), "hipMemset");
    check(hipDeviceSynchronize(), "hipDeviceSynchronize");
  }

  std::vector<double> iterationTimes(DeviceScratch& s, int iters, int skip, int depth) {
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

  // cu/device: one cooperative launch runs warm-up and timed iterations; the host only says go.
  void runCuDevice(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
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

  // engine/device. On NVIDIA no public device API drives the copy engine, so a host proxy
  // thread does (label "proxy-initiated"). On AMD a kernel drives SDMA through rocSHMEM's
  // device API (rocshmem_pe.hip, started by rocshmem_launcher.cpp; label "rocshmem-sdma"),
  // where sdma-probe was built with a usable rocSHMEM.
  void runEngineDevice(Pair& pair, DeviceScratch& s, const RotationPlan& plan, const CopyRequest& request, int depth,
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

  // Host clock -> device clock, by the shortest of kClockPingRounds ping-pongs.
  void alignClock(Pair& pair) {
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

  void appendEvents(const TimelineRequest& request, int pairGpu,
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

  GpuOptions options_;
  Topology topology_;
  std::vector<std::uint64_t> l2Bytes_;
  std::vector<int> smemPerCu_, smemOptin_;
  std::map<int, Pair> pairs_;
  std::map<int, DeviceScratch> scratch_;
  ClockAlignment clock_;
  CopyMeasurement timelineFailure_;
  bool gateWorks_ = true;
  std::set<int> warnedPlacement_;  // GPUs whose unplaced host buffers were already reported
  volatile std::uint32_t* sharedGateHost_ = nullptr;  // matrix --concurrent: the one gate of all pairs
  void* sharedGateDev_ = nullptr;
#if defined(SDMA_HAVE_HSA)
  std::vector<hsa_agent_t> agents_;
  std::optional<hsa_agent_t> cpuAgent_;
#endif
};

std::unique_ptr<Backend> openGpu(const GpuOptions& options, OpenFailure& failure) {
  const char* vendorTool = SDMA_GPU_NVIDIA_OR_AMD("nvidia-smi", "rocm-smi");
#if defined(SDMA_GPU_NVIDIA)
  // Without the driver library the runtime says "insufficient driver"; users need to hear
  // that there is no driver (or GPU) at all.
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(driver);
  } else {
    failure = {"no-gpu", "no NVIDIA driver (libcuda.so.1) is installed on this machine, so it has no usable GPU",
               "run on a GPU node (or point the extension at one over SSH); without a GPU use --backend sim"};
    return nullptr;
  }
#endif
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e == hipErrorInsufficientDriver) {
    failure = {"driver-too-old", std::string("the GPU driver is older than this sdma-probe's runtime: ") + errorText(e),
               std::string("update the driver (see ") + vendorTool + ") or rebuild native/ with the toolkit that "
               "matches it"};
    return nullptr;
  }
  if (options.openWithoutGpus && (e == hipSuccess || e == hipErrorNoDevice) && count == 0) {
    (void)hipGetLastError();
    try {
      return std::make_unique<GpuBackend>(options, 0);
    } catch (const GpuFailure& f) {
      failure = {f.code, f.message, f.hint};
      return nullptr;
    }
  }
  if (e != hipSuccess || count == 0) {
    failure = {"no-gpu",
               std::string("no ") + SDMA_GPU_NVIDIA_OR_AMD("NVIDIA", "AMD") + " GPU is visible to this process" +
                   (e != hipSuccess ? " (" + errorText(e) + ")" : std::string()),
               std::string("check `") + vendorTool + "` and the visible-devices variable (" +
                   SDMA_GPU_NVIDIA_OR_AMD("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES") +
                   "); without a GPU use --backend sim"};
    return nullptr;
  }
  try {
    return std::make_unique<GpuBackend>(options, count);
  } catch (const GpuFailure& f) {
    failure = {f.code, f.message, f.hint};
    return nullptr;
  }
}

}  // namespace
}  // namespace sdma::gpu
