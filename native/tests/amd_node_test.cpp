// The HIP backend's decisions about AMD nodes (backend/amd_node.hpp), over fixtures shaped like
// what rocminfo, KFD's topology, HIP and the driver's sysfs print on MI300X and MI350X nodes
// (native/tests/fixtures/amd/README.md says where each number comes from). Also: NVIDIA's
// rotation plan keeps its H200 figures.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backend/amd_node.hpp"
#include "backend/timing_plan.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma::gpu;
using namespace sdma::gpu::amd;
using namespace sdma::testing;

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read fixture ", path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// "4096(0x1000) KB" -> 4096
std::uint64_t leadingNumber(const std::string& s) { return std::strtoull(trim(s).c_str(), nullptr, 10); }

// One GPU agent as rocminfo prints it.
struct RocminfoAgent {
  std::string name, marketingName;
  int node = -1, cus = 0;
  std::uint32_t bdfid = 0;
  CacheSizes caches;
};

std::vector<RocminfoAgent> parseRocminfo(const std::string& text) {
  std::vector<RocminfoAgent> gpus;
  RocminfoAgent current;
  bool isGpu = false;
  auto flush = [&] {
    if (isGpu) gpus.push_back(current);
    current = {};
    isGpu = false;
  };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Agent ", 0) == 0) {
      flush();
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "Name") current.name = value;
    if (key == "Marketing Name") current.marketingName = value;
    if (key == "Device Type") isGpu = value == "GPU";
    if (key == "Node") current.node = static_cast<int>(leadingNumber(value));
    if (key == "Compute Unit") current.cus = static_cast<int>(leadingNumber(value));
    if (key == "BDFID") current.bdfid = static_cast<std::uint32_t>(leadingNumber(value));
    // rocminfo prints HSA_AGENT_INFO_CACHE_SIZE / 1024.
    if (key == "L1" || key == "L2" || key == "L3" || key == "L4") {
      current.caches.level[key[1] - '1'] = static_cast<std::uint32_t>(leadingNumber(value) * 1024);
    }
  }
  flush();
  return gpus;
}

// KFD topology properties by node: "== nodes/N/properties" then "key value" lines.
std::map<int, std::map<std::string, std::uint64_t>> parseKfd(const std::string& text) {
  std::map<int, std::map<std::string, std::uint64_t>> nodes;
  int node = -1;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("== nodes/", 0) == 0) {
      node = std::atoi(line.c_str() + 9);
      continue;
    }
    std::istringstream words(line);
    std::string key;
    std::uint64_t value = 0;
    if (node >= 0 && (words >> key >> value)) nodes[node][key] = value;
  }
  return nodes;
}

struct HipDevice {
  std::string busId;
  int wallClockKHz = 0;
};

std::vector<HipDevice> parseHip(const std::string& text) {
  std::vector<HipDevice> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("device ", 0) != 0) continue;
    std::istringstream words(line);
    std::string device, busWord, busId, clockWord;
    int index = 0, khz = 0;
    words >> device >> index >> busWord >> busId >> clockWord >> khz;
    out.push_back({busId, khz});
  }
  return out;
}

// What the backend builds from ROCr and HIP on one fixture node.
struct Node {
  std::vector<RocminfoAgent> agents;
  std::map<int, std::map<std::string, std::uint64_t>> kfd;
  std::vector<HipDevice> hip;
  std::string partition;

  std::vector<AgentLocation> locations() const {
    std::vector<AgentLocation> out;
    for (const RocminfoAgent& a : agents) {
      const auto& p = kfd.at(a.node);
      out.push_back({static_cast<std::uint32_t>(p.at("domain")), static_cast<std::uint32_t>(p.at("location_id"))});
    }
    return out;
  }
  std::vector<std::string> busIds() const {
    std::vector<std::string> out;
    for (const HipDevice& d : hip) out.push_back(d.busId);
    return out;
  }
  EngineCounts engines(std::size_t agent) const {
    const auto& p = kfd.at(agents[agent].node);
    return {static_cast<int>(p.at("num_sdma_engines")), static_cast<int>(p.at("num_sdma_xgmi_engines"))};
  }
  int xccs(std::size_t agent) const {
    return xccCountOf(true, static_cast<std::uint32_t>(kfd.at(agents[agent].node).at("num_xcc")));
  }
};

Node loadNode(const std::string& name) {
  const std::string dir = appArg(0, "the fixture folder native/tests/fixtures/amd") + "/" + name;
  Node n;
  n.agents = parseRocminfo(readAll(dir + "/rocminfo.txt"));
  n.kfd = parseKfd(readAll(dir + "/kfd-properties.txt"));
  n.hip = parseHip(readAll(dir + "/hip.txt"));
  n.partition = parseComputePartition(readAll(dir + "/current_compute_partition"));
  REQUIRE(!n.agents.empty());
  REQUIRE(n.agents.size() == n.hip.size());
  for (const RocminfoAgent& a : n.agents) {
    // rocminfo's BDFID is KFD's location_id (ROCr: HSA_AMD_AGENT_INFO_BDFID = LocationId).
    REQUIRE(n.kfd.count(a.node) == 1);
    CHECK(a.bdfid == n.kfd.at(a.node).at("location_id"));
  }
  return n;
}

}  // namespace

TEST_CASE("fixtures read as the node's tools print them") {
  const Node mi300x = loadNode("mi300x-spx");
  CHECK(mi300x.agents.size() == 8);
  CHECK(mi300x.agents[0].name == "gfx942");
  CHECK(mi300x.agents[0].cus == 304);
  CHECK(mi300x.agents[0].caches.level[2] == 256 * MiB);
  CHECK(mi300x.xccs(0) == 8);
  CHECK(mi300x.partition == "SPX");
  const Node cpx = loadNode("mi350x-cpx");
  CHECK(cpx.agents.size() == 8);
  CHECK(cpx.agents[3].cus == 32);
  CHECK(cpx.xccs(3) == 1);
  CHECK(cpx.partition == "CPX");
}

TEST_CASE("HIP devices find their HSA agents by PCI address, not by position") {
  const Node node = loadNode("mi300x-spx");
  const std::vector<AgentLocation> agents = node.locations();

  const AgentMatch all = matchAgentsByPciBus(node.busIds(), agents, true);
  CHECK(all.error.empty());
  for (std::size_t d = 0; d < all.agentOfDevice.size(); ++d) CHECK(all.agentOfDevice[d] == static_cast<int>(d));

  // HIP_VISIBLE_DEVICES=3,1: HIP device 0 is the fourth GPU, device 1 the second; ROCr still
  // lists all eight agents. Matching by position would send device 0's engine copies to GPU 0.
  const std::vector<std::string> picked{node.hip[3].busId, node.hip[1].busId};
  const AgentMatch reordered = matchAgentsByPciBus(picked, agents, false);
  CHECK(reordered.error.empty());
  CHECK(reordered.agentOfDevice == std::vector<int>{3, 1});

  // ROCR_VISIBLE_DEVICES=5: ROCr lists one agent, HIP one device; both the sixth GPU.
  const AgentMatch rocrOnly = matchAgentsByPciBus({node.hip[5].busId}, {agents[5]}, true);
  CHECK(rocrOnly.agentOfDevice == std::vector<int>{0});

  // A device with no agent at its address: a clear error naming it.
  const AgentMatch missing = matchAgentsByPciBus({"0000:1b:00.0", "0000:77:00.0"}, agents, true);
  CHECK(missing.agentOfDevice == std::vector<int>{0, -1});
  CHECK(missing.error.find("GPU 1: no HSA GPU agent at PCI address 0000:77:00.0") != std::string::npos);
  CHECK(!missing.hint.empty());

  const AgentMatch garbage = matchAgentsByPciBus({"not-a-bus-id"}, agents, true);
  CHECK(garbage.error.find("does not parse") != std::string::npos);

  CHECK(parsePciBusId("0000:1B:00.0")->bus == 0x1b);
  CHECK(parsePciBusId("00000000:ab:00.7")->function == 7);
  CHECK(!parsePciBusId("0000:1b:00"));
  CHECK(!parsePciBusId("0000:1b:20.0"));  // device numbers stop at 0x1f
  CHECK(pciBusIdText(*parsePciBusId("0000:AB:00.3")) == "0000:ab:00.3");
}

TEST_CASE("CPX partitions: each its own agent, matched by the function bits") {
  const Node node = loadNode("mi350x-cpx");
  const std::vector<AgentLocation> agents = node.locations();
  const AgentMatch all = matchAgentsByPciBus(node.busIds(), agents, true);
  CHECK(all.error.empty());
  for (std::size_t d = 0; d < all.agentOfDevice.size(); ++d) CHECK(all.agentOfDevice[d] == static_cast<int>(d));
  const AgentMatch picked = matchAgentsByPciBus({node.hip[6].busId, node.hip[2].busId}, agents, false);
  CHECK(picked.agentOfDevice == std::vector<int>{6, 2});

  // A driver that puts the partition in bits 31:28 instead: the low 16 bits (all HIP sees) are
  // the same for every partition. In ROCr's order only while HIP keeps that order.
  std::vector<AgentLocation> high = agents;
  std::vector<std::string> sameBus;
  for (std::size_t k = 0; k < high.size(); ++k) {
    high[k].bdfid = (0xabu << 8) | static_cast<std::uint32_t>(k) << 28;
    sameBus.push_back("0000:ab:00.0");
  }
  const AgentMatch ordered = matchAgentsByPciBus(sameBus, high, true);
  CHECK(ordered.error.empty());
  CHECK(ordered.agentOfDevice[7] == 7);
  const AgentMatch reorderedHip = matchAgentsByPciBus({"0000:ab:00.0", "0000:ab:00.0"}, high, false);
  CHECK(reorderedHip.agentOfDevice == std::vector<int>{-1, -1});
  CHECK(reorderedHip.error.find("share PCI address 0000:ab:00.0") != std::string::npos);

  // Each partition holds a share: 32 CUs, 1 XCC, 2 PCIe engines and no xGMI one.
  const EngineCounts e = node.engines(0);
  CHECK(e.pcie == 2);
  CHECK(e.xgmi == 0);
  const std::string line = describePartition({4}, node.partition, node.agents[4].cus, node.xccs(4), e);
  CHECK(line ==
        "GPU 4 is a CPX compute partition: 32 CUs on 1 XCC, SDMA engines 2 PCIe + 0 xGMI (its share of the GPU's)");
  const std::string every = describePartition({0, 1, 2, 3, 4, 5, 6, 7}, node.partition, 32, 1, e);
  CHECK(every.rfind("GPUs 0-7 are CPX compute partitions: 32 CUs on 1 XCC, SDMA engines 2 PCIe + 0 xGMI each", 0) == 0);
  CHECK(describePartition({0, 1, 3}, "DPX", 128, 4, {2, 6}).rfind("GPUs 0, 1, 3 are DPX", 0) == 0);
}

TEST_CASE("SDMA engine choice for per-engine copies") {
  const Node node = loadNode("mi300x-spx");
  const EngineCounts counts = node.engines(0);
  REQUIRE(counts.total() == 16);
  const EngineStatus unknown{false, 0, "not asked"};
  const EngineStatus allFree{true, 0xFFFFu, ""};

  // ROCr refuses the status of a copy within one agent: the GPU-local copy asks with the CPU.
  CHECK(statusQueryFor(CopyKind::GpuLocal) == StatusQuery::GpuFromHostProxy);
  CHECK(statusQueryFor(CopyKind::HostToGpu) == StatusQuery::SrcDst);

  // No --engine: ROCr's own engine for the direction, where free.
  CHECK(chooseEngine(-1, CopyKind::HostToGpu, counts, allFree).engineId == 0);
  CHECK(chooseEngine(-1, CopyKind::GpuToHost, counts, allFree).engineId == 1);
  CHECK(chooseEngine(-1, CopyKind::GpuLocal, counts, allFree).engineId == 1);
  CHECK(chooseEngine(-1, CopyKind::GpuLocal, counts, EngineStatus{true, 0b1100, ""}).engineId == 2);
  CHECK(chooseEngine(-1, CopyKind::PeerXgmi, counts, allFree).engineId == 2);
  CHECK(chooseEngine(-1, CopyKind::PeerXgmi, counts, EngineStatus{true, 0b10011, ""}).engineId == 4);
  const EngineChoice blind = chooseEngine(-1, CopyKind::GpuLocal, counts, unknown);
  CHECK(blind.engineId == 1);
  CHECK(blind.note.find("not asked") != std::string::npos);
  const EngineChoice busy = chooseEngine(-1, CopyKind::PeerXgmi, counts, EngineStatus{true, 0b11, ""});
  CHECK(busy.engineId == -1);
  CHECK(busy.error.find("no SDMA engine") != std::string::npos);

  // --engine N: checked against the counts, the kind and the status.
  CHECK(chooseEngine(7, CopyKind::GpuLocal, counts, allFree).engineId == 7);
  CHECK(chooseEngine(16, CopyKind::HostToGpu, counts, allFree).error.find("does not exist") != std::string::npos);
  CHECK(chooseEngine(0, CopyKind::PeerXgmi, counts, allFree).error.find("PCIe engine") != std::string::npos);
  const EngineChoice taken = chooseEngine(3, CopyKind::HostToGpu, counts, EngineStatus{true, 0b0111, ""});
  CHECK(taken.engineId == -1);
  CHECK(taken.error.find("mask 0x7") != std::string::npos);

  // A CPX partition has no xGMI engine: a peer copy in its hive uses the PCIe ones.
  const Node cpx = loadNode("mi350x-cpx");
  CHECK(chooseEngine(-1, CopyKind::PeerXgmi, cpx.engines(0), allFree).engineId == 0);
  CHECK(chooseEngine(2, CopyKind::HostToGpu, cpx.engines(0), allFree).error.find("ids 0..1") != std::string::npos);
}

TEST_CASE("completion signals: a negative value is a copy error") {
  CHECK(completionOf(0) == Completion::Done);
  CHECK(completionOf(3) == Completion::Pending);
  CHECK(completionOf(-1) == Completion::Failed);
}

TEST_CASE("cu/device grid and CU masks over XCCs") {
  const Node node = loadNode("mi300x-spx");
  const int xccs = node.xccs(0);
  REQUIRE(xccs == 8);

  // Mask bit i is on XCC i mod 8: 12 CUs give XCCs 0-3 two each, 4-7 one.
  const CuLayout l = cuLayout(0, 12, 304, 24, xccs);
  CHECK(l.cusPerXcc == std::vector<int>{2, 2, 2, 2, 1, 1, 1, 1});
  CHECK(l.blocksPerXcc == std::vector<int>{3, 3, 3, 3, 3, 3, 3, 3});

  CHECK(residentGrid(8, 1, 2, xccs).blocks == 8);
  CHECK(residentGrid(304, 1, 2, xccs).blocks == 304);
  CHECK(residentGrid(4, 1, 2, xccs).blocks == 4);
  // Resident at once on 12 CUs at 2 a CU: XCCs 4-7 hold 2 blocks, so 20 of the 24 asked for.
  const GridPlan capped = residentGrid(12, 2, 2, xccs);
  CHECK(capped.blocks == 20);
  CHECK(capped.requested == 24);
  CHECK(residentGrid(12, 2, 4, xccs).blocks == 24);
  CHECK(!residentGrid(8, 1, 0, xccs).error.empty());

  // 4 CUs x 2 blocks on 8 XCCs: XCCs 4-7 get blocks and no CU.
  const auto refused = unsafeBlocksPerCu(4, 2, xccs);
  REQUIRE(refused);
  CHECK(refused->message.find("XCC 4 and 3 more") != std::string::npos);
  CHECK(refused->hint.find("multiple of 8") != std::string::npos);
  CHECK(!residentGrid(4, 2, 2, xccs).error.empty());
  CHECK(!unsafeBlocksPerCu(4, 1, xccs));
  CHECK(!unsafeBlocksPerCu(8, 4, xccs));
  CHECK(!unsafeBlocksPerCu(12, 2, xccs));
  // The second copy of a concurrent set on CUs 4-7: its 4 blocks go to XCCs 0-3, which it has none of.
  CHECK(unsafeCuLayout(4, 4, 304, 4, xccs));
  CHECK(!unsafeCuLayout(8, 8, 304, 8, xccs));

  // A CPX partition has one XCC: nothing to refuse.
  const Node cpx = loadNode("mi350x-cpx");
  CHECK(!unsafeBlocksPerCu(4, 2, cpx.xccs(0)));
  CHECK(residentGrid(4, 2, 2, cpx.xccs(0)).blocks == 8);

  CHECK(!cusSeenBeyondMask(8, 8));
  CHECK(!cusSeenBeyondMask(6, 8));
  const auto beyond = cusSeenBeyondMask(304, 8);
  REQUIRE(beyond);
  CHECK(beyond->message.find("saw 304 CUs") != std::string::npos);
}

TEST_CASE("rotation covers the MALL on MI300X and MI350X") {
  for (const char* name : {"mi300x-spx", "mi350x-spx", "mi350x-cpx"}) {
    const Node node = loadNode(name);
    const LastLevelCache llc = lastLevelCache(node.agents[0].caches, true, 4 * MiB, node.xccs(0), node.agents[0].name);
    CHECK(llc.bytes == 256 * MiB);
    CHECK(llc.source == "HSA L3 (MALL)");
    // Before: twice the one-XCC L2 HIP reports (8 MiB), so every copy above 8 MiB reused one slot.
    CHECK(planRotation(16 * MiB, 4 * MiB).slots == 1);
    const RotationPlan sixteen = planRotation(16 * MiB, llc.bytes);
    CHECK(sixteen.slots >= 32);
    CHECK(sixteen.regionBytes >= 2 * llc.bytes);
    CHECK(planRotation(300 * MiB, llc.bytes).slots == 2);
    CHECK(planRotation(1 * GiB, llc.bytes).slots == 1);
  }
  // An older ROCr that lists no L3 (rocminfo: L1 and L2 8192 KB only): the documented MALL.
  CacheSizes old;
  old.level[0] = 16 * 1024;
  old.level[1] = 8 * 1024 * 1024;
  const LastLevelCache documented = lastLevelCache(old, true, 8 * MiB, 8, "gfx942");
  CHECK(documented.bytes == 256 * MiB);
  CHECK(documented.source.find("documented") != std::string::npos);
  // No HSA at all (an old HIP): HIP's L2, per XCC when the XCCs are known.
  CHECK(lastLevelCache({}, false, 8 * MiB, 1, "gfx90a").bytes == 8 * MiB);
  CHECK(lastLevelCache({}, false, 4 * MiB, 8, "gfx90a").bytes == 32 * MiB);
}

TEST_CASE("NVIDIA's rotation is unchanged: the H200 figures") {
  // H200: 60 MiB L2 (cudaDevAttrL2CacheSize). The plan docs/MEASUREMENT.md's figures were measured with.
  const std::uint64_t l2 = 60 * MiB;
  const RotationPlan small = planRotation(4 * KiB, l2);
  CHECK(small.strideBytes == 8 * KiB);
  CHECK(small.slots == 15360);
  CHECK(small.regionBytes == 120 * MiB);
  const RotationPlan mid = planRotation(64 * MiB, l2);
  CHECK(mid.strideBytes == 64 * MiB + 4 * KiB);
  CHECK(mid.slots == 2);
  const RotationPlan large = planRotation(1 * GiB, l2);
  CHECK(large.slots == 1);
  CHECK(large.regionBytes == 1 * GiB + 4 * KiB);
  const RotationPlan odd = planRotation(1000, l2);
  CHECK(odd.strideBytes == 8 * KiB);
  CHECK(odd.slots == 15360);
}

TEST_CASE("XCC count and compute partition") {
  CHECK(parseComputePartition("CPX\n") == "CPX");
  CHECK(parseComputePartition("spx") == "SPX");
  CHECK(parseComputePartition("NPS1\n").empty());
  CHECK(parseComputePartition("").empty());
  const auto paths = computePartitionPaths(*parsePciBusId("0000:ab:00.3"));
  REQUIRE(paths.size() == 2);
  CHECK(paths[0] == "/sys/bus/pci/devices/0000:ab:00.3/current_compute_partition");
  CHECK(paths[1] == "/sys/bus/pci/devices/0000:ab:00.0/current_compute_partition");
  CHECK(computePartitionPaths(*parsePciBusId("0000:1b:00.0")).size() == 1);
  CHECK(xccCountOf(true, 8) == 8);
  CHECK(xccCountOf(false, 8) == 0);
  CHECK(xccCountOf(true, 0) == 0);
  const Node spx = loadNode("mi350x-spx");
  CHECK(spx.xccs(0) == 8);
  CHECK(spx.agents[0].cus == 256);
  CHECK(spx.partition == "SPX");
}

TEST_CASE("the device clock of s_memrealtime") {
  const Node node = loadNode("mi350x-spx");
  const DeviceClock c = deviceClockFromWallClockRate(true, node.hip[0].wallClockKHz);
  CHECK(c.queried);
  CHECK(c.hz == 100e6);
  CHECK(c.note.empty());
  const DeviceClock missing = deviceClockFromWallClockRate(false, 0);
  CHECK(!missing.queried);
  CHECK(missing.hz == 100e6);
  CHECK(missing.note.find("did not answer") != std::string::npos);
  const DeviceClock silly = deviceClockFromWallClockRate(true, 1000000);
  CHECK(!silly.queried);
  CHECK(silly.note.find("outside") != std::string::npos);
  CHECK(deviceClockFromWallClockRate(true, 25000).hz == 25e6);
}
