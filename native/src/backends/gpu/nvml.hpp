#pragma once

// NVML, loaded once through dlopen with the few declarations used (its header is not in
// every toolkit): the GPU backend's topology (NVLink links and versions, PCIe generation and
// width, the driver's version) and overlap's board telemetry (clocks, power, throttle
// reasons). Read-only calls only. NVIDIA builds only.
#if defined(SDMA_GPU_NVIDIA)

#include <dlfcn.h>

namespace sdma::gpu {

struct NvmlPciInfo {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};

struct Nvml {
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*handleByBusId)(const char*, void**) = nullptr;
  // Topology.
  int (*linkState)(void*, unsigned int, int*) = nullptr;
  int (*linkVersion)(void*, unsigned int, unsigned int*) = nullptr;
  int (*remotePci)(void*, unsigned int, NvmlPciInfo*) = nullptr;
  int (*driverVersion)(char*, unsigned int) = nullptr;
  int (*remoteType)(void*, unsigned int, int*) = nullptr;
  int (*p2pStatus)(void*, void*, int, int*) = nullptr;
  int (*maxPcieGeneration)(void*, unsigned int*) = nullptr;
  int (*maxPcieWidth)(void*, unsigned int*) = nullptr;
  // Telemetry.
  int (*clockInfo)(void*, int, unsigned int*) = nullptr;
  int (*powerUsage)(void*, unsigned int*) = nullptr;
  int (*powerLimit)(void*, unsigned int*) = nullptr;
  int (*clockReasons)(void*, unsigned long long*) = nullptr;
  int (*fieldValues)(void*, int, void*) = nullptr;
  bool ok = false;  // loaded and initialized: devices can be looked up by PCI bus id

  // The NVLink calls the topology needs are there.
  bool links() const { return ok && linkState != nullptr && remotePci != nullptr; }
};

template <typename Fn>
inline void nvmlSymbol(void* lib, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

// The process's one NVML, loaded and initialized on first use.
inline Nvml& nvml() {
  static Nvml n = [] {
    Nvml v;
    for (const char* name : {"libnvidia-ml.so.1", "libnvidia-ml.so"}) {
      if ((v.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (v.lib == nullptr) return v;
    nvmlSymbol(v.lib, v.init, "nvmlInit_v2");
    nvmlSymbol(v.lib, v.handleByBusId, "nvmlDeviceGetHandleByPciBusId_v2");
    nvmlSymbol(v.lib, v.linkState, "nvmlDeviceGetNvLinkState");
    nvmlSymbol(v.lib, v.linkVersion, "nvmlDeviceGetNvLinkVersion");
    nvmlSymbol(v.lib, v.remotePci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    nvmlSymbol(v.lib, v.driverVersion, "nvmlSystemGetDriverVersion");
    nvmlSymbol(v.lib, v.remoteType, "nvmlDeviceGetNvLinkRemoteDeviceType");
    nvmlSymbol(v.lib, v.p2pStatus, "nvmlDeviceGetP2PStatus");
    nvmlSymbol(v.lib, v.maxPcieGeneration, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvmlSymbol(v.lib, v.maxPcieWidth, "nvmlDeviceGetMaxPcieLinkWidth");
    nvmlSymbol(v.lib, v.clockInfo, "nvmlDeviceGetClockInfo");
    nvmlSymbol(v.lib, v.powerUsage, "nvmlDeviceGetPowerUsage");
    nvmlSymbol(v.lib, v.powerLimit, "nvmlDeviceGetEnforcedPowerLimit");
    nvmlSymbol(v.lib, v.clockReasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (v.clockReasons == nullptr) nvmlSymbol(v.lib, v.clockReasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    nvmlSymbol(v.lib, v.fieldValues, "nvmlDeviceGetFieldValues");
    v.ok = v.init != nullptr && v.handleByBusId != nullptr && v.init() == 0;
    return v;
  }();
  return n;
}

}  // namespace sdma::gpu

#endif
