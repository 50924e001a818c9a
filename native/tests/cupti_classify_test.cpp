// The NVIDIA mover evidence read from a pass's CUPTI records (native/cupti/cupti_classify.hpp,
// docs/MEASUREMENT.md "What moved the bytes"), over synthetic record lists: no CUDA needed.
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/mover_evidence.hpp"
#include "cupti/cupti_classify.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma;
using namespace sdma::cupti;

constexpr std::uint64_t kSize = 4 * testing::MiB;
constexpr std::uint64_t kBegin = 1'000'000, kEnd = 2'000'000;  // the pass's window, CUPTI clock

// What the helper's kernels are called in CUPTI's records (mangled, as CUPTI gives them).
constexpr const char* kCopyKernel = "_ZN4sdma3gpu10copyKernelEPKhPhmPNS0_10BlockTraceE";
constexpr const char* kDeviceCopyKernel = "_ZN4sdma3gpu16deviceCopyKernelENS0_14DeviceCopyArgsE";
constexpr const char* kFillKernel = "_ZN4sdma3gpu17fillPatternKernelEPhmm";
constexpr const char* kProxyKernel = "_ZN4sdma3gpu11proxyKernelENS0_9ProxyArgsE";

EvidencePass pass(int src, int dst) {
  EvidencePass p;
  p.sizeBytes = kSize;
  p.src = src;
  p.dst = dst;
  p.windowBeginNs = kBegin;
  p.windowEndNs = kEnd;
  return p;
}

ActivityRecord memcpyRecord(std::uint8_t kind, std::uint64_t start, std::optional<std::uint32_t> channelType,
                            std::uint32_t channelId = 7, std::uint64_t bytes = kSize) {
  ActivityRecord r;
  r.type = RecordType::Memcpy;
  r.copyKind = kind;
  r.bytes = bytes;
  r.startNs = start;
  r.endNs = start + 10'000;
  if (channelType) {
    r.channelType = *channelType;
    r.channelId = channelId;
  }
  return r;
}

ActivityRecord kernelRecord(const char* name, std::uint64_t start) {
  ActivityRecord r;
  r.type = RecordType::Kernel;
  r.name = name;
  r.startNs = start;
  r.endNs = start + 20'000;
  return r;
}

EvidenceVerdict verdict(CopyPath path, const MoverEvidence& e) { return judgeEvidence(labelledMover(path), e); }

}  // namespace

TEST_CASE("an engine point whose copies ran on an async-memcpy channel: the engine, matching its label") {
  const std::vector<ActivityRecord> records = {
      kernelRecord(kFillKernel, kBegin - 50'000),  // the pattern fill, before the window
      memcpyRecord(copy_kind::kDtoD, kBegin + 1'000, channel_type::kAsyncMemcpy),
      memcpyRecord(copy_kind::kDtoD, kBegin + 100'000, channel_type::kAsyncMemcpy),
  };
  const MoverEvidence e = classifyPass(pass(0, 0), records);
  CHECK(e.source == EvidenceSource::Cupti);
  CHECK(e.observed == ObservedMover::Engine);
  CHECK(e.detail == "CUPTI: 2 memcpy records DtoD, channel async-memcpy 7");
  CHECK(e.copyKind == std::optional<std::string>("DtoD"));
  CHECK(e.channelType == std::optional<std::string>("async-memcpy"));
  CHECK(e.channelId == std::optional<std::uint32_t>(7));
  CHECK(e.records == std::optional<std::uint64_t>(2));
  CHECK_FALSE(e.kernel);
  CHECK(verdict(CopyPath::EngineHost, e) == EvidenceVerdict::Matches);
  CHECK_FALSE(moverMismatch(CopyPath::EngineHost, e));
}

TEST_CASE("host and peer copies: the kinds an engine copy between those endpoints shows") {
  CHECK(classifyPass(pass(sdma::kHostEndpoint, 0),
                     {memcpyRecord(copy_kind::kHtoD, kBegin + 5, channel_type::kAsyncMemcpy)})
            .observed == ObservedMover::Engine);
  CHECK(classifyPass(pass(0, sdma::kHostEndpoint),
                     {memcpyRecord(copy_kind::kDtoH, kBegin + 5, channel_type::kAsyncMemcpy)})
            .observed == ObservedMover::Engine);
  ActivityRecord peer = memcpyRecord(copy_kind::kPtoP, kBegin + 5, channel_type::kAsyncMemcpy, 9);
  peer.peer = true;
  peer.srcDeviceId = 0;
  peer.dstDeviceId = 1;
  const MoverEvidence p = classifyPass(pass(0, 1), {peer});
  CHECK(p.observed == ObservedMover::Engine);
  CHECK(p.detail == "CUPTI: 1 memcpy record PtoP, channel async-memcpy 9");
  // A copy between two GPUs' unified addresses may be recorded DtoD.
  CHECK(classifyPass(pass(0, 1), {memcpyRecord(copy_kind::kDtoD, kBegin + 5, channel_type::kAsyncMemcpy)}).observed ==
        ObservedMover::Engine);
  // Copies on two channels are both named.
  const MoverEvidence two =
      classifyPass(pass(0, 1), {memcpyRecord(copy_kind::kPtoP, kBegin + 5, channel_type::kAsyncMemcpy, 9),
                                memcpyRecord(copy_kind::kPtoP, kBegin + 50, channel_type::kAsyncMemcpy, 11)});
  CHECK(two.detail == "CUPTI: 2 memcpy records PtoP, channels async-memcpy 9, 11");
}

TEST_CASE("a CU point whose copy kernel ran: CU, matching its label") {
  const std::vector<ActivityRecord> records = {
      kernelRecord(kCopyKernel, kBegin + 1'000), kernelRecord(kCopyKernel, kBegin + 60'000),
      memcpyRecord(copy_kind::kDtoH, kBegin + 90'000, channel_type::kAsyncMemcpy, 3, 8),  // a small readback
  };
  const MoverEvidence e = classifyPass(pass(0, 1), records);
  CHECK(e.observed == ObservedMover::Cu);
  CHECK(e.kernel == std::optional<std::string>(kCopyKernel));
  CHECK(e.records == std::optional<std::uint64_t>(2));
  CHECK(e.detail == "CUPTI: the copy kernel copyKernel (2 launches) and no memcpy of 4194304 bytes inside the pass");
  CHECK(verdict(CopyPath::CuHost, e) == EvidenceVerdict::Matches);

  const MoverEvidence device = classifyPass(pass(0, 1), {kernelRecord(kDeviceCopyKernel, kBegin + 10)});
  CHECK(device.observed == ObservedMover::Cu);
  CHECK(verdict(CopyPath::CuDevice, device) == EvidenceVerdict::Matches);
}

TEST_CASE("--fault mislabel-after: an engine label with the copy kernel seen contradicts") {
  const std::vector<ActivityRecord> records = {kernelRecord(kCopyKernel, kBegin + 1'000),
                                               kernelRecord(kCopyKernel, kBegin + 30'000)};
  const MoverEvidence e = classifyPass(pass(0, 1), records);
  CHECK(e.observed == ObservedMover::Cu);
  CHECK(verdict(CopyPath::EngineHost, e) == EvidenceVerdict::Contradicts);
  const auto mismatch = moverMismatch(CopyPath::EngineHost, e);
  REQUIRE(mismatch);
  CHECK(mismatch->find("labelled engine, but its evidence (cupti) says cu carried the bytes") == 0);
  CHECK(mismatch->find("copyKernel") != std::string::npos);
  // And the other way round: a CU label over an engine copy.
  const MoverEvidence engine =
      classifyPass(pass(0, 0), {memcpyRecord(copy_kind::kDtoD, kBegin + 5, channel_type::kAsyncMemcpy)});
  CHECK(verdict(CopyPath::CuDevice, engine) == EvidenceVerdict::Contradicts);
}

TEST_CASE("records outside the pass's window are ignored") {
  const std::vector<ActivityRecord> records = {
      // The pattern fill and a copy of the point's size before the window; the check kernel after it.
      kernelRecord(kFillKernel, kBegin - 100'000),
      memcpyRecord(copy_kind::kDtoD, kBegin - 50'000, channel_type::kAsyncMemcpy),
      kernelRecord(kCopyKernel, kEnd + 1'000),
      // Straddling either edge is outside too.
      memcpyRecord(copy_kind::kDtoD, kBegin - 5, channel_type::kAsyncMemcpy),
      memcpyRecord(copy_kind::kDtoD, kEnd - 5, channel_type::kAsyncMemcpy),
      // No timestamps: cannot be placed.
      memcpyRecord(copy_kind::kDtoD, 0, channel_type::kAsyncMemcpy),
      kernelRecord(kCopyKernel, kBegin + 10),
  };
  std::vector<ActivityRecord> rs = records;
  rs[5].endNs = 0;
  const MoverEvidence e = classifyPass(pass(0, 0), rs);
  CHECK(e.observed == ObservedMover::Cu);
  CHECK(e.records == std::optional<std::uint64_t>(1));

  // Nothing inside at all: not observed, and the detail says what was around.
  EvidencePass p = pass(0, 0);
  p.dropped = 3;
  const MoverEvidence none = classifyPass(p, {rs[0], rs[1], rs[2]});
  CHECK(none.observed == ObservedMover::Unknown);
  CHECK(none.detail ==
        "CUPTI: no memcpy of 4194304 bytes and no copy kernel inside the pass (0 records in its window, 3 outside, 3 "
        "dropped)");
  CHECK(verdict(CopyPath::EngineHost, none) == EvidenceVerdict::NotObserved);
}

TEST_CASE("a CUPTI whose records have no channel fields: the engine by the copy record only") {
  const std::vector<ActivityRecord> records = {memcpyRecord(copy_kind::kHtoD, kBegin + 5, std::nullopt),
                                               memcpyRecord(copy_kind::kHtoD, kBegin + 500, std::nullopt)};
  const MoverEvidence e = classifyPass(pass(sdma::kHostEndpoint, 0), records);
  CHECK(e.observed == ObservedMover::Engine);
  CHECK(e.detail == "CUPTI: 2 memcpy records HtoD (this CUPTI reports no channel: seen by the copy record only)");
  CHECK_FALSE(e.channelType);
  CHECK_FALSE(e.channelId);
  CHECK(e.copyKind == std::optional<std::string>("HtoD"));
  // An invalid channel type reads the same.
  CHECK(classifyPass(pass(sdma::kHostEndpoint, 0), {memcpyRecord(copy_kind::kHtoD, kBegin + 5, channel_type::kInvalid)})
            .observed == ObservedMover::Engine);
}

TEST_CASE("what is not one clear mover is not observed") {
  // A copy the driver queued on the compute channel.
  const MoverEvidence compute =
      classifyPass(pass(0, 0), {memcpyRecord(copy_kind::kDtoD, kBegin + 5, channel_type::kCompute, 2)});
  CHECK(compute.observed == ObservedMover::Unknown);
  CHECK(compute.channelType == std::optional<std::string>("compute"));
  CHECK(compute.detail.find("CUPTI: 1 memcpy record DtoD, channel compute 2: not an async copy engine's channel") == 0);
  CHECK(verdict(CopyPath::EngineHost, compute) == EvidenceVerdict::NotObserved);

  // A mix of channels.
  const MoverEvidence mixed =
      classifyPass(pass(0, 0), {memcpyRecord(copy_kind::kDtoD, kBegin + 5, channel_type::kCompute, 2),
                                memcpyRecord(copy_kind::kDtoD, kBegin + 50, channel_type::kAsyncMemcpy, 7)});
  CHECK(mixed.observed == ObservedMover::Unknown);
  CHECK(mixed.channelType == std::optional<std::string>("mixed"));

  // A copy of the size but of a kind this point cannot make.
  const MoverEvidence kind =
      classifyPass(pass(0, 0), {memcpyRecord(copy_kind::kHtoH, kBegin + 5, channel_type::kAsyncMemcpy)});
  CHECK(kind.observed == ObservedMover::Unknown);
  CHECK(kind.detail == "CUPTI: 1 memcpy record HtoH where DtoD was expected: not this point's copy");

  // Both a copy of the size and the copy kernel.
  const MoverEvidence both =
      classifyPass(pass(0, 0), {memcpyRecord(copy_kind::kDtoD, kBegin + 5, channel_type::kAsyncMemcpy),
                                kernelRecord(kCopyKernel, kBegin + 100)});
  CHECK(both.observed == ObservedMover::Unknown);
  CHECK(both.detail.find("CUPTI: both 1 memcpy record DtoD and the copy kernel copyKernel (1 launch)") == 0);

  // Kernels that are not copies (engine/device's proxy kernel) do not count.
  const MoverEvidence proxy =
      classifyPass(pass(0, 1), {kernelRecord(kProxyKernel, kBegin + 5),
                                memcpyRecord(copy_kind::kPtoP, kBegin + 50, channel_type::kAsyncMemcpy)});
  CHECK(proxy.observed == ObservedMover::Engine);
  CHECK(verdict(CopyPath::EngineDevice, proxy) == EvidenceVerdict::Matches);
}

TEST_CASE("the helper's copy kernels by name, mangled or not") {
  CHECK(isHelperCopyKernel(kCopyKernel));
  CHECK(isHelperCopyKernel(kDeviceCopyKernel));
  CHECK(helperCopyKernelName(kDeviceCopyKernel) == "deviceCopyKernel");
  CHECK(isHelperCopyKernel("_Z10copyKernelPKhPhmP10BlockTrace"));
  CHECK(isHelperCopyKernel("sdma::gpu::copyKernel(unsigned char const*, unsigned char*, unsigned long, BlockTrace*)"));
  CHECK(isHelperCopyKernel("copyKernel"));
  CHECK_FALSE(isHelperCopyKernel(kFillKernel));
  CHECK_FALSE(isHelperCopyKernel(kProxyKernel));
  CHECK_FALSE(isHelperCopyKernel("_ZN4sdma3gpu12_GLOBAL__N_112smCopyKernelEP5uint4PKS2_mPVjPy"));  // overlap's SM copy
  CHECK_FALSE(isHelperCopyKernel("copyKernelFast"));
  CHECK_FALSE(isHelperCopyKernel("_ZN2ns14copyKernelFastEv"));
  CHECK_FALSE(isHelperCopyKernel(""));
}
