// ctest: the KFD's sysfs tree as the helper reads it (backend/kfd_sdma.hpp), over a fake tree
// this test writes into a temp folder: two GPUs and a CPU node, a process with counters,
// hostile values and files (garbage, a FIFO, a huge file, links out of the tree), a missing
// proc/; the counters read before and after a point as mover evidence (kfdEvidence); and run
// mode's sampler over the same tree (profile/rocm_sources.hpp, KfdSdmaSampler).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "backend/kfd_sdma.hpp"
#include "backend/mover_evidence.hpp"
#include "doctest_support.hpp"
#include "profile/rocm_sources.hpp"

using namespace sdma;

namespace {

// A fake sysfs tree under a fresh temp folder, removed with the object.
class FakeTree {
 public:
  FakeTree() {
    char tmpl[] = "/tmp/kfd-sdma-test.XXXXXX";
    const char* made = mkdtemp(tmpl);
    REQUIRE(made != nullptr);
    base_ = made;
    root_ = base_ + "/kfd";
    mkdir(root_.c_str(), 0755);
  }
  ~FakeTree() { std::system(("rm -rf '" + base_ + "'").c_str()); }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  const std::string& root() const { return root_; }
  const std::string& base() const { return base_; }

  // Writes `text` at root/<rel>, making the folders on the way.
  void write(const std::string& rel, const std::string& text) const {
    makeParents(rel);
    std::ofstream(root_ + "/" + rel, std::ios::binary | std::ios::trunc) << text;
  }
  void folder(const std::string& rel) const { makeParents(rel + "/x"); }
  void node(int n, std::uint32_t gpuId, const std::string& properties) const {
    write("topology/nodes/" + std::to_string(n) + "/gpu_id", std::to_string(gpuId) + "\n");
    write("topology/nodes/" + std::to_string(n) + "/properties", properties);
  }
  void counter(long pid, std::uint32_t gpuId, const std::string& text) const {
    write("proc/" + std::to_string(pid) + "/sdma_" + std::to_string(gpuId), text);
  }

 private:
  void makeParents(const std::string& rel) const {
    std::string path = root_;
    std::size_t start = 0;
    while (true) {
      const std::size_t slash = rel.find('/', start);
      if (slash == std::string::npos) return;
      path = root_ + "/" + rel.substr(0, slash);
      mkdir(path.c_str(), 0755);
      start = slash + 1;
    }
  }
  std::string base_, root_;
};

// Properties as kfd_topology.c writes them (a few of the lines), with the two PCI facts.
std::string properties(std::uint32_t domain, std::uint32_t locationId) {
  return "cpu_cores_count 0\nsimd_count 1216\nvendor_id 4098\ndevice_id 29857\nlocation_id " +
         std::to_string(locationId) + "\ndomain " + std::to_string(domain) + "\ndrm_render_minor 128\n";
}

// Two MI300X-like GPUs whose node order is not their PCI order, and a CPU node.
void twoGpus(const FakeTree& t) {
  t.write("topology/nodes/0/gpu_id", "0\n");
  t.write("topology/nodes/0/properties", "cpu_cores_count 96\nsimd_count 0\n");
  t.node(1, 51234, properties(0, 0xc100));  // 0000:c1:00.0
  t.node(2, 7777, properties(0, 0x0300));   // 0000:03:00.0
}

// The counters' change over a point, summed over the GPUs the copy touched.
std::uint64_t delta(const std::map<std::uint32_t, std::uint64_t>& before,
                    const std::map<std::uint32_t, std::uint64_t>& after) {
  std::uint64_t sum = 0;
  for (const auto& [gpuId, us] : after) {
    const auto it = before.find(gpuId);
    const std::uint64_t was = it == before.end() ? 0 : it->second;
    if (us > was) sum += us - was;
  }
  return sum;
}

}  // namespace

TEST_CASE("the values' parser") {
  CHECK(kfd::parseValue("0\n") == 0u);
  CHECK(kfd::parseValue("123456") == 123456u);
  CHECK(kfd::parseValue("18446744073709551615\n") == UINT64_MAX);
  for (const char* bad : {"", "\n", "-5\n", "+5\n", " 5\n", "5 \n", "5\n\n", "5\r\n", "12abc\n", "0x10\n",
                          "18446744073709551616\n", "1e3\n", "5\n6\n"}) {
    CHECK_MESSAGE(!kfd::parseValue(bad), "refused: ", bad);
  }
  CHECK(!kfd::parseValue(std::string(kfd::kMaxValueBytes + 1, '1')));

  CHECK(kfd::parseSdmaFileName("sdma_51234") == 51234u);
  CHECK(kfd::parseSdmaFileName("sdma_4294967295") == 4294967295u);
  for (const char* bad : {"sdma_", "sdma_01", "sdma_-1", "sdma_4294967296", "vram_1", "sdma_1x", "sdma"}) {
    CHECK_MESSAGE(!kfd::parseSdmaFileName(bad), "refused: ", bad);
  }
  CHECK(kfd::parsePidName("1234") == 1234L);
  for (const char* bad : {"0", "01", "-3", "2147483648", "abc", "", "12 "}) {
    CHECK_MESSAGE(!kfd::parsePidName(bad), "refused: ", bad);
  }
}

TEST_CASE("the properties' parser and the PCI address") {
  const kfd::NodeProperties p = kfd::parseProperties(properties(1, 0xc108));
  CHECK(p.domain == 1u);
  CHECK(p.locationId == 0xc108u);
  CHECK(kfd::pciBusIdOf(*p.domain, *p.locationId) == "0001:c1:01.0");
  CHECK(kfd::pciBusIdOf(0, 0x0307) == "0000:03:00.7");
  CHECK(kfd::pciBusIdOf(0x10000, 0xff00) == "10000:ff:00.0");
  // A partition number (bits 31:28) is left out; bits 27:16 are no location_id the kernel writes.
  CHECK(kfd::pciBusIdOf(0, 0x3000c100u) == "0000:c1:00.0");
  CHECK(!kfd::pciBusIdOf(0, 0x0001c100u));

  CHECK(!kfd::parseProperties("location_id 5\n").domain);
  CHECK(!kfd::parseProperties("domain 0\ndomain 1\nlocation_id 5\n").domain);
  CHECK(kfd::parseProperties("domain 0\ndomain 1\nlocation_id 5\n").locationId == 5u);
  CHECK(!kfd::parseProperties("domain -1\nlocation_id 5\n").domain);
  CHECK(!kfd::parseProperties("domain 4294967296\n").domain);
  CHECK(!kfd::parseProperties("domain  1\n").domain);
  CHECK(!kfd::parseProperties("domain 1 \n").domain);
  CHECK(!kfd::parseProperties("domain\t1\n").domain);
  CHECK(kfd::parseProperties("domain 7").domain == 7u);  // the last line without its newline
  CHECK(!kfd::parseProperties(std::string(kfd::kMaxPropertiesBytes, 'x') + "\ndomain 1\n").domain);
}

TEST_CASE("two GPUs, a process with counters") {
  FakeTree t;
  twoGpus(t);
  t.counter(1234, 51234, "150\n");
  t.counter(1234, 7777, "7\n");
  t.write("proc/1234/vram_51234", "1048576\n");
  t.write("proc/1234/pasid", "32770\n");
  t.folder("proc/99");  // a process with no counter

  const kfd::Tree tree(t.root());
  REQUIRE(tree.available());
  const std::vector<kfd::GpuNode> gpus = tree.gpuNodes();
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].node == 1);
  CHECK(gpus[0].gpuId == 51234u);
  CHECK(gpus[0].pciBusId == std::string("0000:c1:00.0"));
  CHECK(gpus[1].node == 2);
  CHECK(gpus[1].gpuId == 7777u);
  CHECK(gpus[1].pciBusId == std::string("0000:03:00.0"));

  const std::map<std::uint32_t, std::uint64_t> counters = tree.processCounters(1234);
  CHECK(counters == std::map<std::uint32_t, std::uint64_t>{{7777, 7}, {51234, 150}});
  CHECK(tree.processSdmaUs(1234) == 157u);
  CHECK(!tree.processSdmaUs(99));
  CHECK(!tree.processSdmaUs(4242));  // no folder
  CHECK(!tree.processSdmaUs(0));
  CHECK(!tree.processSdmaUs(-1));
  CHECK(tree.processes() == std::vector<long>{99, 1234});

  // GPU indices: PCI order (7777 at 03:00.0 first), node order where the addresses do not tell.
  const std::map<std::uint32_t, int> byPci = runmode::kfdGpuIndices(gpus);
  CHECK(byPci.at(7777) == 0);
  CHECK(byPci.at(51234) == 1);
  std::vector<kfd::GpuNode> partitions = gpus;
  partitions[1].pciBusId = partitions[0].pciBusId;  // two partitions of one GPU
  const std::map<std::uint32_t, int> byNode = runmode::kfdGpuIndices(partitions);
  CHECK(byNode.at(51234) == 0);
  CHECK(byNode.at(7777) == 1);
  partitions[1].pciBusId.reset();
  CHECK(runmode::kfdGpuIndices(partitions).at(51234) == 0);
}

TEST_CASE("hostile values and files are refused, without blocking") {
  FakeTree t;
  twoGpus(t);
  t.counter(1234, 1, "40\n");  // the one good counter
  t.counter(1234, 2, "-5\n");
  t.counter(1234, 3, "12abc\n");
  t.counter(1234, 4, "18446744073709551616\n");
  t.counter(1234, 5, "");
  t.counter(1234, 6, std::string(10000, '9'));    // over the value cap, under the claimed-size cap
  t.counter(1234, 7, std::string(1 << 20, '1'));  // a huge file: claims more than a page
  t.write("proc/1234/sdma_08", "3\n");            // a name the kernel never writes
  t.write("proc/1234/sdma_x", "3\n");
  const std::string fifo = t.root() + "/proc/1234/sdma_9";
  REQUIRE(mkfifo(fifo.c_str(), 0644) == 0);  // no writer: an open that waited would hang
  t.folder("proc/1234/sdma_10");             // a folder where a counter should be
  std::ofstream(t.base() + "/outside") << "99\n";
  REQUIRE(symlink((t.base() + "/outside").c_str(), (t.root() + "/proc/1234/sdma_11").c_str()) == 0);
  REQUIRE(symlink("/dev/zero", (t.root() + "/proc/1234/sdma_12").c_str()) == 0);

  const kfd::Tree tree(t.root());
  CHECK(tree.processCounters(1234) == std::map<std::uint32_t, std::uint64_t>{{1, 40}});
  CHECK(tree.processSdmaUs(1234) == 40u);

  // A process folder that is a link (to the good one, or out of the tree) is not entered.
  REQUIRE(symlink((t.root() + "/proc/1234").c_str(), (t.root() + "/proc/777").c_str()) == 0);
  CHECK(tree.processCounters(777).empty());
  CHECK(!tree.processSdmaUs(777));

  // Garbage in the topology: a gpu_id that does not read leaves its node out; bad
  // properties leave the PCI address unset.
  t.write("topology/nodes/3/gpu_id", "abc\n");
  t.write("topology/nodes/4/gpu_id", "4294967296\n");
  t.node(5, 99, "domain x\nlocation_id 1\n");
  t.write("topology/nodes/05/gpu_id", "98\n");  // not a node number the kernel writes
  t.write("topology/nodes/6/gpu_id", "97\n");
  REQUIRE(mkfifo((t.root() + "/topology/nodes/6/properties").c_str(), 0644) == 0);
  t.write("topology/nodes/7/gpu_id", "96\n");
  t.write("topology/nodes/7/properties", std::string(kfd::kMaxPropertiesBytes + 1, 'x'));
  const std::vector<kfd::GpuNode> gpus = tree.gpuNodes();
  REQUIRE(gpus.size() == 5);
  CHECK(gpus[2].node == 5);
  CHECK(gpus[2].gpuId == 99u);
  CHECK(!gpus[2].pciBusId);
  CHECK(gpus[3].node == 6);
  CHECK(!gpus[3].pciBusId);
  CHECK(gpus[4].node == 7);
  CHECK(!gpus[4].pciBusId);
}

TEST_CASE("a missing proc/ or tree") {
  FakeTree t;
  twoGpus(t);
  const kfd::Tree tree(t.root());
  CHECK(!tree.available());
  CHECK(!tree.processSdmaUs(1234));
  CHECK(tree.processCounters(1234).empty());
  CHECK(tree.processes().empty());
  CHECK(tree.gpuNodes().size() == 2);  // the topology is still read

  const kfd::Tree none(t.base() + "/no-such-folder");
  CHECK(!none.available());
  CHECK(none.gpuNodes().empty());
  CHECK(!none.processSdmaUs(1));

  // proc/ that is a link below the root is not followed.
  t.folder("elsewhere/1234");
  t.write("elsewhere/1234/sdma_1", "5\n");
  REQUIRE(symlink((t.root() + "/elsewhere").c_str(), (t.root() + "/proc").c_str()) == 0);
  CHECK(!tree.available());
  CHECK(!tree.processSdmaUs(1234));

  // The root itself may be a link (/sys/class/kfd/kfd is one).
  t.folder("../real/proc/5");
  std::ofstream(t.base() + "/real/proc/5/sdma_1") << "8\n";
  REQUIRE(symlink((t.base() + "/real").c_str(), (t.base() + "/linked").c_str()) == 0);
  const kfd::Tree linked(t.base() + "/linked");
  CHECK(linked.available());
  CHECK(linked.processSdmaUs(5) == 8u);
}

TEST_CASE("the counters around a point as mover evidence") {
  FakeTree t;
  twoGpus(t);
  t.counter(1234, 51234, "1000\n");
  t.counter(1234, 7777, "20\n");
  const kfd::Tree tree(t.root());
  const auto before = tree.processCounters(1234);

  SUBCASE("an engine point whose counter does not move") {
    const auto after = tree.processCounters(1234);  // nothing moved
    const std::uint64_t d = delta(before, after);
    CHECK(d == 0);
    // Engine time above the counters' 1 us resolution: SDMA would have been counted.
    const MoverEvidence e = kfdEvidence(CopyPath::EngineDevice, d, 250.0);
    CHECK(e.source == EvidenceSource::KfdSdma);
    CHECK(e.observed == ObservedMover::Cu);
    CHECK(e.sdmaUs == 0u);
    CHECK(judgeEvidence(labelledMover(CopyPath::EngineDevice), e) == EvidenceVerdict::Contradicts);
    CHECK(moverMismatch(CopyPath::EngineDevice, e).has_value());
    // Below it: not observed, never a contradiction.
    const MoverEvidence quick = kfdEvidence(CopyPath::EngineHost, d, 0.4);
    CHECK(quick.observed == ObservedMover::Unknown);
    CHECK(judgeEvidence(labelledMover(CopyPath::EngineHost), quick) == EvidenceVerdict::NotObserved);
    CHECK(!moverMismatch(CopyPath::EngineHost, quick).has_value());
  }

  SUBCASE("an engine point whose counter moves") {
    t.counter(1234, 51234, "1180\n");
    const std::uint64_t d = delta(before, tree.processCounters(1234));
    CHECK(d == 180);
    const MoverEvidence e = kfdEvidence(CopyPath::EngineHost, d, 175.0);
    CHECK(e.observed == ObservedMover::Engine);
    CHECK(judgeEvidence(labelledMover(CopyPath::EngineHost), e) == EvidenceVerdict::Matches);
  }

  SUBCASE("a CU point with a moving counter") {
    t.counter(1234, 7777, "65\n");
    const std::uint64_t d = delta(before, tree.processCounters(1234));
    CHECK(d == 45);
    const MoverEvidence e = kfdEvidence(CopyPath::CuDevice, d, 0.0);
    CHECK(e.observed == ObservedMover::Engine);
    CHECK(judgeEvidence(labelledMover(CopyPath::CuDevice), e) == EvidenceVerdict::Contradicts);
    const std::optional<std::string> why = moverMismatch(CopyPath::CuDevice, e);
    REQUIRE(why.has_value());
    CHECK(why->find("45 us") != std::string::npos);
  }

  SUBCASE("a CU point whose counter does not move") {
    const MoverEvidence e = kfdEvidence(CopyPath::CuHost, delta(before, tree.processCounters(1234)), 0.0);
    CHECK(judgeEvidence(labelledMover(CopyPath::CuHost), e) == EvidenceVerdict::Matches);
  }
}

TEST_CASE("run mode's sampler over the tree: the program's group only, bounded") {
  FakeTree t;
  twoGpus(t);
  t.counter(100, 51234, "10\n");
  t.counter(100, 7777, "3\n");
  t.counter(101, 51234, "5\n");
  t.counter(200, 51234, "1000\n");  // another group
  t.counter(102, 7777, "1\n");      // its stat does not read
  t.counter(103, 7777, "2\n");      // gone from /proc
  const std::string proc = t.base() + "/procfs";
  const auto stat = [&](long pid, const std::string& line) {
    mkdir(proc.c_str(), 0755);
    mkdir((proc + "/" + std::to_string(pid)).c_str(), 0755);
    std::ofstream(proc + "/" + std::to_string(pid) + "/stat") << line;
  };
  stat(100, "100 (prog) S 1 100 100 0 -1 4194304\n");
  stat(101, "101 (a (b) c) S 100 100 100 0 -1\n");  // a command name with spaces and parentheses
  stat(200, "200 (other) S 1 200 200 0 -1\n");
  stat(102, std::string(runmode::kMaxProcStatBytes + 10, 'x'));

  runmode::KfdSdmaSampler sampler(100, t.root(), proc);
  REQUIRE(sampler.available());
  sampler.sample();
  t.counter(100, 51234, "25\n");  // the counter grows
  sampler.sample();
  t.counter(100, 51234, "2\n");  // a value that goes back is not taken
  sampler.sample();
  const std::vector<runmode::KfdSdmaActivity> totals = sampler.totals();
  REQUIRE(totals.size() == 2);
  // Ascending GPU id; the index in PCI order (7777 at 03:00.0 is GPU 0).
  CHECK(totals[0].kfdGpuId == 7777u);
  CHECK(totals[0].gpu == 0);
  CHECK(totals[0].counter == 3u);
  CHECK(totals[1].kfdGpuId == 51234u);
  CHECK(totals[1].gpu == 1);
  CHECK(totals[1].counter == 30u);  // 25 + 5

  runmode::KfdSdmaSampler missing(100, t.base() + "/none", proc);
  CHECK(!missing.available());
  missing.sample();
  CHECK(missing.totals().empty());
}
