#pragma once

// The KFD's sysfs tree as the helper reads it: the GPU nodes of its topology and the
// per-process SDMA activity counters (docs/PROFILE.md, "KFD SDMA activity"; docs/MEASUREMENT.md,
// "What moved the bytes"). Both are outside data:
//
//   <root>/topology/nodes/<n>/gpu_id       one line, the node's GPU id (0: a CPU node)
//   <root>/topology/nodes/<n>/properties   "name value" lines (kfd_topology.c node_show); the
//                                          PCI address is "domain" (pci_domain_nr) and
//                                          "location_id" (pci_dev_id: bus << 8 | devfn)
//   <root>/proc/<pid>/sdma_<gpu id>        one line, "%llu\n": the SDMA activity of process
//                                          <pid> on that GPU in microseconds (kfd_process.c
//                                          kfd_procfs_show divides the 100 MHz counter by
//                                          SDMA_ACTIVITY_DIVISOR, 100, in kfd_priv.h)
//
// Every read is bounded and refuses what a sysfs attribute never is, without blocking: files
// are opened relative to their folder's descriptor with O_NOFOLLOW | O_NONBLOCK (no component
// below the root is followed through a link, a FIFO or a device never hangs the open), only
// a regular file is read, a file claiming more than kMaxClaimedBytes is not read, a value is
// at most kMaxValueBytes and the properties at most kMaxPropertiesBytes, a folder is listed to
// at most kMaxDirEntries entries. Numbers are whole decimal text with nothing around them but
// one trailing newline: a sign, a space, another character or an overflow makes the value
// unreadable. The root itself may be a link (/sys/class/kfd/kfd is one).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdma::kfd {

inline constexpr const char* kDefaultRoot = "/sys/class/kfd/kfd";

struct GpuNode {
  int node = 0;
  std::uint32_t gpuId = 0;
  // "DDDD:BB:DD.F" (lower-case hex) from the node's properties, domain and location_id;
  // unset when either is missing or unreadable. Partitions of one GPU (location_id bits
  // 31:28, the partition) share one.
  std::optional<std::string> pciBusId;
};

class Tree {
 public:
  explicit Tree(std::string root = kDefaultRoot);  // the root-folder override is for tests
  bool available() const;                          // proc/ readable
  std::vector<GpuNode> gpuNodes() const;           // nodes with gpu_id != 0, in node order
  // The sum of every sdma_* counter of process `pid`, microseconds; nullopt when the process
  // has no readable counter (not an AMD process, KFD too old, no permission).
  std::optional<std::uint64_t> processSdmaUs(long pid) const;
  // Every sdma_<gpu_id> counter of `pid`.
  std::map<std::uint32_t, std::uint64_t> processCounters(long pid) const;

  // The processes with a folder under proc/ (they hold the KFD open), ascending; at most
  // kMaxDirEntries folder entries are looked at.
  std::vector<long> processes() const;
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

// The reads' bounds.
inline constexpr std::size_t kMaxValueBytes = 64;              // one value line: a longer one is unreadable
inline constexpr std::size_t kMaxPropertiesBytes = 64 * 1024;  // a node's properties: longer is unreadable
inline constexpr std::uint64_t kMaxClaimedBytes = 64 * 1024;   // the size a file may claim (sysfs: a page)
inline constexpr std::size_t kMaxDirEntries = 4096;            // entries listed of one folder
inline constexpr int kMaxNodes = 1024;                         // topology node numbers 0..kMaxNodes-1

// The parsers behind the reads (pure, fuzzed: native/fuzz/fuzz_kfd_sysfs.cpp).

// One value file's text: a whole unsigned decimal number, optionally followed by one '\n';
// nullopt for anything else (empty, a sign, spaces, other characters, overflow, longer than
// kMaxValueBytes).
std::optional<std::uint64_t> parseValue(std::string_view text);

struct NodeProperties {
  std::optional<std::uint32_t> domain;
  std::optional<std::uint32_t> locationId;
};
// A node's properties text, "name value" a line: the two PCI facts, each unset when its line
// is missing, repeated, or its value is not a whole number that fits 32 bits. Other lines
// are not looked at beyond their name.
NodeProperties parseProperties(std::string_view text);

// The PCI address of a node, "DDDD:BB:DD.F": bus = location_id bits 15:8, device 7:3,
// function 2:0. nullopt when bits 27:16 are set (no location_id the kernel writes has them;
// bits 31:28 hold a partition number on multi-partition GPUs and are left out).
std::optional<std::string> pciBusIdOf(std::uint32_t domain, std::uint32_t locationId);

// "sdma_<gpu id>" -> the GPU id (whole decimal, fits 32 bits, no sign); nullopt otherwise.
std::optional<std::uint32_t> parseSdmaFileName(std::string_view name);
// A folder name under proc/ -> the process id (whole decimal, 1..2^31-1); nullopt otherwise.
std::optional<long> parsePidName(std::string_view name);

}  // namespace sdma::kfd
