// sdma-probe's CUPTI activity collection for the mover evidence (docs/MEASUREMENT.md, "What
// moved the bytes"): MEMCPY, MEMCPY2 (peer copies) and CONCURRENT_KERNEL records, enabled only
// between start() and stop(), around one point's untimed evidence pass. Its header needs no
// CUDA or CUPTI header: the GPU backend includes it from CUDA code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cupti/cupti_record.hpp"

namespace sdma::cupti {

class Collector {
 public:
  // One per process: CUPTI takes one pair of buffer callbacks.
  static Collector& instance();

  // Loads CUPTI and registers the buffer callbacks, the first time; empty when ready, else
  // why it is not (the same text every time).
  const std::string& unavailable();
  // The loaded library's soname or path, and its cuptiGetVersion (ready only).
  const std::string& libraryPath() const { return path_; }
  std::uint32_t version() const { return version_; }

  // CUPTI's clock, which its records' timestamps use; nullopt when not ready or it fails.
  std::optional<std::uint64_t> timestamp() const;

  // Enables the record kinds; false, with why, when CUPTI refuses one (those already
  // enabled are disabled again). Records from before are dropped.
  bool start(std::string& error);

  struct Collected {
    std::vector<ActivityRecord> records;
    std::uint64_t dropped = 0;  // records CUPTI reported it had to drop
    std::string error;          // a flush or disable CUPTI refused
  };
  // A forced flush (the caller synchronized the devices first, so nothing is in flight),
  // then every kind disabled again; what arrived since start().
  Collected stop();

  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

 private:
  Collector() = default;

  std::string unavailable_;
  std::string path_;
  std::uint32_t version_ = 0;
};

}  // namespace sdma::cupti
