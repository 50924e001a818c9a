// The one way sdma-probe and libsdma_lens_cupti.so reach CUPTI: libcupti is dlopen'ed at run
// time, never linked, so neither has a NEEDED entry or a build machine's RUNPATH for it, and
// both start where no CUPTI is installed. Only cupti.h's declarations are used at build time.
//
// Where it looks (docs/PROFILE.md, "Loading CUPTI"): the sonames libcupti.so.13 and
// libcupti.so.12 through the dynamic loader's own search (LD_LIBRARY_PATH, the ld.so cache,
// the default folders), then the CUDA toolkit's usual folders (/usr/local/cuda and
// /usr/local/cuda-*: extras/CUPTI/lib64 and lib64, newest first), then the unversioned
// libcupti.so. No environment variable or option names a library to load.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sdma::cupti {

// Exactly the CUPTI functions the helper and the injection library call.
struct Api {
  decltype(&::cuptiGetVersion) getVersion = nullptr;
  decltype(&::cuptiGetResultString) getResultString = nullptr;
  decltype(&::cuptiGetTimestamp) getTimestamp = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityEnable) activityEnable = nullptr;
  decltype(&::cuptiActivityDisable) activityDisable = nullptr;
  decltype(&::cuptiActivityFlushAll) activityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
};

struct Library {
  void* handle = nullptr;     // never closed: CUPTI keeps callbacks into this process
  std::string path;           // the candidate that loaded: a soname or an absolute path
  std::uint32_t version = 0;  // cuptiGetVersion (CUPTI_API_VERSION of the loaded library)
  Api api;

  // CUPTI's text for a result code, "CUPTI error N" where it has none.
  std::string resultText(CUptiResult result) const;
};

struct LoadResult {
  std::optional<Library> library;
  std::string error;               // why not, when library is unset
  std::vector<std::string> tried;  // candidates that existed but could not be used, and why
};

// The CUDA major version of a CUPTI API version: 19..28 are CUDA 12.0..12.9, 13..18 CUDA 11;
// from CUDA 13.0 on the API version reads xxyyzz (130000: 13.0). 0: not known.
int cudaMajorOfCuptiVersion(std::uint32_t version);

// Channel type and channel id are in the memcpy records from CUPTI 11.6 (API version 17) on.
inline constexpr std::uint32_t kFirstVersionWithChannels = 17;

// The candidates, in the order they are tried (see above).
std::vector<std::string> defaultCandidates();

// Loads the first candidate that opens, has every function of Api and answers
// cuptiGetVersion. Absolute candidates that do not exist are passed over. A library newer
// than the CUDA driver already loaded in this process (libcuda, looked up without loading
// it) is passed over: CUPTI 13 does not run on a CUDA 12 driver.
LoadResult load(const std::vector<std::string>& candidates);

// load(defaultCandidates()), once per process (thread-safe); the result is kept.
const LoadResult& loadOnce();

// The error when no candidate exists at all.
std::string missingMessage();

}  // namespace sdma::cupti
