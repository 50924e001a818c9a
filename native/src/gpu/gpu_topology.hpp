#pragma once

// ---- topology ----
// What `info` reports and the copies are checked against: the GPUs, their links (NVML on
// NVIDIA, HSA and sysfs on AMD), host NUMA nodes and PCIe links, and the libraries present.

#include <dirent.h>
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gpu/gpu_backend_class.hpp"
#include "gpu/nvml.hpp"
#include "host_name.hpp"

namespace sdma::gpu {
namespace {

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

void GpuBackend::buildTopology(int deviceCount) {
  topology_.node.vendor = SDMA_VENDOR_NAME;
  topology_.node.simulated = false;
  topology_.node.hostname = hostName();
  topology_.node.name = topology_.node.hostname.empty() ? "gpu node" : topology_.node.hostname;
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

double GpuBackend::hostLinkGbps(const GpuInfo& gpu) {
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

PeerLink GpuBackend::peerLink(int s, int d) {
  PeerLink link;
#if defined(SDMA_GPU_NVIDIA)
  Nvml& n = nvml();
  const GpuInfo& peer = topology_.gpus[static_cast<std::size_t>(d)];
  void* handle = nullptr;
  void* peerHandle = nullptr;
  if (n.links() && n.handleByBusId(topology_.gpus[static_cast<std::size_t>(s)].pciBusId.c_str(), &handle) == 0 &&
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

}  // namespace
}  // namespace sdma::gpu
