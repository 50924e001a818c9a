#pragma once
// What each `collective` variant is with the library the node has: its name, the operations it
// runs, the environment it sets and the conditions the library checks before it takes the
// variant's path (docs/COLLECTIVES.md, "Variants" and "What the library checks before the
// copy-engine path"). Plain C++: no GPU headers, so the whole decision is tested everywhere;
// the GPU backend reads the facts (library version and symbols, HIP runtime, links) and calls
// describeVariant, the simulator does the same with the facts of its simulated node.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/collective_math.hpp"
#include "backend/collective_types.hpp"

namespace sdma::collective {

struct LibraryFacts {
  std::string library;  // "nccl" | "rccl"
  int major = 0, minor = 0, patch = 0;
  std::string path;
  bool hasMemAlloc = false, hasWindowRegister = false, hasAlltoAll = false, hasCommInitRank = false;
  // AMD copy-engine conditions, as the GPU code reads them (unset/empty: could not be read)
  std::optional<int> hipRuntimeVersion;        // hipRuntimeGetVersion
  std::optional<bool> hipHasMemcpyBatchAsync;  // dlsym in the HIP runtime
  std::string driverVersion;                   // amdgpu / KFD driver version string, "" unknown
  bool allPeersDirect = true;                  // every pair of ranks on a direct NVLink/xGMI link
  int ranks = 0;
  // What the libraries' own copy-engine checks read (ncclCeImplemented: ncclCudaDriverVersion,
  // i.e. hipDriverGetVersion on ROCm, cudaDriverGetVersion on CUDA); unset: not read, and on
  // ROCm hipRuntimeVersion stands in for it (both encode MAJOR*10000000 + MINOR*100000 + PATCH,
  // PATCH being HIP's build number).
  std::optional<int> gpuDriverVersion;
  // Every rank's call inside one ncclGroupStart/End (one process driving every GPU): RCCL's
  // copy-engine AlltoAll is not eligible inside a group (ncclCeAlltoAllEligible).
  bool grouped = false;
};

using GetEnv = std::function<std::optional<std::string>(const std::string& name)>;

// "gin-sdma" (old name) -> "gin-sdma-lib"; unknown -> nullopt.
std::optional<std::string> canonicalVariant(std::string_view name);
// rccl: default, ce, gin-sdma-lib; nccl: default, ce.
std::vector<std::string> vendorVariants(const std::string& library);
// Whether the variant can run, the environment it sets, its buffers, and every condition it
// checked (VariantReport::conditions). `userEnv` is the environment the process inherited.
VariantReport describeVariant(const LibraryFacts& facts, const std::string& name, const GetEnv& userEnv);
// The operations a variant runs with this library: RCCL's gin-sdma-lib is AlltoAll only.
bool variantRunsOp(const std::string& library, const std::string& name, Op op);
// The `variant-op-unsupported` warning for an operation variantRunsOp refuses.
std::string variantOpSkipped(const std::string& library, const std::string& name, Op op);

// RCCL's copy-engine environment: NCCL_CTA_POLICY=2 (ZERO), NCCL_CUMEM_ENABLE=1 (RCCL's default
// is 0, and without cuMem there is no symmetric support), NCCL_LOCAL_REGISTER=0 (explicit
// registration only), as RCCL's CE tests gate CE dispatch (isCeDispatchConfigured).
EnvList rcclCeEnv();

// The copy-engine path's driver window on ROCm, as RCCL's ncclCeImplemented reads it
// (hipDriverGetVersion: ROCm 7.12 and later, or the 7.0.2.x backport [7.0.2.2, 7.0.3.0)).
bool rcclCeDriverInWindow(int hipDriverVersion);
// "7.12.0" for 71200000, "7.0.51831" for 70051831 (MAJOR*10000000 + MINOR*100000 + PATCH).
std::string hipVersionText(int v);

}  // namespace sdma::collective
