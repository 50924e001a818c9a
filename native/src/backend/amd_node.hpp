#pragma once

// The HIP backend's decisions about an AMD node, as plain data in and decisions out: no HIP or
// HSA header is included here, so every rule is unit-tested without a GPU
// (native/tests/amd_node_test.cpp, over the fixtures in native/tests/fixtures/amd/). The
// backend (native/src/backends/gpu/) asks HIP, ROCr and sysfs, fills these structs and acts
// on the answers. Sources of every fact about ROCr, CLR and the kernel driver are cited where
// the fact is used; docs/MEASUREMENT.md says what the helper does with them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdma::gpu::amd {

// ---- HIP devices <-> HSA agents, by PCI address ----

struct PciAddress {
  std::uint32_t domain = 0;
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
  std::uint32_t function = 0;
  // The low 16 bits of ROCr's HSA_AMD_AGENT_INFO_BDFID: bus << 8 | device << 3 | function.
  std::uint32_t bdf() const { return bus << 8 | device << 3 | function; }
  bool operator==(const PciAddress& o) const {
    return domain == o.domain && bus == o.bus && device == o.device && function == o.function;
  }
};

// "0000:1b:00.0" as hipDeviceGetPCIBusId prints it (any case; a 4- or 8-digit domain).
std::optional<PciAddress> parsePciBusId(std::string_view text);

// "dddd:bb:dd.f", lower case, as sysfs names PCI devices.
std::string pciBusIdText(const PciAddress& a);

// What ROCr says of a GPU agent: HSA_AMD_AGENT_INFO_DOMAIN and HSA_AMD_AGENT_INFO_BDFID.
struct AgentLocation {
  std::uint32_t domain = 0;
  std::uint32_t bdfid = 0;
  PciAddress address() const;
};

struct AgentMatch {
  std::vector<int> agentOfDevice;  // per HIP device: index into the agents given, -1 none
  std::string error;               // empty: every device has its agent
  std::string hint;
};

// HIP device d is the agent whose (domain, BDF) equals the PCI bus id HIP reports for d. HIP
// numbers devices after HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES pick and reorder ROCr's
// GPU agents, so position alone can name another GPU. Where several agents share one address
// (partitions of one GPU on a driver that does not tell them apart in the low 16 bits) they are
// matched in ROCr's order only when `hipKeepsRocrOrder` (no HIP_VISIBLE_DEVICES /
// CUDA_VISIBLE_DEVICES) and the counts agree; otherwise that is the error.
AgentMatch matchAgentsByPciBus(const std::vector<std::string>& hipBusIds, const std::vector<AgentLocation>& agents,
                               bool hipKeepsRocrOrder);

// ---- SDMA engines for engine/host copies on one engine ----

// ROCr's engine counts of a GPU agent: HSA_AMD_AGENT_INFO_NUM_SDMA_ENG (host-facing) and
// HSA_AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG. Engine ids: the PCIe ones first, then the xGMI ones;
// engine id e is bit e of hsa_amd_sdma_engine_id_t (HSA_AMD_SDMA_ENGINE_0 = 1 << 0, ...).
struct EngineCounts {
  int pcie = 0;
  int xgmi = 0;
  int total() const { return pcie + xgmi; }
};

enum class CopyKind { HostToGpu, GpuToHost, GpuLocal, PeerXgmi, PeerOther };

// How to ask ROCr which engines are free before a copy.
enum class StatusQuery {
  SrcDst,            // hsa_amd_memory_copy_engine_status(dst agent, src agent)
  GpuFromHostProxy,  // GPU-local: ROCr refuses src == dst, so ask for (this GPU <- CPU agent)
};
StatusQuery statusQueryFor(CopyKind kind);

// What came back from the status call.
struct EngineStatus {
  bool known = false;      // the call answered (mask valid, possibly 0: none free)
  std::uint32_t mask = 0;  // bit e: engine e free
  std::string why;         // when not known: what the call said
};

struct EngineChoice {
  int engineId = -1;  // the engine to copy on; -1 with error set
  std::string error;  // code engine-unavailable: message and hint
  std::string hint;
  std::string note;  // said once on stderr (e.g. no status, engine picked blind)
};

// The engine a copy runs on: `requested` (--engine, -1: none) checked against the counts,
// the copy kind and the status; without --engine the first free engine in the kind's order
// (host -> GPU: 0, 1, then xGMI; GPU -> host: 1, 0, then xGMI; GPU-local: 1, 0, then xGMI;
// xGMI peer: xGMI engines only; other peers: 0, 1, then xGMI).
EngineChoice chooseEngine(int requested, CopyKind kind, const EngineCounts& counts, const EngineStatus& status);

// Without --engine: the engines a copy of this kind may take, in the order chooseEngine tries
// them (engines past the counts left out; 0 and 1 assumed PCIe where the counts are unknown).
std::vector<int> engineOrder(CopyKind kind, const EngineCounts& counts);

// --engines n (engine/host split over SDMA engines): n distinct free engines in engineOrder's
// order, or an error naming how many are free `between` the endpoints (e.g. "between host and
// GPU 0"). The status must be known: without it no set of distinct free engines can be named.
struct EngineSet {
  std::vector<int> ids;
  std::string error;
  std::string hint;
};
EngineSet chooseEngines(int n, CopyKind kind, const EngineCounts& counts, const EngineStatus& status,
                        const std::string& between);

// A completion signal's value after the wait: 0 all copies done, > 0 still running (timed
// out), < 0 ROCr reported a copy error (hsa_ext_amd.h, hsa_amd_memory_async_copy: "The runtime
// indicates that an error has occurred during the copy operation by setting the value of the
// completion signal to a negative number").
enum class Completion { Done, Pending, Failed };
Completion completionOf(std::int64_t signalValue);

// ---- cu/device and cu/host: CU masks, XCCs, grids ----

// Mask bit i of a queue's CU mask is CU i / xccs of XCC i % xccs (see amd_node.cpp), and a
// dispatch's workgroups go round-robin over the XCCs: blocks given to an XCC whose CUs are all
// masked off never run.
struct CuLayout {
  std::vector<int> cusPerXcc;
  std::vector<int> blocksPerXcc;
};
// firstCu/cus: the mask's CUs [firstCu, firstCu + cus), wrapping at totalCus (0: no wrap).
CuLayout cuLayout(int firstCu, int cus, int totalCus, int blocks, int xccs);

struct Refusal {
  std::string message;
  std::string hint;
};

// --blocks-per-cu with a CU mask spread over XCCs: refused where some XCC gets blocks and no
// CUs (the copy would hang), e.g. 4 CUs x 2 blocks on 8 XCCs. xccs <= 1: nothing to refuse.
std::optional<Refusal> unsafeCuLayout(int firstCu, int cus, int totalCus, int blocks, int xccs);
std::optional<Refusal> unsafeBlocksPerCu(int cus, int blocksPerCu, int xccs);

// cu/device's grid on AMD: one normal launch on the CU-masked stream (not a cooperative launch,
// which CLR runs on another queue without the mask) whose blocks must all be resident at once
// for the grid barrier: at most occupancyPerCu x the masked CUs of each XCC.
struct GridPlan {
  int blocks = 0;     // grid size to launch
  int requested = 0;  // cus x blocksPerCu
  std::string error;  // non-empty: no grid is safe (message)
  std::string hint;
};
GridPlan residentGrid(int cus, int blocksPerCu, int occupancyPerCu, int xccs);

// After a traced run: more distinct CUs than the mask has means the mask was not applied.
std::optional<Refusal> cusSeenBeyondMask(int cusSeen, int cusMasked);

// ---- caches: what the rotation must cover ----

// HSA_AGENT_INFO_CACHE_SIZE: uint32_t[4], bytes of L1..L4 (0: no cache at that level).
struct CacheSizes {
  std::uint32_t level[4] = {0, 0, 0, 0};
};

struct LastLevelCache {
  std::uint64_t bytes = 0;
  std::string source;  // "hsa-l3", "hsa-l2 x N XCCs", "documented mall (gfx942)", "hip-l2"
};

// The largest cache a copy's data can still sit in: HSA's L3 (the MALL, "Infinity Cache") where
// ROCr reports one, else the MALL the product documents (gfx942, gfx950: 256 MiB), and at
// least L2 for every XCC. hipL2Bytes: hipDeviceProp_t::l2CacheSize (CLR's copy of HSA's L2).
LastLevelCache lastLevelCache(const CacheSizes& hsa, bool hsaKnown, std::uint64_t hipL2Bytes, int xccs,
                              std::string_view arch);

// ---- XCCs and compute partitions ----

// "SPX" "DPX" "TPX" "QPX" "CPX" from the driver's current_compute_partition (trailing newline
// and case tolerated); empty when the text is none of them.
std::string parseComputePartition(std::string_view sysfsText);

// Where the driver's current_compute_partition may be for a device's PCI address: its own
// folder, then function 0 of the same slot (partitions past the first carry a function number
// the PCI bus does not list).
std::vector<std::string> computePartitionPaths(const PciAddress& a);

// XCCs of a device: HSA_AMD_AGENT_INFO_NUM_XCC where ROCr answers, else 0 (unknown).
int xccCountOf(bool hsaAnswered, std::uint32_t numXcc);

// One line for stderr when GPUs are partitions of larger ones: their share of it.
std::string describePartition(const std::vector<int>& gpus, const std::string& mode, int cus, int xccs,
                              const EngineCounts& engines);

// ---- the device clock of s_memrealtime ----

struct DeviceClock {
  double hz = 100e6;
  bool queried = false;
  std::string note;  // said on stderr when the fallback is used
};
// hipDeviceAttributeWallClockRate (kHz): the rate HIP's wall_clock64() (s_memrealtime) runs
// at. Out of ROCr's documented 1-400 MHz or not answered: 100 MHz with a note.
DeviceClock deviceClockFromWallClockRate(bool answered, int wallClockRateKHz);

}  // namespace sdma::gpu::amd
