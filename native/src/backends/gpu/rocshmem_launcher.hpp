#pragma once

// engine/device on AMD through rocSHMEM: the helper's side. rocSHMEM runs one PE (processing
// element) per process and GPU, so the helper, which owns both GPUs, runs a pair of PE
// processes (sdma-probe-rocshmem-pe, built from rocshmem_pe.hip when rocSHMEM is found at
// build time): PE 0 on the source GPU measures, PE 1 on the destination GPU holds the
// symmetric heap the puts land in. The pair is started once and kept across the points of a
// sweep (RocshmemPeSession): it receives each point on its stdin as an NDJSON line and
// answers it, so rocSHMEM's bootstrap runs once per pair, not once per sample. This file
// starts the PEs with argument arrays, hands PE 0's unique id to PE 1, drains every pipe of
// both PEs (stdout and stderr, each line bounded) as they write, reads the records through
// the NDJSON reader, captures rocSHMEM's SDMA log lines as the sample's mover evidence, and
// stops the pair on cancel, timeout, a failed PE, a change of GPU pair or heap size, and at
// the end. The PEs start through the helper's one process starter (util/process.hpp). Plain
// C++: it builds, and is tested, on machines without rocSHMEM
// (native/tests/rocshmem_launcher_test.cpp). The method: docs/MEASUREMENT.md, "engine/device
// on AMD".

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/mover_evidence.hpp"

namespace sdma::gpu {

// rocSHMEM's own bootstrap timeout is ROCSHMEM_BOOTSTRAP_TIMEOUT, in seconds, default 5
// (ROCm/rocm-systems projects/rocshmem/src/envvar.cpp, envvar::bootstrap::timeout). The
// helper sets it for its PEs: both must get through HIP start-up and the socket bootstrap,
// and PE 1 joins only once the helper has handed it PE 0's unique id.
inline constexpr int kPeBootstrapTimeoutS = 60;
// The pair must be up (PE 0's `ready`) within the bootstrap timeout plus this much for
// starting two processes and HIP in each.
inline constexpr int kPeStartGraceS = 60;
// rocSHMEM's heap floor per PE (its own default, ROCSHMEM_HEAP_SIZE = 1 GiB, envvar.cpp) and
// the room above the two regions left for rocSHMEM's own buffers.
inline constexpr std::uint64_t kPeMinHeapBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kPeHeapReserveBytes = std::uint64_t{256} << 20;

// One sample, as the PE processes need it (HIP device numbers are the helper's).
struct PePutRequest {
  int srcGpu = 0;
  int dstGpu = 1;
  std::uint64_t sizeBytes = 0;
  std::uint64_t strideBytes = 0;
  std::uint64_t slots = 1;
  std::uint64_t regionBytes = 0;
  int warmupIters = 1;
  int iters = 1;
  int maxIters = 10000;  // warm-up + timed iterations of one launch
  int depth = 1;         // puts per timed iteration (pipelined mode)
  double targetNs = 0;   // iterations sized by time
  std::uint64_t seed = 1;
  bool trace = false;
  bool corrupt = false;  // --fault corrupt-after: one wrong byte before the check
  // The seed's dimensions (docs/SEED-EXPERIMENTS.md). waves: the put kernel's waves of 64
  // threads (0: one thread's put in a one-wave kernel, as before; 1: the wave-level put; more:
  // the workgroup put), sent on the point line. channels and sdmaMode are the pair's: a point
  // that needs others runs on a new pair (PePairConfig).
  int waves = 0;
  int channels = 1;                              // ROCSHMEM_SDMA_NUM_CHANNELS (1: rocSHMEM's default)
  std::string sdmaMode = "forced";               // "forced", "library" or "off" (--shmem-sdma)
  double timeoutNs = 180e9;                      // one point, from its line to its answer (the pair's start is apart)
  int bootstrapTimeoutS = kPeBootstrapTimeoutS;  // ROCSHMEM_BOOTSTRAP_TIMEOUT for the PEs
  int startGraceS = kPeStartGraceS;              // the pair's start may take this much longer
};

// The last traced iteration, on the source GPU's clock (s_memrealtime, ns).
struct PePutTrace {
  double startNs = -1;     // the first put of the iteration is called
  double issuedNs = -1;    // the last put call returned: packets written, doorbells rung
  double completeNs = -1;  // rocshmem_quiet returned: every put of the iteration is complete
  std::uint32_t cu = 0;
  std::uint32_t xcc = 0;
};

struct PePutResult {
  // "ok", "validation" (failure says which byte), or an error record's code.
  std::string status = "runtime";
  std::string failure;
  std::string hint;
  std::vector<double> timesNs;  // per put, timed iterations only
  std::uint64_t opsDone = 0;
  bool traced = false;
  PePutTrace trace;
  std::string rocshmemVersion;  // as rocshmem_vendor_get_version_info reported it ("" before 3.3)
  std::string deviceInit;       // "wg-init" (rocshmem_wg_init in the kernel) or "none"
  // rocSHMEM's SDMA initialisation line of PE 0 (plainLogLine), empty when it logged none,
  // and the evidence made of it for this point's size (rocshmemSdmaEvidence).
  std::string sdmaLogLine;
  MoverEvidence evidence;
  bool pairReused = false;  // the point ran on a PE pair already up
};

// PE stdout: NDJSON, one object a line, read with util/ndjson_reader.hpp.
// PE 0, once:                                       PE 1, once:
//   {"type":"uid","uid":"<256 hex digits>"}            (reads the uid record on stdin)
//   {"type":"version","version":"<m.m.p>","init":"wg-init"|"none"}
//   {"type":"ready"}                                   {"type":"ready"}
// then for each point line on its stdin:
//   {"type":"times","ns":[<ns>,...]}                   (allocates, waits in the barrier)
//   {"type":"ops","ops":<n>}
//   {"type":"trace","startNs":..,"issuedNs":..,"completeNs":..,"cu":..,"xcc":..}
//   {"type":"validation","ok":true} | {"type":"validation","ok":false,"message":"<what was wrong>"}
//   {"type":"done","point":<n>}                        {"type":"done","point":<n>}
// and on failure, either PE: {"type":"error","code":"<code>","message":"<message>","hint":"<hint>"}
// then it exits. The helper writes each PE, on stdin, the uid record (PE 1 only), then per
// point pointRecord(), and {"type":"stop"} to end (end of input ends a PE too).
// A line longer than kMaxPeLineBytes, not an object, of another type or with a field that
// is missing or out of range is ignored. Without a passed validation and times, or with an
// error record, the point is an error.
constexpr std::size_t kMaxPeLineBytes = 1u << 20;  // 10,000 times are about 120 kB
// A PE's stderr lines (rocSHMEM's and the HIP runtime's logs): a longer one is cut there.
constexpr std::size_t kMaxPeStderrLineBytes = 64 * 1024;
// What is kept of a log line for messages and evidence.
constexpr std::size_t kMaxKeptLogLineBytes = 512;

// A PE's records read line by line, as they arrive: the pair's (uid, version, ready) and the
// current point's.
class PeOutput {
 public:
  // One line, without its newline.
  void addLine(std::string_view line);
  // The unique id from the uid record, as hex digits; empty before it.
  const std::string& uid() const { return uid_; }
  // The record PE 1 reads on its stdin (with its newline); empty before the uid.
  std::string uidRecord() const;
  bool ready() const { return ready_; }
  // The point of the last done record; nullopt before one.
  std::optional<std::int64_t> donePoint() const { return done_; }
  // An error record was read (the PE ends after it).
  bool failed() const { return failed_; }
  // The current point's result (with the pair's version).
  PePutResult result() const;
  // Forgets the current point's records, keeping the pair's.
  void beginPoint();

 private:
  PePutResult r_;
  std::string uid_;
  bool validated_ = false;
  bool final_ = false;  // an error or a failed validation: later point records are not read
  bool failed_ = false;
  bool ready_ = false;
  std::optional<std::int64_t> done_;
};

// The whole of one PE's output at once (split on newlines, each line through PeOutput).
PePutResult parsePeOutput(const std::string& text);

// The line each PE gets on stdin for one point (with its newline). The seed travels as a
// decimal string: it may exceed the integers the NDJSON reader keeps exact (int64).
std::string pointRecord(const PePutRequest& request, std::uint64_t point);
inline constexpr const char* kStopRecord = "{\"type\":\"stop\"}\n";

// rocSHMEM's SDMA log lines (ROCm/rocm-systems projects/rocshmem/src/sdma_policy.cpp,
// SdmaImpl::sdmaHostInit): "SDMA init with threshold=%zu, channels=%d, local_size=%d" through
// LOG_INFO, shown at ROCSHMEM_DEBUG_LEVEL=INFO (or a more verbose level) and written to the
// process's stdout (src/log.hpp: LOG_INFO prints to stdout, LOG_WARN and LOG_ERROR to stderr;
// the PE sends its stdout to stderr, keeping its records on a descriptor of their own); and
// the fallback lines, "SDMA: connect failed ... fall back to IPC memcpy", "SDMA: connect
// failed from device ... disabling SDMA", "SDMA disabled at runtime (ROCSHMEM_SDMA_ENABLED=0)".
// Lines may carry ANSI colour (rocSHMEM colours its log by default); they are matched without it.
enum class RocshmemSdmaLine { None, Init, Fallback };
RocshmemSdmaLine classifyRocshmemSdmaLine(std::string_view line);
// A log line as kept: ANSI escape sequences dropped, other control bytes as '?', cut to
// kMaxKeptLogLineBytes.
std::string plainLogLine(std::string_view line);
// The threshold in an init line ("threshold=<bytes>"); nullopt when it has none that reads.
std::optional<std::uint64_t> sdmaThresholdOf(std::string_view initLine);
// The evidence of one point from PE 0's init line (source RocshmemLog): Engine when the line
// says SDMA carries puts of this size (above the threshold it names, or no threshold read;
// the helper sets ROCSHMEM_SDMA_THRESHOLD=0), Cu when the size is below that threshold
// (rocSHMEM's IPC load/store copy), Unknown when nothing was logged or the size equals it.
MoverEvidence rocshmemSdmaEvidence(const std::string& initLine, std::uint64_t sizeBytes);
// The channel count in an init line ("channels=<n>"); nullopt when it has none that reads.
std::optional<int> sdmaChannelsOf(std::string_view initLine);
// --shmem-sdma off: the evidence from the line rocSHMEM logs when SDMA is disabled ("SDMA
// disabled at runtime (ROCSHMEM_SDMA_ENABLED=0)"): Cu, its puts are the IPC transport's
// load/store copies; Unknown when it logged no such line.
MoverEvidence rocshmemSdmaOffEvidence(const std::string& disabledLine);

// The first fallback line of a whole text; empty when it has none.
std::string sdmaFallbackLine(const std::string& stderrText);
bool isSdmaFallbackLine(std::string_view line);

// The value of the visible-devices variable for the PE processes: the helper's device
// numbers mapped through its own HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES (null: unset),
// so that in each PE the source is device 0 and the destination device 1.
std::string peVisibleDevices(const char* helperVisible, int srcGpu, int dstGpu);

// ROCSHMEM_DEBUG_LEVEL for the PEs: the helper's own when it already shows INFO lines
// (INFO, API, TRACE, with any ":modifier"), else "INFO" (a bare level: older rocSHMEM reads
// no modifiers), so that the SDMA initialisation line is logged.
std::string peDebugLevel(const char* helperDebugLevel);

// The symmetric heap for a region: both regions and rocSHMEM's room, rounded up to a power
// of two, at least kPeMinHeapBytes. A pair is restarted only when a point needs more.
std::uint64_t peHeapBytes(std::uint64_t regionBytes);

// What a PE pair is started with; a point that needs another is run on a new pair.
struct PePairConfig {
  std::string visibleDevices;
  std::uint64_t heapBytes = 0;
  int bootstrapTimeoutS = kPeBootstrapTimeoutS;
  std::string debugLevel = "INFO";
  std::string sdmaMode = "forced";  // PePutRequest::sdmaMode
  int channels = 1;                 // PePutRequest::channels
  bool operator==(const PePairConfig& o) const { return samePair(o) && heapBytes == o.heapBytes; }
  bool operator!=(const PePairConfig& o) const { return !(*this == o); }
  // The same PE processes would be started, whatever the heap. rocSHMEM reads its SDMA
  // variables once, at init (sdma_policy.cpp, SdmaImpl::sdmaHostInit), so another mode or
  // channel count is another pair.
  bool samePair(const PePairConfig& o) const {
    return visibleDevices == o.visibleDevices && bootstrapTimeoutS == o.bootstrapTimeoutS &&
           debugLevel == o.debugLevel && sdmaMode == o.sdmaMode && channels == o.channels;
  }
};
PePairConfig pePairConfig(const PePutRequest& request, const char* helperVisible, const char* helperDebugLevel);

// The variables set on top of the helper's environment for both PEs (docs/MEASUREMENT.md):
// HIP_VISIBLE_DEVICES, ROCSHMEM_BACKEND=ipc, ROCSHMEM_HEAP_SIZE, ROCSHMEM_BOOTSTRAP_TIMEOUT,
// ROCSHMEM_DEBUG_LEVEL, and by the SDMA mode: forced, ROCSHMEM_SDMA_ENABLED=1 and
// ROCSHMEM_SDMA_THRESHOLD=0 (every put on SDMA, as before); library, ROCSHMEM_SDMA_ENABLED=1
// and the threshold left as the helper's environment has it (unset: rocSHMEM's default, 256
// bytes); off, ROCSHMEM_SDMA_ENABLED=0 (rocSHMEM's own switch: envvar.cpp, envvar::sdma::enabled,
// "Enable SDMA transport at runtime"). Always ROCSHMEM_SDMA_NUM_CHANNELS=channels, so the count
// a sample names is the one that ran whatever the user's environment says (envvar.cpp,
// envvar::sdma::num_channels, "Number of SDMA channels per destination [1, 8]", default 1;
// sdma_policy.cpp, SdmaImpl::sdmaHostInit connects that many SDMA queues to each peer).
std::vector<std::pair<std::string, std::string>> peEnvironment(const PePairConfig& config);

// argv (argv[0] included) of PE `pe` (0 or 1).
std::vector<std::string> peArguments(const std::string& peBinary, int pe);

// sdma-probe-rocshmem-pe next to the running helper (/proc/self/exe).
std::string peBinaryNextToHelper();

// A PE pair kept across points. Not thread-safe: one caller at a time.
class RocshmemPeSession {
 public:
  explicit RocshmemPeSession(std::string peBinary);
  ~RocshmemPeSession();  // stops the pair
  RocshmemPeSession(const RocshmemPeSession&) = delete;
  RocshmemPeSession& operator=(const RocshmemPeSession&) = delete;

  // Runs one point on the pair, starting it first when none is up or the point needs another
  // (GPU pair, heap, bootstrap timeout); polls `cancelled` (may be null) while it waits. A
  // point that fails with anything but a failed check stops the pair: the next starts anew.
  PePutResult put(const PePutRequest& request, bool (*cancelled)());
  // Stops the pair: {"type":"stop"} and end of input, then SIGTERM and SIGKILL for a PE that
  // has not ended within a grace time. Every pipe is drained meanwhile.
  void stop();

  bool running() const;
  int pairsStarted() const { return pairsStarted_; }
  // The PE processes' ids while the pair runs, else -1 (tests; the KFD counters of PE 0).
  pid_t pid(int pe) const;

  struct Pair;  // the running processes and what was read of them

 private:
  PePutResult startPair(const PePairConfig& config, bool (*cancelled)());
  void stopPair(bool graceful);
  PePutResult runPoint(const PePutRequest& request, bool (*cancelled)());

  std::string peBinary_;
  std::unique_ptr<Pair> pair_;
  PePairConfig config_;
  std::uint64_t nextPoint_ = 1;
  int pairsStarted_ = 0;
  int startGraceS_ = kPeStartGraceS;
  // A configuration whose pair refused SDMA (fallback line): answered at once, not restarted.
  std::optional<std::pair<PePairConfig, PePutResult>> refused_;
};

// One point on a pair of its own, stopped when it returns (tests; a single sample).
PePutResult runRocshmemPut(const std::string& peBinary, const PePutRequest& request, bool (*cancelled)());

}  // namespace sdma::gpu
