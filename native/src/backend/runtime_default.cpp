#include "backend/runtime_default.hpp"

#include <cerrno>
#include <cstdlib>

#include "backend/endpoints.hpp"
#include "util/parse.hpp"

namespace sdma {

namespace {

// CLR's defaults (rocclr/utils/flags.hpp): ROC_P2P_SDMA_SIZE 1024 KiB, GPU_FORCE_BLIT_COPY_SIZE 0.
constexpr std::uint64_t kDefaultP2pSdmaKiB = 1024;
constexpr std::uint64_t kDefaultForceBlitKiB = 0;
// rocblit.cpp: kLimitWgForKernelP2p and rocsettings.cpp limit_blit_wg_.
constexpr int kBlitWorkgroups = 16;
// Beyond this many KiB a threshold covers every size the helper measures (1 TiB).
constexpr std::uint64_t kKiBMax = 1ull << 30;

struct KiB {
  std::uint64_t value = 0;
  std::string said;  // "ROC_P2P_SDMA_SIZE=512 KiB", "default 1024 KiB", or why the value was not read
};

KiB readKiB(const char* name, const std::optional<std::string>& text, std::uint64_t fallback) {
  if (!text || text->empty()) return {fallback, std::string(name) + " unset: " + std::to_string(fallback) + " KiB"};
  const std::optional<std::uint64_t> v = parseWholeUnsigned(*text);
  if (!v || *v > kKiBMax) {
    // CLR reads its numeric flags itself; a value this helper cannot read is reported, and
    // the default assumed (a guess: CLR's own parse of such text is not modelled).
    return {fallback, std::string(name) + " is not a whole number of KiB here (" + quoted(text->substr(0, 32)) +
                          "): assumed " + std::to_string(fallback) + " KiB"};
  }
  return {*v, std::string(name) + "=" + std::to_string(*v) + " KiB"};
}

}  // namespace

RuntimeCopyEnv readRuntimeCopyEnv(const std::function<const char*(const char*)>& lookup) {
  RuntimeCopyEnv env;
  auto get = [&](const char* name) -> std::optional<std::string> {
    const char* v = lookup(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  env.rocP2pSdmaSize = get("ROC_P2P_SDMA_SIZE");
  env.gpuForceBlitCopySize = get("GPU_FORCE_BLIT_COPY_SIZE");
  env.hsaEnableSdma = get("HSA_ENABLE_SDMA");
  return env;
}

RuntimeDefaultChoice runtimeDefaultChoice(int src, int dst, std::uint64_t sizeBytes, const RuntimeCopyEnv& env) {
  RuntimeDefaultChoice c;
  auto blit = [&](std::string why) {
    c.path = CopyPath::CuHost;
    c.cus = kBlitWorkgroups;
    c.why = "blit kernel: " + std::move(why);
    return c;
  };
  if (env.hsaEnableSdma && *env.hsaEnableSdma == "0") return blit("HSA_ENABLE_SDMA=0 turns SDMA off in ROCr");
  const KiB forceBlit = readKiB("GPU_FORCE_BLIT_COPY_SIZE", env.gpuForceBlitCopySize, kDefaultForceBlitKiB);
  if (sizeBytes <= forceBlit.value * 1024) return blit("at most " + forceBlit.said);
  const bool hostEnd = isHost(src) || isHost(dst);
  if (!hostEnd && src == dst) return blit("a copy within one GPU's memory");
  if (!hostEnd) {
    const KiB p2p = readKiB("ROC_P2P_SDMA_SIZE", env.rocP2pSdmaSize, kDefaultP2pSdmaKiB);
    if (sizeBytes <= p2p.value * 1024) return blit("a copy between GPUs of at most " + p2p.said);
    c.path = CopyPath::EngineHost;
    c.why = "SDMA: a copy between GPUs larger than " + p2p.said;
    return c;
  }
  c.path = CopyPath::EngineHost;
  c.why = "SDMA: host memory at one end (ROCr's copy engines)";
  return c;
}

CopyPath rocshmemPutPath(ShmemSdma mode, std::uint64_t sizeBytes,
                         const std::function<const char*(const char*)>& lookup) {
  if (mode == ShmemSdma::Forced) return CopyPath::EngineDevice;
  if (mode == ShmemSdma::Off) return CopyPath::CuDevice;
  const char* enabled = lookup("ROCSHMEM_SDMA_ENABLED");
  if (enabled != nullptr && (std::string_view(enabled) == "0" || std::string_view(enabled) == "false")) {
    return CopyPath::CuDevice;
  }
  std::uint64_t threshold = 256;
  if (const char* text = lookup("ROCSHMEM_SDMA_THRESHOLD"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text, &end, 10);
    // A value rocSHMEM would not read as a number leaves its default; the evidence says what ran.
    if (errno == 0 && end != nullptr && *end == '\0' && text[0] != '-') threshold = value;
  }
  return sizeBytes >= threshold ? CopyPath::EngineDevice : CopyPath::CuDevice;
}

}  // namespace sdma
