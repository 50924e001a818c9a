#include "backend/amd_node.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <utility>

namespace sdma::gpu::amd {

namespace {

std::string hex(std::uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", v);
  return text;
}

std::string plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

}  // namespace

// ---- HIP devices <-> HSA agents ----

std::optional<PciAddress> parsePciBusId(std::string_view text) {
  // domain:bus:device.function, hex; CLR prints "%04x:%02x:%02x.%01x" (ROCm/clr
  // hipamd/src/hip_device_runtime.cpp, hipDeviceGetPCIBusId), other tools 8-digit domains.
  std::uint32_t parts[4] = {0, 0, 0, 0};
  const char separators[3] = {':', ':', '.'};
  std::size_t at = 0;
  for (int p = 0; p < 4; ++p) {
    std::size_t digits = 0;
    std::uint64_t value = 0;
    while (at < text.size() && std::isxdigit(static_cast<unsigned char>(text[at]))) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[at])));
      value = value * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
      ++digits;
      ++at;
      if (digits > 8) return std::nullopt;
    }
    if (digits == 0) return std::nullopt;
    parts[p] = static_cast<std::uint32_t>(value);
    if (p < 3) {
      if (at >= text.size() || text[at] != separators[p]) return std::nullopt;
      ++at;
    }
  }
  while (at < text.size() && (text[at] == '\0' || std::isspace(static_cast<unsigned char>(text[at])))) ++at;
  if (at != text.size()) return std::nullopt;
  if (parts[1] > 0xFF || parts[2] > 0x1F || parts[3] > 0x7) return std::nullopt;
  return PciAddress{parts[0], parts[1], parts[2], parts[3]};
}

std::string pciBusIdText(const PciAddress& a) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", a.domain & 0xFFFFu, a.bus, a.device, a.function);
  return text;
}

PciAddress AgentLocation::address() const {
  // The low 16 bits are bus/device/function, as CLR splits them for HIP's bus id (ROCm/clr
  // rocclr/device/rocm/rocdevice.cpp, Device::create: bus = bdf[15:8], device = bdf[7:3],
  // function = bdf[2:0]). On a partitioned GPU the driver ORs the partition's node id into
  // KFD's location_id (Linux drivers/gpu/drm/amd/amdkfd/kfd_topology.c,
  // kfd_topology_add_device), which ROCr returns as BDFID (ROCR-Runtime
  // core/runtime/amd_gpu_agent.cpp, GpuAgent::GetInfo, HSA_AMD_AGENT_INFO_BDFID = LocationId).
  return PciAddress{domain, (bdfid >> 8) & 0xFFu, (bdfid >> 3) & 0x1Fu, bdfid & 0x7u};
}

AgentMatch matchAgentsByPciBus(const std::vector<std::string>& hipBusIds, const std::vector<AgentLocation>& agents,
                               bool hipKeepsRocrOrder) {
  AgentMatch out;
  out.agentOfDevice.assign(hipBusIds.size(), -1);
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // domain, bus/device/function
  std::map<Key, std::vector<int>> agentsAt;
  for (std::size_t a = 0; a < agents.size(); ++a) {
    const PciAddress p = agents[a].address();
    agentsAt[{p.domain, p.bdf()}].push_back(static_cast<int>(a));
  }
  std::vector<std::optional<PciAddress>> parsed;
  std::map<Key, std::vector<int>> devicesAt;
  for (std::size_t d = 0; d < hipBusIds.size(); ++d) {
    parsed.push_back(parsePciBusId(hipBusIds[d]));
    if (parsed.back()) devicesAt[{parsed.back()->domain, parsed.back()->bdf()}].push_back(static_cast<int>(d));
  }
  std::vector<std::string> problems;
  for (std::size_t d = 0; d < hipBusIds.size(); ++d) {
    const std::string name = "GPU " + std::to_string(d);
    if (!parsed[d]) {
      problems.push_back(name + ": HIP's PCI bus id '" + hipBusIds[d] + "' does not parse");
      continue;
    }
    const Key key{parsed[d]->domain, parsed[d]->bdf()};
    const auto found = agentsAt.find(key);
    if (found == agentsAt.end()) {
      problems.push_back(name + ": no HSA GPU agent at PCI address " + pciBusIdText(*parsed[d]));
      continue;
    }
    const std::vector<int>& candidates = found->second;
    const std::vector<int>& sharing = devicesAt[key];
    if (candidates.size() == 1 && sharing.size() == 1) {
      out.agentOfDevice[d] = candidates[0];
      continue;
    }
    if (hipKeepsRocrOrder && candidates.size() == sharing.size()) {
      // CLR keeps ROCr's agent order when no visible-devices variable picks devices (ROCm/clr
      // rocclr/device/rocm/rocdevice.cpp, Device::init: gpu_agents_ in hsa_iterate_agents
      // order, reordered only by HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES).
      const auto rank = std::find(sharing.begin(), sharing.end(), static_cast<int>(d)) - sharing.begin();
      out.agentOfDevice[d] = candidates[static_cast<std::size_t>(rank)];
      continue;
    }
    problems.push_back(name + ": " + std::to_string(candidates.size()) + " HSA agents and " +
                       std::to_string(sharing.size()) + " HIP devices share PCI address " + pciBusIdText(*parsed[d]) +
                       ", and HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES reorder HIP's");
  }
  if (!problems.empty()) {
    out.error = "HIP devices and HSA agents do not match one to one by PCI address: ";
    for (std::size_t i = 0; i < problems.size(); ++i) out.error += (i ? "; " : "") + problems[i];
    out.hint =
        "per-engine copies (--engine) and the node facts read from ROCr (XCCs, caches, SDMA engine counts) are "
        "left out for those GPUs; compare `rocminfo` (BDFID) with `rocm-smi --showbus`, or select GPUs with "
        "ROCR_VISIBLE_DEVICES instead of HIP_VISIBLE_DEVICES";
  }
  return out;
}

// ---- engines ----

StatusQuery statusQueryFor(CopyKind kind) {
  // ROCr refuses the status of a copy within one agent: ROCR-Runtime core/runtime/runtime.cpp,
  // Runtime::CopyMemoryStatus returns HSA_STATUS_ERROR_INVALID_AGENT when dst_agent ==
  // src_agent. The engines it reports belong to the copying GPU agent either way
  // (core/runtime/amd_gpu_agent.cpp, GpuAgent::DmaCopyStatus: for a host <-> GPU pair, bit 0 when
  // the host-to-device engine is idle, bit 1 the device-to-host one, bits 2.. the xGMI ones),
  // so a GPU-local copy asks for the same GPU with the CPU agent as its source.
  return kind == CopyKind::GpuLocal ? StatusQuery::GpuFromHostProxy : StatusQuery::SrcDst;
}

// Without --engine: the engines a copy of this kind may take, in the order they are tried
// (chooseEngine's comment in amd_node.hpp).
std::vector<int> engineOrder(CopyKind kind, const EngineCounts& counts) {
  const int total = counts.total();
  const bool countsKnown = total > 0;
  const bool xgmiOnly = kind == CopyKind::PeerXgmi && counts.xgmi > 0;
  std::vector<int> order;
  auto add = [&](int e) {
    if (e < 0 || (countsKnown && e >= total) || e >= 32) return;
    if (std::find(order.begin(), order.end(), e) == order.end()) order.push_back(e);
  };
  const int pcie = countsKnown ? counts.pcie : 2;
  if (!xgmiOnly) {
    // ROCr's own defaults: host -> GPU on engine 0 (BlitHostToDev), GPU -> host on engine 1
    // when there are two PCIe engines (GpuAgent::DmaCopyStatus). A GPU-local copy forced onto
    // SDMA goes where it is told; hsa_ext_amd.h's description of force_copy_on_sdma names SDMA1.
    if (kind == CopyKind::GpuToHost || kind == CopyKind::GpuLocal) {
      if (pcie >= 2) add(1);
      add(0);
    } else {
      add(0);
      if (pcie >= 2) add(1);
    }
    for (int e = 2; e < pcie; ++e) add(e);
  }
  for (int e = pcie; e < (countsKnown ? total : pcie); ++e) add(e);
  return order;
}

EngineChoice chooseEngine(int requested, CopyKind kind, const EngineCounts& counts, const EngineStatus& status) {
  EngineChoice c;
  const int total = counts.total();
  const bool countsKnown = total > 0;
  // xGMI peer copies: ROCr refuses engine offsets of PCIe engines (ROCR-Runtime
  // core/runtime/amd_gpu_agent.cpp, GpuAgent::DmaCopyOnEngine: is_xgmi && engine_offset <=
  // NumSdmaEngines -> HSA_STATUS_ERROR_INVALID_ARGUMENT, with engine_offset = engine id + 1 from
  // core/runtime/runtime.cpp, Runtime::CopyMemoryOnEngine, ffs(engine_id)).
  const bool xgmiOnly = kind == CopyKind::PeerXgmi && counts.xgmi > 0;
  auto maskText = [&] { return hex(status.mask); };
  if (requested >= 0) {
    if (countsKnown && requested >= total) {
      c.error = "SDMA engine " + std::to_string(requested) + " does not exist: this GPU has " +
                plural(total, "engine", "engines") + " (" + std::to_string(counts.pcie) + " PCIe, " +
                std::to_string(counts.xgmi) + " xGMI; ids 0.." + std::to_string(total - 1) + ")";
      c.hint = "pick an id from `sdma-probe info` (the GPU's engines), or leave out --engine";
      return c;
    }
    if (xgmiOnly && requested < counts.pcie) {
      c.error = "SDMA engine " + std::to_string(requested) +
                " is a PCIe engine; ROCr copies between GPUs of one xGMI hive only on the xGMI engines (ids " +
                std::to_string(counts.pcie) + ".." + std::to_string(total - 1) + ")";
      c.hint = "pick an xGMI engine (kind xgmi in `sdma-probe info`), or leave out --engine";
      return c;
    }
    if (status.known && (status.mask & (1u << requested)) == 0) {
      c.error = "SDMA engine " + std::to_string(requested) + " cannot take this copy now (engines free: mask " +
                maskText() + ", bit n = engine n)";
      c.hint = "pick an engine whose bit is set, or leave out --engine";
      return c;
    }
    c.engineId = requested;
    if (!status.known)
      c.note = "engine status unknown (" + status.why + "); copying on engine " + std::to_string(requested);
    return c;
  }
  const std::vector<int> order = engineOrder(kind, counts);
  if (order.empty()) {
    c.error = "this GPU reports no SDMA engine for this copy (" + std::to_string(counts.pcie) + " PCIe, " +
              std::to_string(counts.xgmi) + " xGMI)";
    c.hint = "check `rocminfo` and HSA_ENABLE_SDMA; leave engine/host out of --paths";
    return c;
  }
  if (!status.known) {
    c.engineId = order.front();
    c.note = "engine status unknown (" + status.why + "); copying on engine " + std::to_string(c.engineId);
    return c;
  }
  for (int e : order) {
    if (status.mask & (1u << e)) {
      c.engineId = e;
      return c;
    }
  }
  c.error = "no SDMA engine that can take this copy is free now (engines free: mask " + maskText() + ")";
  c.hint = "other work is using the GPU's copy engines; retry when the GPU is idle, or name one with --engine";
  return c;
}

EngineSet chooseEngines(int n, CopyKind kind, const EngineCounts& counts, const EngineStatus& status,
                        const std::string& between) {
  EngineSet set;
  const std::string asked = "--engines " + std::to_string(n);
  if (!status.known) {
    set.error = asked + ": which SDMA engines are free " + between + " is not known (" + status.why + "), so " +
                std::to_string(n) + " distinct ones cannot be picked";
    set.hint = "leave out --engines (one engine, the runtime's choice), or check the ROCm install";
    return set;
  }
  for (int e : engineOrder(kind, counts)) {
    if ((status.mask & (1u << e)) != 0 && static_cast<int>(set.ids.size()) < n) set.ids.push_back(e);
  }
  if (static_cast<int>(set.ids.size()) < n) {
    const int free = static_cast<int>(set.ids.size());
    set.error = asked + ": only " + plural(free, "SDMA engine is", "SDMA engines are") + " free " + between +
                " (engines free: mask " + hex(status.mask) + ", bit n = engine n" +
                (kind == CopyKind::PeerXgmi && counts.xgmi > 0 ? "; xGMI engines only between these GPUs" : "") + ")";
    set.hint =
        free > 0 ? "use --engines " + std::to_string(free) + " or fewer" : "retry when the GPU's copy engines are idle";
    set.ids.clear();
  }
  return set;
}

Completion completionOf(std::int64_t signalValue) {
  if (signalValue < 0) return Completion::Failed;
  return signalValue == 0 ? Completion::Done : Completion::Pending;
}

// ---- CU masks and XCCs ----

CuLayout cuLayout(int firstCu, int cus, int totalCus, int blocks, int xccs) {
  // The driver gives CU mask bit i to XCC i % xccs: Linux
  // drivers/gpu/drm/amd/amdkfd/kfd_mqd_manager.c, mqd_symmetrically_map_cu_mask ("For GFX 9.4.3
  // ... cu_mask[0] bit0 -> XCC0, bit1 -> XCC1, ..., bit n -> XCC0 ..."), which ROCr's
  // hsa_amd_queue_cu_set_mask hands the mask to and CLR calls for a stream made with
  // hipExtStreamCreateWithCUMask (ROCm/clr rocclr/device/rocm/rocdevice.cpp, Device::acquireQueue).
  // Workgroups of one dispatch go round-robin over the XCCs starting at XCC 0: public AMD
  // material says so (ROCm/composable_kernel pull request 3652, iree-org/wave pull request
  // 1001: "the hardware assigns flat workgroup indices round robin to 8 XCD"); that the
  // round starts at XCC 0 for every dispatch is a guess, not checked on hardware.
  const int n = std::max(1, xccs);
  CuLayout l;
  l.cusPerXcc.assign(static_cast<std::size_t>(n), 0);
  l.blocksPerXcc.assign(static_cast<std::size_t>(n), 0);
  for (int c = 0; c < cus; ++c) {
    int bit = firstCu + c;
    if (totalCus > 0) bit %= totalCus;
    ++l.cusPerXcc[static_cast<std::size_t>(bit % n)];
  }
  for (int x = 0; x < n; ++x) {
    l.blocksPerXcc[static_cast<std::size_t>(x)] = blocks / n + (x < blocks % n ? 1 : 0);
  }
  return l;
}

std::optional<Refusal> unsafeCuLayout(int firstCu, int cus, int totalCus, int blocks, int xccs) {
  if (xccs <= 1 || cus <= 0) return std::nullopt;
  const CuLayout l = cuLayout(firstCu, cus, totalCus, blocks, xccs);
  std::vector<int> starved;
  for (int x = 0; x < xccs; ++x) {
    const auto i = static_cast<std::size_t>(x);
    if (l.blocksPerXcc[i] > 0 && l.cusPerXcc[i] == 0) starved.push_back(x);
  }
  if (starved.empty()) return std::nullopt;
  Refusal r;
  r.message = plural(blocks, "block", "blocks") + " on " + plural(cus, "masked CU", "masked CUs") +
              (firstCu > 0 ? " (from CU " + std::to_string(firstCu) + ")" : std::string()) + " of a GPU with " +
              std::to_string(xccs) + " XCCs: the driver spreads a CU mask over the XCCs (bit i on XCC i mod " +
              std::to_string(xccs) + ") and a launch's blocks go round-robin over all of them, so XCC " +
              std::to_string(starved.front()) +
              (starved.size() > 1 ? " and " + std::to_string(starved.size() - 1) + " more" : "") +
              " would get blocks and no CU to run them (the copy would hang)";
  r.hint = "use --cus that is a multiple of " + std::to_string(xccs) +
           " (every XCC then holds a share), or --blocks-per-cu 1";
  return r;
}

std::optional<Refusal> unsafeBlocksPerCu(int cus, int blocksPerCu, int xccs) {
  return unsafeCuLayout(0, cus, 0, cus * std::max(1, blocksPerCu), xccs);
}

GridPlan residentGrid(int cus, int blocksPerCu, int occupancyPerCu, int xccs) {
  GridPlan g;
  g.requested = cus * std::max(1, blocksPerCu);
  if (cus <= 0) {
    g.error = "cu/device needs at least one CU";
    g.hint = "use --cus 1 or more";
    return g;
  }
  if (occupancyPerCu <= 0) {
    g.error = "the cu/device kernel does not fit on one CU (occupancy 0 blocks per CU at this block size)";
    g.hint = "use --blocks-per-cu 1";
    return g;
  }
  if (auto r = unsafeBlocksPerCu(cus, blocksPerCu, xccs)) {
    g.error = r->message;
    g.hint = r->hint;
    return g;
  }
  // Every block must be resident at once for the grid barrier: per XCC, its blocks at most
  // occupancy x its masked CUs. The largest grid up to the request that keeps every XCC there.
  const int n = std::max(1, xccs);
  const CuLayout cusOnly = cuLayout(0, cus, 0, 0, n);
  for (int blocks = std::min(g.requested, occupancyPerCu * cus); blocks >= 1; --blocks) {
    const CuLayout l = cuLayout(0, cus, 0, blocks, n);
    bool fits = true;
    for (int x = 0; x < n && fits; ++x) {
      const auto i = static_cast<std::size_t>(x);
      fits = l.blocksPerXcc[i] <= occupancyPerCu * cusOnly.cusPerXcc[i];
    }
    if (fits) {
      g.blocks = blocks;
      return g;
    }
  }
  g.error = "no grid of the cu/device kernel fits on the masked CUs";
  g.hint = "use --blocks-per-cu 1 and --cus a multiple of " + std::to_string(n);
  return g;
}

std::optional<Refusal> cusSeenBeyondMask(int cusSeen, int cusMasked) {
  if (cusSeen <= cusMasked) return std::nullopt;
  Refusal r;
  r.message = "the trace saw " + plural(cusSeen, "CU", "CUs") + " carry the copy, but its stream's CU mask holds " +
              std::to_string(cusMasked) + ": the mask was not applied, so the sample's CU count would be wrong";
  r.hint =
      "report it with `sdma-probe info`, the ROCm version and HSA_CU_MASK / ROC_GLOBAL_CU_MASK if set; "
      "cu/device samples from this node cannot be trusted for a CU count";
  return r;
}

// ---- caches ----

LastLevelCache lastLevelCache(const CacheSizes& hsa, bool hsaKnown, std::uint64_t hipL2Bytes, int xccs,
                              std::string_view arch) {
  LastLevelCache out;
  // ROCr adds up the KFD cache entries of level 2 and above (ROCR-Runtime
  // core/runtime/amd_gpu_agent.cpp, GpuAgent::GetInfo, HSA_AGENT_INFO_CACHE_SIZE), yet rocminfo
  // on MI300X and MI350X prints L2 4096 KB, the L2 of one XCC (CDNA 3 white paper: 4 MB per XCD):
  // taken here as per XCC and multiplied, which can only make the rotation larger.
  std::uint64_t l2 = hsaKnown ? hsa.level[1] : 0;
  if (l2 == 0) l2 = hipL2Bytes;
  const std::uint64_t l2All = l2 * static_cast<std::uint64_t>(std::max(1, xccs));
  out.bytes = l2All;
  out.source = xccs > 1 ? "L2 x " + std::to_string(xccs) + " XCCs" : "L2";
  std::uint64_t beyond = 0;
  if (hsaKnown) beyond = std::max<std::uint64_t>(hsa.level[2], hsa.level[3]);
  if (beyond > 0) {
    if (beyond >= out.bytes) {
      out.bytes = beyond;
      out.source = "HSA L3 (MALL)";
    }
    return out;
  }
  // ROCm releases whose KFD lists no L3 (rocminfo shows L1 and L2 only) still have the MALL:
  // AMD's CDNA 3 white paper gives MI300 256 MB of Infinity Cache, and CDNA 4 keeps 256 MB
  // (as quoted in nod-ai/amd-shark-ai pull request 2005). Documented figures, not read here.
  if (arch.rfind("gfx942", 0) == 0 || arch.rfind("gfx950", 0) == 0) {
    const std::uint64_t mall = 256ull << 20;
    if (mall > out.bytes) {
      out.bytes = mall;
      out.source = "documented MALL of " + std::string(arch.substr(0, 6)) + " (ROCr reports no L3)";
    }
  }
  return out;
}

// ---- partitions ----

std::string parseComputePartition(std::string_view sysfsText) {
  std::string t;
  for (char c : sysfsText) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\0') continue;
    t.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  // The modes rocm-smi knows (ROCm/rocm-systems projects/rocm-smi-lib/src/rocm_smi.cc, the
  // compute partition names), read from the driver's current_compute_partition
  // (projects/rocm-smi-lib/src/rocm_smi_device.cc, kDevComputePartitionFName, under
  // /sys/class/drm/cardN/device/).
  for (const char* mode : {"SPX", "DPX", "TPX", "QPX", "CPX"}) {
    if (t == mode) return t;
  }
  return {};
}

std::vector<std::string> computePartitionPaths(const PciAddress& a) {
  std::vector<std::string> paths{"/sys/bus/pci/devices/" + pciBusIdText(a) + "/current_compute_partition"};
  if (a.function != 0) {
    // A guess, not checked on a partitioned node: partitions past the first carry the node id in
    // their function bits (kfd_topology_add_device), and the file is the physical function's.
    PciAddress first = a;
    first.function = 0;
    paths.push_back("/sys/bus/pci/devices/" + pciBusIdText(first) + "/current_compute_partition");
  }
  return paths;
}

int xccCountOf(bool hsaAnswered, std::uint32_t numXcc) {
  // HSA_AMD_AGENT_INFO_NUM_XCC is KFD's num_xcc of the agent's node (ROCR-Runtime
  // core/runtime/amd_gpu_agent.cpp, GpuAgent::GetInfo: properties_.NumXcc): per partition.
  return hsaAnswered && numXcc > 0 && numXcc <= 64 ? static_cast<int>(numXcc) : 0;
}

std::string describePartition(const std::vector<int>& gpus, const std::string& mode, int cus, int xccs,
                              const EngineCounts& engines) {
  // "GPU 4", "GPUs 0-7", "GPUs 0, 2, 5": runs of consecutive ids as ranges.
  std::string list;
  for (std::size_t i = 0; i < gpus.size();) {
    std::size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    list += (list.empty() ? "" : ", ") + std::to_string(gpus[i]);
    if (j > i) list += (j == i + 1 ? ", " : "-") + std::to_string(gpus[j]);
    i = j + 1;
  }
  const bool one = gpus.size() == 1;
  std::string text = (one ? "GPU " : "GPUs ") + list + (one ? " is a " : " are ") + mode + " compute partition" +
                     (one ? "" : "s") + ": " + plural(cus, "CU", "CUs") + " on " +
                     (xccs > 0 ? plural(xccs, "XCC", "XCCs") : std::string("an unknown number of XCCs"));
  text += ", SDMA engines " + std::to_string(engines.pcie) + " PCIe + " + std::to_string(engines.xgmi) + " xGMI" +
          (one ? " (its share of the GPU's)" : " each (their share of the GPU's)");
  return text;
}

// ---- clock ----

DeviceClock deviceClockFromWallClockRate(bool answered, int wallClockRateKHz) {
  DeviceClock c;
  // ROCr documents HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY in the range 1-400 MHz (hsa_ext_amd.h);
  // CLR returns it in kHz as hipDeviceAttributeWallClockRate (ROCm/clr rocdevice.cpp,
  // Device::populateOCLDeviceConstants: wallClockFrequency_ = TIMESTAMP_FREQUENCY / 1000).
  if (answered && wallClockRateKHz >= 1000 && wallClockRateKHz <= 400000) {
    c.hz = static_cast<double>(wallClockRateKHz) * 1e3;
    c.queried = true;
    return c;
  }
  c.note = answered ? "hipDeviceAttributeWallClockRate answered " + std::to_string(wallClockRateKHz) +
                          " kHz, outside ROCr's 1-400 MHz; device times assume s_memrealtime at 100 MHz"
                    : "hipDeviceAttributeWallClockRate did not answer; device times assume s_memrealtime at 100 MHz";
  return c;
}

}  // namespace sdma::gpu::amd
