// Overlap's bf16 GEMM through hipBLASLt. The calls and types are those of <hipblaslt/hipblaslt.h>
// and <hipblas-common/hipblas-common.h> (ROCm/hipBLASLt library/include/hipblaslt.h; checked
// against Debian's libhipblaslt-dev 7.1.1, hipBLASLt 1.1.0, in native/ci/rocm-sid.sh), in the
// order of hipBLASLt's own sample (clients/samples/sample_hipblaslt_gemm.cpp, simpleGemm):
// hipblasLtCreate, hipblasLtMatmulDescCreate(HIPBLAS_COMPUTE_32F, HIP_R_32F),
// hipblasLtMatrixLayoutCreate(HIP_R_16BF, n, n, n), hipblasLtMatmulPreferenceSetAttribute
// (HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES), hipblasLtMatmulAlgoGetHeuristic, hipblasLtMatmul.
// Both operands untransposed, column-major, as the cuBLAS path's cublasGemmEx runs them.
// Plain C++: the operands are made on the host and copied, so no device code is needed here.
#include "backends/gpu/hipblaslt_gemm.hpp"

#include <hipblaslt/hipblaslt.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "util/error.hpp"

namespace sdma::gpu {
namespace {

// hipBLASLt may use this much scratch memory; the heuristic picks an algorithm that fits.
constexpr std::uint64_t kWorkspaceBytes = std::uint64_t{64} << 20;

constexpr const char* kComputeHint = "--compute fma,triad runs the other compute kinds without hipBLASLt";

const char* statusName(hipblasStatus_t status) {
  switch (status) {
    case HIPBLAS_STATUS_SUCCESS:
      return "HIPBLAS_STATUS_SUCCESS";
    case HIPBLAS_STATUS_NOT_INITIALIZED:
      return "HIPBLAS_STATUS_NOT_INITIALIZED";
    case HIPBLAS_STATUS_ALLOC_FAILED:
      return "HIPBLAS_STATUS_ALLOC_FAILED";
    case HIPBLAS_STATUS_INVALID_VALUE:
      return "HIPBLAS_STATUS_INVALID_VALUE";
    case HIPBLAS_STATUS_MAPPING_ERROR:
      return "HIPBLAS_STATUS_MAPPING_ERROR";
    case HIPBLAS_STATUS_EXECUTION_FAILED:
      return "HIPBLAS_STATUS_EXECUTION_FAILED";
    case HIPBLAS_STATUS_INTERNAL_ERROR:
      return "HIPBLAS_STATUS_INTERNAL_ERROR";
    case HIPBLAS_STATUS_NOT_SUPPORTED:
      return "HIPBLAS_STATUS_NOT_SUPPORTED";
    case HIPBLAS_STATUS_ARCH_MISMATCH:
      return "HIPBLAS_STATUS_ARCH_MISMATCH";
    default:
      return "a hipBLAS status";
  }
}

// A hipBLASLt failure as the error record's code: no memory, the library cannot do this GEMM on
// this GPU (no kernels for its architecture, an unsupported configuration), or anything else.
void check(hipblasStatus_t status, const std::string& call) {
  if (status == HIPBLAS_STATUS_SUCCESS) return;
  const std::string what =
      call + " failed: " + statusName(status) + " (" + std::to_string(static_cast<int>(status)) + ")";
  if (status == HIPBLAS_STATUS_ALLOC_FAILED) throw Failure("out-of-memory", what, "a smaller --gemm-n");
  if (status == HIPBLAS_STATUS_NOT_SUPPORTED || status == HIPBLAS_STATUS_ARCH_MISMATCH ||
      status == HIPBLAS_STATUS_NOT_INITIALIZED) {
    throw Failure("library-unavailable", "hipBLASLt: " + what, kComputeHint);
  }
  throw Failure("runtime", "hipBLASLt: " + what, "");
}

void checkHip(hipError_t error, const std::string& call) {
  if (error == hipSuccess) return;
  const std::string what = call + " failed: " + hipGetErrorString(error);
  if (error == hipErrorOutOfMemory) throw Failure("out-of-memory", what, "a smaller --gemm-n");
  throw Failure("runtime", what, "");
}

// splitmix64: a fast generator is enough; the operands need varied bits, not statistics.
std::uint64_t nextRandom(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A bf16 of random sign and mantissa with magnitude in [2^-8, 1): every bit but the top of the
// exponent varies, and an 8192-long dot product stays far from bf16's range.
std::uint16_t randomBf16(std::uint16_t bits) {
  const std::uint16_t sign = bits & 0x8000u;
  const std::uint16_t exponent = static_cast<std::uint16_t>(119u + ((bits >> 7) & 0x7u));
  return static_cast<std::uint16_t>(sign | (exponent << 7) | (bits & 0x7Fu));
}

// Fills `count` bf16 at `device` in host-made chunks of 8 MiB.
void fillRandomBf16(void* device, std::size_t count, std::uint64_t seed) {
  constexpr std::size_t kChunk = std::size_t{1} << 22;
  std::vector<std::uint16_t> host(std::min(count, kChunk));
  std::uint64_t state = seed;
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(kChunk, count - done);
    for (std::size_t i = 0; i < n; i += 4) {
      const std::uint64_t r = nextRandom(state);
      for (std::size_t j = 0; j < 4 && i + j < n; ++j)
        host[i + j] = randomBf16(static_cast<std::uint16_t>(r >> (16 * j)));
    }
    checkHip(hipMemcpy(static_cast<std::uint16_t*>(device) + done, host.data(), n * sizeof(std::uint16_t),
                       hipMemcpyHostToDevice),
             "hipMemcpy (GEMM operand)");
    done += n;
  }
}

}  // namespace

struct HipblasltGemm::State {
  hipStream_t stream = nullptr;
  hipblasLtHandle_t handle = nullptr;
  hipblasLtMatmulDesc_t desc = nullptr;
  hipblasLtMatrixLayout_t layout = nullptr;  // A, B and D alike: bf16, n x n, column-major, ld n
  hipblasLtMatmulPreference_t preference = nullptr;
  hipblasLtMatmulAlgo_t algo{};
  void* a = nullptr;
  void* b = nullptr;
  void* d = nullptr;
  void* workspace = nullptr;
  std::size_t workspaceBytes = 0;
  float alpha = 1.0f, beta = 0.0f;  // read on the host when the GEMM is queued (the default pointer mode)

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // Whatever was made, also when the constructor threw half way.
  ~State() {
    for (void* p : {a, b, d, workspace}) {
      if (p != nullptr) (void)hipFree(p);
    }
    if (preference != nullptr) (void)hipblasLtMatmulPreferenceDestroy(preference);
    if (layout != nullptr) (void)hipblasLtMatrixLayoutDestroy(layout);
    if (desc != nullptr) (void)hipblasLtMatmulDescDestroy(desc);
    if (handle != nullptr) (void)hipblasLtDestroy(handle);
  }
};

HipblasltGemm::HipblasltGemm(int n, hipStream_t stream) : state_(std::make_unique<State>()) {
  if (n <= 0) throw Failure("runtime", "the GEMM size must be positive, not " + std::to_string(n), "");
  State& s = *state_;
  s.stream = stream;
  int device = 0;
  checkHip(hipGetDevice(&device), "hipGetDevice");
  hipDeviceProp_t props{};
  checkHip(hipGetDeviceProperties(&props, device), "hipGetDeviceProperties");
  const std::string arch = props.gcnArchName;

  check(hipblasLtCreate(&s.handle), "hipblasLtCreate");
  check(hipblasLtMatmulDescCreate(&s.desc, HIPBLAS_COMPUTE_32F, HIP_R_32F), "hipblasLtMatmulDescCreate");
  const std::int32_t op = HIPBLAS_OP_N;
  check(hipblasLtMatmulDescSetAttribute(s.desc, HIPBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op),
        "hipblasLtMatmulDescSetAttribute(TRANSA)");
  check(hipblasLtMatmulDescSetAttribute(s.desc, HIPBLASLT_MATMUL_DESC_TRANSB, &op, sizeof op),
        "hipblasLtMatmulDescSetAttribute(TRANSB)");
  const auto side = static_cast<std::uint64_t>(n);
  check(hipblasLtMatrixLayoutCreate(&s.layout, HIP_R_16BF, side, side, static_cast<std::int64_t>(n)),
        "hipblasLtMatrixLayoutCreate");
  check(hipblasLtMatmulPreferenceCreate(&s.preference), "hipblasLtMatmulPreferenceCreate");
  const std::uint64_t maxWorkspace = kWorkspaceBytes;
  check(hipblasLtMatmulPreferenceSetAttribute(s.preference, HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
                                              sizeof maxWorkspace),
        "hipblasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");

  // The algorithm is chosen before anything is allocated: a GPU hipBLASLt has no bf16 kernels
  // for is refused without touching its memory.
  hipblasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const hipblasStatus_t heuristic = hipblasLtMatmulAlgoGetHeuristic(s.handle, s.desc, s.layout, s.layout, s.layout,
                                                                    s.layout, s.preference, 1, &result, &found);
  if (heuristic != HIPBLAS_STATUS_SUCCESS || found < 1 || result.state != HIPBLAS_STATUS_SUCCESS) {
    throw Failure("library-unavailable",
                  "hipBLASLt offers no bf16 GEMM (fp32 accumulate, " + std::to_string(n) + "^3) for " + arch +
                      ": hipblasLtMatmulAlgoGetHeuristic returned " + statusName(heuristic) + " with " +
                      std::to_string(found) + " algorithms",
                  kComputeHint);
  }
  s.algo = result.algo;
  s.workspaceBytes = result.workspaceSize;

  const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::size_t bytes = elements * sizeof(std::uint16_t);
  checkHip(hipMalloc(&s.a, bytes), "hipMalloc (GEMM A, " + std::to_string(bytes >> 20) + " MiB)");
  checkHip(hipMalloc(&s.b, bytes), "hipMalloc (GEMM B, " + std::to_string(bytes >> 20) + " MiB)");
  checkHip(hipMalloc(&s.d, bytes), "hipMalloc (GEMM D, " + std::to_string(bytes >> 20) + " MiB)");
  if (s.workspaceBytes > 0) checkHip(hipMalloc(&s.workspace, s.workspaceBytes), "hipMalloc (hipBLASLt workspace)");
  fillRandomBf16(s.a, elements, 0xA11CE5EEDull);
  fillRandomBf16(s.b, elements, 0xB0B5EEDull);
  // beta is 0, so D is never read; zeroed all the same, so no stale NaN can reach it.
  checkHip(hipMemset(s.d, 0, bytes), "hipMemset (GEMM D)");

  label_ = "hipblasLtMatmul bf16 " + std::to_string(n) + "^3 (hipBLASLt)";
}

HipblasltGemm::~HipblasltGemm() = default;

void HipblasltGemm::launch() {
  State& s = *state_;
  check(hipblasLtMatmul(s.handle, s.desc, &s.alpha, s.a, s.layout, s.b, s.layout, &s.beta, s.d, s.layout, s.d, s.layout,
                        &s.algo, s.workspace, s.workspaceBytes, s.stream),
        "hipblasLtMatmul");
}

const std::string& HipblasltGemm::label() const { return label_; }

}  // namespace sdma::gpu
