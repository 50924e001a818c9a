#include "backend/collective_variants.hpp"

#include <string>
#include <utility>

namespace sdma::collective {

namespace {

int versionNumber(const LibraryFacts& f) { return f.major * 10000 + f.minor * 100 + f.patch; }

std::string dotted(const LibraryFacts& f) {
  return std::to_string(f.major) + "." + std::to_string(f.minor) + "." + std::to_string(f.patch);
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

constexpr const char* kUnknown = "unknown";

// The conditions one variant checked, with the failed and the unverifiable ones named.
struct Checks {
  std::vector<VariantCondition> list;
  std::vector<std::string> failed;      // "name (want W, found F)"
  std::vector<std::string> hints;       // what to do about each failed one
  std::vector<std::string> unverified;  // names of the ones found "unknown"

  void add(std::string name, std::string want, std::string found, bool ok, std::string hint = {}) {
    if (!ok) {
      failed.push_back(name + " (needs " + want + ", found " + found + ")");
      if (!hint.empty()) hints.push_back(std::move(hint));
    }
    list.push_back({std::move(name), std::move(want), std::move(found), ok});
  }
  // A condition the process cannot read: listed, not refused, said as unverified.
  void unknown(std::string name, std::string want) {
    unverified.push_back(name);
    list.push_back({std::move(name), std::move(want), kUnknown, true});
  }
};

std::string unverifiedText(const Checks& c) {
  if (c.unverified.empty()) return {};
  return "unverified: " + joined(c.unverified, ", ") +
         " (not readable from this process; each point's transport says whether the copy engines ran)";
}

// Ends a report from its checks: unsupported when one failed, with the failing ones in the
// reason and what to do in the hint; the unverifiable ones said either way.
void conclude(VariantReport& report, const Checks& c, const std::string& what) {
  report.conditions.insert(report.conditions.end(), c.list.begin(), c.list.end());
  const std::string unverified = unverifiedText(c);
  if (!c.failed.empty()) {
    report.supported = false;
    report.reason = what + " needs what this node lacks: " + joined(c.failed, "; ");
    if (!unverified.empty()) report.reason += "; " + unverified;
    std::vector<std::string> hints;
    for (const std::string& h : c.hints) {
      bool seen = false;
      for (const std::string& k : hints) seen = seen || k == h;
      if (!seen) hints.push_back(h);
    }
    report.hint = joined(hints, "; ");
  } else if (!unverified.empty()) {
    report.hint = report.hint.empty() ? unverified : report.hint + "; " + unverified;
  }
}

// Each variable the variant sets, as a condition: the variant's value replaces an inherited
// one for its own communicator only (the run restores the environment after it).
void envConditions(Checks& c, const EnvList& env, const GetEnv& userEnv) {
  for (const auto& [name, value] : env) {
    const std::optional<std::string> inherited = userEnv ? userEnv(name) : std::nullopt;
    std::string found = value + " (set by the variant";
    if (inherited && *inherited != value) found += "; the inherited " + *inherited + " is replaced for this variant";
    found += ")";
    c.add(name, value, found, true);
  }
}

// The symbols of symmetric windows (ncclMemAlloc + ncclCommWindowRegister) and the version
// that brings them.
void symmetricConditions(Checks& c, const LibraryFacts& f) {
  const bool symbols = f.hasMemAlloc && f.hasWindowRegister;
  c.add("ncclMemAlloc + ncclCommWindowRegister", "present", symbols ? "present" : "missing", symbols,
        "use " + f.library + " >= 2.28 (--nccl-lib PATH)");
}

void describeCeNccl(VariantReport& report, const LibraryFacts& f, const GetEnv& userEnv) {
  Checks c;
  const int v = versionNumber(f);
  // Copy-engine collectives arrive with NCCL 2.28 (src/ce_coll.cc, absent in v2.27.7-1).
  c.add("nccl version", ">= 2.28.0", dotted(f), v >= 22800, "use nccl >= 2.28 (--nccl-lib PATH)");
  symmetricConditions(c, f);
  // ncclCeImplemented: cudaDriverGetVersion >= 12050 (CUDA 12.5).
  if (f.gpuDriverVersion) {
    const int d = *f.gpuDriverVersion;
    c.add("CUDA driver", ">= 12.5", std::to_string(d / 1000) + "." + std::to_string(d % 1000 / 10), d >= 12050,
          "update the NVIDIA driver to CUDA 12.5 or newer");
  } else {
    c.unknown("CUDA driver", ">= 12.5");
  }
  // From 2.30 ncclCeAvailable wants every rank in the NVLink (LSA) team; before, one node.
  if (v >= 23000) {
    c.add("NVLink between all ranks", "yes", f.allPeersDirect ? "yes" : "no", f.allPeersDirect,
          "run on GPUs that all share NVLink (--gpus)");
  }
  // symmetricSupport needs NCCL_WIN_ENABLE (default 1) and cuMem (NCCL_CUMEM_ENABLE, set below).
  const std::optional<std::string> win = userEnv ? userEnv("NCCL_WIN_ENABLE") : std::nullopt;
  c.add("NCCL_WIN_ENABLE", "unset or 1", win ? *win : "unset", !win || *win != "0", "unset NCCL_WIN_ENABLE");
  report.env = ceEnv();
  envConditions(c, report.env, userEnv);
  conclude(report, c, "nccl " + dotted(f) + "'s copy-engine path");
}

void describeCeRccl(VariantReport& report, const LibraryFacts& f, const GetEnv& userEnv) {
  Checks c;
  const int v = versionNumber(f);
  // A lower bound taken from the NCCL 2.28 base that brought ce_coll.cc; the first RCCL
  // release with it is not pinned (docs/COLLECTIVES.md).
  c.add("rccl version", ">= 2.28.0", dotted(f), v >= 22800,
        "use an rccl with copy-engine collectives (--nccl-lib PATH)");
  symmetricConditions(c, f);
  // CE_BATCH_ASYNC_SUPPORTED: librccl built where hipMemcpyBatchAsync exists; read here as the
  // symbol in the HIP runtime the process loaded.
  if (f.hipHasMemcpyBatchAsync) {
    c.add("hipMemcpyBatchAsync", "present", *f.hipHasMemcpyBatchAsync ? "present" : "missing",
          *f.hipHasMemcpyBatchAsync, "use a ROCm whose HIP runtime has hipMemcpyBatchAsync (7.12, or 7.0.2.x)");
  } else {
    c.unknown("hipMemcpyBatchAsync", "present");
  }
  // ncclCeImplemented: hipDriverGetVersion >= 71200000 or in [70051831, 70060000).
  const std::string window = ">= 7.12.0, or 7.0.2.2 up to 7.0.3.0 (7.0.51831..7.0.59999)";
  if (const std::optional<int> d = f.gpuDriverVersion ? f.gpuDriverVersion : f.hipRuntimeVersion) {
    const std::string source = f.gpuDriverVersion ? "" : " (hipRuntimeGetVersion)";
    c.add("hipDriverGetVersion", window, hipVersionText(*d) + source, rcclCeDriverInWindow(*d),
          "use ROCm 7.12 or newer (or the 7.0.2.x backport); below it RCCL runs CU kernels silently");
  } else {
    c.unknown("hipDriverGetVersion", window);
  }
  // The amdgpu/KFD driver is recorded, not judged: RCCL reads the HIP driver version above.
  c.add("amdgpu driver", "recorded only", f.driverVersion.empty() ? kUnknown : f.driverVersion, true);
  // symmetricSupport: one node, every peer reachable directly.
  c.add("xGMI between all ranks", "yes", f.allPeersDirect ? "yes" : "no", f.allPeersDirect,
        "run on GPUs that all share direct xGMI links (--gpus)");
  report.env = rcclCeEnv();
  envConditions(c, report.env, userEnv);
  conclude(report, c, "rccl " + dotted(f) + "'s copy-engine path");
  // Op-scoped: refuses no variant, says which points run on kernels instead.
  if (report.supported && f.grouped) {
    report.conditions.push_back(
        {"AlltoAll outside ncclGroupStart/End", "yes", "no (one process drives every GPU)", false});
    const std::string a2a =
        "AlltoAll: RCCL takes its copy-engine AlltoAll only outside a group (ncclCeAlltoAllEligible); with one process "
        "driving every GPU each call is inside one, so those points run CU kernels (use --mode rank-per-process)";
    report.hint = report.hint.empty() ? a2a : a2a + "; " + report.hint;
  }
}

void describeGinSdmaLib(VariantReport& report, const LibraryFacts& f, const GetEnv& userEnv) {
  if (f.library != "rccl") {
    report.supported = false;
    report.reason = "GIN-SDMA is RCCL's (AMD); NVIDIA's engine path is the 'ce' variant";
    return;
  }
  Checks c;
  const std::optional<int> ginType = ginSdmaTypeForRccl(f.major, f.minor, f.patch);
  c.add("rccl version", ">= 2.30.4 (an Anvil SDMA NCCL_GIN_TYPE)", dotted(f), ginType.has_value());
  if (!ginType) {
    report.conditions = c.list;
    report.supported = false;
    report.reason = ginSdmaUnsupportedReason(dotted(f));
    report.hint = ginSdmaUnsupportedHint();
    return;
  }
  const bool symbols = f.hasMemAlloc && f.hasWindowRegister;
  c.add("ncclMemAlloc + ncclCommWindowRegister", "present", symbols ? "present" : "missing", symbols);
  if (!symbols || versionNumber(f) < 22800) {
    report.conditions = c.list;
    report.supported = false;
    report.reason = "rccl " + dotted(f) + " lacks symmetric windows (ncclMemAlloc + ncclCommWindowRegister)";
    report.hint = "use rccl >= 2.28 (--nccl-lib PATH)";
    return;
  }
  report.env = ginSdmaEnv(*ginType);
  for (const auto& [name, value] : report.env) {
    const std::optional<std::string> inherited = userEnv ? userEnv(name) : std::nullopt;
    if (inherited && *inherited != value) {
      c.add(name, value, *inherited + " (inherited; the variant's value replaces it for this variant)", true);
    }
  }
  conclude(report, c, "gin-sdma-lib");
}

}  // namespace

EnvList rcclCeEnv() { return {{"NCCL_CTA_POLICY", "2"}, {"NCCL_CUMEM_ENABLE", "1"}, {"NCCL_LOCAL_REGISTER", "0"}}; }

bool rcclCeDriverInWindow(int v) { return v >= 71200000 || (v >= 70051831 && v < 70060000); }

std::string hipVersionText(int v) {
  if (v < 0) return std::to_string(v);
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." + std::to_string(v % 100000);
}

std::optional<std::string> canonicalVariant(std::string_view name) {
  if (name == "default" || name == "ce" || name == "gin-sdma-lib") return std::string(name);
  if (name == "gin-sdma") return std::string("gin-sdma-lib");
  return std::nullopt;
}

std::vector<std::string> vendorVariants(const std::string& library) {
  if (library == "rccl") return {"default", "ce", "gin-sdma-lib"};
  return {"default", "ce"};
}

VariantReport describeVariant(const LibraryFacts& facts, const std::string& name, const GetEnv& userEnv) {
  VariantReport report;
  const std::optional<std::string> canonical = canonicalVariant(name);
  report.name = canonical ? *canonical : name;
  report.library = facts.library;
  report.libraryVersion = dotted(facts);
  report.libraryPath = facts.path;
  if (!canonical) {
    report.supported = false;
    report.reason =
        "'" + name + "' is not a variant (" + facts.library + ": " + joined(vendorVariants(facts.library), ", ") + ")";
    report.hint = "--variants " + joined(vendorVariants(facts.library), ",");
    return report;
  }
  if (*canonical == "default") return report;
  if (*canonical == "gin-sdma-lib") {
    report.symmetric = facts.library == "rccl";
    describeGinSdmaLib(report, facts, userEnv);
    return report;
  }
  report.symmetric = true;
  if (facts.library == "rccl") {
    describeCeRccl(report, facts, userEnv);
  } else {
    describeCeNccl(report, facts, userEnv);
  }
  return report;
}

bool variantRunsOp(const std::string& library, const std::string& name, Op op) {
  const std::optional<std::string> canonical = canonicalVariant(name);
  if (library == "rccl" && canonical && *canonical == "gin-sdma-lib") return ginSdmaRunsOp(op);
  return true;
}

std::string variantOpSkipped(const std::string& library, const std::string& name, Op op) {
  if (variantRunsOp(library, name, op)) return {};
  return "gin-sdma-lib: librccl has no in-library GIN-SDMA AllGather (its GIN-SDMA path is ncclAlltoAll's, "
         "gin_alltoall_sdma.cu; GIN-SDMA AllGather figures come from rccl-tests' device-API kernels), so "
         "gin-sdma-lib runs AlltoAll only and its AllGather points were not run";
}

}  // namespace sdma::collective
