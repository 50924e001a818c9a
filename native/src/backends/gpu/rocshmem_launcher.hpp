#pragma once

// engine/device on AMD through rocSHMEM: the helper's side. rocSHMEM runs one PE (processing
// element) per process and GPU, so the helper, which owns both GPUs, starts two PE processes
// (sdma-probe-rocshmem-pe, built from rocshmem_pe.hip when rocSHMEM is found at build time):
// PE 0 on the source GPU measures, PE 1 on the destination GPU holds the symmetric heap the
// puts land in. This file starts them with argument arrays, hands PE 0's unique id to PE 1,
// reads PE 0's result lines and stops both on cancel or timeout. The PEs start through the
// helper's one process starter (util/process.hpp) and talk NDJSON (util/ndjson_reader.hpp). Plain C++: it builds, and
// is tested, on machines without rocSHMEM (native/tests/rocshmem_launcher_test.cpp).
// The method: docs/MEASUREMENT.md, "engine/device on AMD".

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sdma::gpu {

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
  bool corrupt = false;      // --fault corrupt-after: one wrong byte before the check
  double timeoutNs = 180e9;  // the whole sample, PE start-up included
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
  std::string rocshmemVersion;  // as rocshmem_vendor_get_version_info reported it
};

// PE 0's stdout: NDJSON, one object a line, read with util/ndjson_reader.hpp:
//   {"type":"uid","uid":"<256 hex digits>"}        rocshmem_get_uniqueid; the helper writes the
//                                                  same record to PE 1's stdin
//   {"type":"version","version":"<major.minor.patch>"}
//   {"type":"times","ns":[<ns>,...]}               per put, timed iterations
//   {"type":"ops","ops":<n>}                       puts issued, warm-up included
//   {"type":"trace","startNs":..,"issuedNs":..,"completeNs":..,"cu":..,"xcc":..}
//   {"type":"validation","ok":true} | {"type":"validation","ok":false,"message":"<what was wrong>"}
//   {"type":"error","code":"<code>","message":"<message>","hint":"<hint>"}
// A line longer than kMaxPeLineBytes, not an object, of another type or with a field that
// is missing or out of range is ignored. Without a passed validation and times, or with an
// error record, the result is an error.
constexpr std::size_t kMaxPeLineBytes = 1u << 20;  // 10,000 times are about 120 kB

// PE 0's output read line by line, as it arrives.
class PeOutput {
 public:
  // One line, without its newline.
  void addLine(std::string_view line);
  // The unique id from the uid record, as hex digits; empty before it.
  const std::string& uid() const { return uid_; }
  // The record PE 1 reads on its stdin (with its newline); empty before the uid.
  std::string uidRecord() const;
  PePutResult result() const;

 private:
  PePutResult r_;
  std::string uid_;
  bool validated_ = false;
  bool final_ = false;  // an error or a failed validation: later lines are not read
};

// The whole of PE 0's output at once (split on newlines, each line through PeOutput).
PePutResult parsePeOutput(const std::string& text);

// What rocSHMEM prints when its SDMA transport did not come up and puts fall back to
// load/store copies (ROCm/rocm-systems projects/rocshmem, src/sdma_policy.cpp): such a run
// must never be reported as an engine path. Empty when the text has none.
std::string sdmaFallbackLine(const std::string& stderrText);
bool isSdmaFallbackLine(std::string_view line);

// The value of the visible-devices variable for the PE processes: the helper's device
// numbers mapped through its own HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES (null: unset),
// so that in each PE the source is device 0 and the destination device 1.
std::string peVisibleDevices(const char* helperVisible, int srcGpu, int dstGpu);

// The variables set on top of the helper's environment for both PEs (docs/MEASUREMENT.md):
// HIP_VISIBLE_DEVICES, ROCSHMEM_BACKEND=ipc, ROCSHMEM_SDMA_ENABLED=1, ROCSHMEM_SDMA_THRESHOLD=0,
// ROCSHMEM_HEAP_SIZE sized for the request.
std::vector<std::pair<std::string, std::string>> peEnvironment(const PePutRequest& request, const char* helperVisible);

// argv (argv[0] included) of PE `pe` (0 or 1).
std::vector<std::string> peArguments(const std::string& peBinary, const PePutRequest& request, int pe);

// sdma-probe-rocshmem-pe next to the running helper (/proc/self/exe).
std::string peBinaryNextToHelper();

// Starts both PEs, forwards the unique id, waits (polling `cancelled`), returns PE 0's
// result; both processes are gone when it returns.
PePutResult runRocshmemPut(const std::string& peBinary, const PePutRequest& request, bool (*cancelled)());

}  // namespace sdma::gpu
