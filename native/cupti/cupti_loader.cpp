#include "cupti/cupti_loader.hpp"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace sdma::cupti {
namespace {

// Newest CUDA first: a machine with both toolkits gets the CUPTI of the newer driver it can run.
constexpr const char* kSonames[] = {"libcupti.so.13", "libcupti.so.12"};
constexpr const char* kUnversioned = "libcupti.so";

// The CUDA toolkit's folders for CUPTI: extras/CUPTI/lib64 (every CUDA 12 toolkit, and the
// runfile installs), lib64 (CUDA 13's layout, and distribution packages of cuda-cupti).
constexpr const char* kToolkitFolders[] = {"/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64"};
constexpr const char* kVersionedToolkitGlobs[] = {"/usr/local/cuda-*/extras/CUPTI/lib64", "/usr/local/cuda-*/lib64"};

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> globFolders(const char* pattern) {
  std::vector<std::string> found;
  glob_t g{};
  if (::glob(pattern, GLOB_ONLYDIR, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) found.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  // Newest first, by version: plain string order would put cuda-12.10 before cuda-12.9.
  std::sort(found.begin(), found.end(),
            [](const std::string& a, const std::string& b) { return ::strverscmp(a.c_str(), b.c_str()) > 0; });
  return found;
}

// The CUDA driver's major version where libcuda is already loaded in this process; 0 where
// it is not (it is never loaded here for the question).
int loadedDriverMajor() {
  void* cuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (cuda == nullptr) return 0;
  using DriverGetVersion = int (*)(int*);
  int version = 0;
  auto fn = reinterpret_cast<DriverGetVersion>(::dlsym(cuda, "cuDriverGetVersion"));
  if (fn == nullptr || fn(&version) != 0) version = 0;
  ::dlclose(cuda);  // drops the reference NOLOAD took, not the library
  return version / 1000;
}

template <typename Fn>
bool bind(void* handle, const char* name, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (out == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return out != nullptr;
}

}  // namespace

std::string Library::resultText(CUptiResult result) const {
  const char* text = nullptr;
  if (api.getResultString != nullptr && api.getResultString(result, &text) == CUPTI_SUCCESS && text != nullptr) {
    return text;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

int cudaMajorOfCuptiVersion(std::uint32_t version) {
  if (version >= 10000) return static_cast<int>(version / 10000);  // 130000: CUDA 13.0
  if (version >= 19) return 12;                                    // v19 CUDA 12.0 ... v28 CUDA 12.9 Update 1
  if (version >= 13) return 11;                                    // v13 CUDA 11.0 ... v18 CUDA 11.8
  return 0;
}

std::vector<std::string> defaultCandidates() {
  std::vector<std::string> c(std::begin(kSonames), std::end(kSonames));
  std::vector<std::string> folders(std::begin(kToolkitFolders), std::end(kToolkitFolders));
  for (const char* pattern : kVersionedToolkitGlobs) {
    for (std::string& f : globFolders(pattern)) folders.push_back(std::move(f));
  }
  for (const std::string& folder : folders) {
    for (const char* soname : kSonames) c.push_back(folder + "/" + soname);
  }
  c.emplace_back(kUnversioned);
  return c;
}

std::string missingMessage() {
  return "no CUPTI library (libcupti.so.12 or .13) was found: install the CUDA toolkit's CUPTI (the "
         "cuda-cupti-13-0 or cuda-cupti-12-x package, or the toolkit's extras/CUPTI), or add the folder that holds "
         "libcupti.so to the dynamic loader's search (ldconfig, LD_LIBRARY_PATH)";
}

LoadResult load(const std::vector<std::string>& candidates) {
  LoadResult r;
  const int driverMajor = loadedDriverMajor();
  for (const std::string& candidate : candidates) {
    const bool absolute = !candidate.empty() && candidate.front() == '/';
    if (candidate.empty() || (absolute && !exists(candidate))) continue;
    void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      // A soname the loader does not find is no library, not a broken one.
      const char* why = ::dlerror();
      if (absolute) r.tried.push_back(candidate + ": " + (why ? why : "dlopen failed"));
      continue;
    }
    Library lib;
    lib.handle = handle;
    lib.path = candidate;
    std::string missing;
    Api& a = lib.api;
    bind(handle, "cuptiGetVersion", a.getVersion, missing);
    bind(handle, "cuptiGetResultString", a.getResultString, missing);
    bind(handle, "cuptiGetTimestamp", a.getTimestamp, missing);
    bind(handle, "cuptiActivityRegisterCallbacks", a.activityRegisterCallbacks, missing);
    bind(handle, "cuptiActivityEnable", a.activityEnable, missing);
    bind(handle, "cuptiActivityDisable", a.activityDisable, missing);
    bind(handle, "cuptiActivityFlushAll", a.activityFlushAll, missing);
    bind(handle, "cuptiActivityGetNextRecord", a.activityGetNextRecord, missing);
    bind(handle, "cuptiActivityGetNumDroppedRecords", a.activityGetNumDroppedRecords, missing);
    if (!missing.empty()) {
      r.tried.push_back(candidate + ": lacks " + missing);
      ::dlclose(handle);
      continue;
    }
    if (a.getVersion(&lib.version) != CUPTI_SUCCESS || lib.version == 0) {
      r.tried.push_back(candidate + ": cuptiGetVersion failed");
      ::dlclose(handle);
      continue;
    }
    const int cuptiMajor = cudaMajorOfCuptiVersion(lib.version);
    if (driverMajor > 0 && cuptiMajor > driverMajor) {
      r.tried.push_back(candidate + ": CUPTI of CUDA " + std::to_string(cuptiMajor) + " needs a newer driver than " +
                        "this CUDA " + std::to_string(driverMajor) + " one");
      ::dlclose(handle);
      continue;
    }
    r.library = std::move(lib);
    return r;
  }
  if (r.tried.empty()) {
    r.error = missingMessage();
  } else {
    r.error = "no usable CUPTI library (libcupti.so.12 or .13):";
    for (const std::string& t : r.tried) r.error += " " + t + ";";
    r.error.pop_back();
  }
  return r;
}

const LoadResult& loadOnce() {
  static const LoadResult result = load(defaultCandidates());
  return result;
}

}  // namespace sdma::cupti
