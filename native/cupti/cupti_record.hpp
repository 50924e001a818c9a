// One CUPTI activity record as sdma-probe and libsdma_lens_cupti.so read it: the fields both
// use, copied out of CUPTI's buffer (cupti_layout.cpp) so that nothing else depends on which
// CUPTI version wrote it. Needs no CUDA or CUPTI header: the mover evidence's classification
// (cupti_classify.hpp) and its tests use it on machines without either.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sdma::cupti {

enum class RecordType : std::uint8_t {
  Memcpy,  // CUPTI_ACTIVITY_KIND_MEMCPY or MEMCPY2 (a peer copy)
  Kernel,  // CUPTI_ACTIVITY_KIND_KERNEL or CONCURRENT_KERNEL
};

// CUpti_ActivityMemcpyKind's values (cupti_activity.h; cupti_layout.cpp checks them against
// the header it is built with).
namespace copy_kind {
inline constexpr std::uint8_t kHtoD = 1;
inline constexpr std::uint8_t kDtoH = 2;
inline constexpr std::uint8_t kHtoA = 3;
inline constexpr std::uint8_t kAtoH = 4;
inline constexpr std::uint8_t kAtoA = 5;
inline constexpr std::uint8_t kAtoD = 6;
inline constexpr std::uint8_t kDtoA = 7;
inline constexpr std::uint8_t kDtoD = 8;
inline constexpr std::uint8_t kHtoH = 9;
inline constexpr std::uint8_t kPtoP = 10;
}  // namespace copy_kind

// CUpti_ChannelType's values: the hardware channel a copy or kernel ran on.
namespace channel_type {
inline constexpr std::uint32_t kInvalid = 0;
inline constexpr std::uint32_t kCompute = 1;      // standard work launch (kernels; copies the driver queues there)
inline constexpr std::uint32_t kAsyncMemcpy = 2;  // an asynchronous copy engine
inline constexpr std::uint32_t kDecompress = 3;   // memory decompression (CUDA 12.8 and later)
}  // namespace channel_type

constexpr std::string_view copyKindName(std::uint8_t kind) {
  switch (kind) {
    case copy_kind::kHtoD:
      return "HtoD";
    case copy_kind::kDtoH:
      return "DtoH";
    case copy_kind::kHtoA:
      return "HtoA";
    case copy_kind::kAtoH:
      return "AtoH";
    case copy_kind::kAtoA:
      return "AtoA";
    case copy_kind::kAtoD:
      return "AtoD";
    case copy_kind::kDtoA:
      return "DtoA";
    case copy_kind::kDtoD:
      return "DtoD";
    case copy_kind::kHtoH:
      return "HtoH";
    case copy_kind::kPtoP:
      return "PtoP";
    default:
      return "unknown";
  }
}

constexpr std::string_view channelTypeName(std::uint32_t type) {
  switch (type) {
    case channel_type::kCompute:
      return "compute";
    case channel_type::kAsyncMemcpy:
      return "async-memcpy";
    case channel_type::kDecompress:
      return "decompress";
    default:
      return "unknown";
  }
}

struct ActivityRecord {
  RecordType type = RecordType::Memcpy;
  bool peer = false;          // a MEMCPY2 record: srcDeviceId / dstDeviceId are set
  std::uint8_t copyKind = 0;  // copy_kind, memcpy records only
  std::uint64_t bytes = 0;    // memcpy records only
  std::uint64_t startNs = 0;  // CUPTI's clock (cuptiGetTimestamp); 0 and 0: not collected
  std::uint64_t endNs = 0;
  std::uint32_t deviceId = 0;                      // the device the copy or kernel ran on
  std::uint32_t srcDeviceId = 0, dstDeviceId = 0;  // peer copies only
  std::uint32_t streamId = 0;
  std::uint32_t correlationId = 0;
  std::int32_t grid[3] = {0, 0, 0};  // kernel records only
  std::int32_t block[3] = {0, 0, 0};
  std::string name;  // kernel records: as CUPTI gives it (mangled)
  // Memcpy records of CUPTI 11.6 (API version 17) and later; unset where the loaded CUPTI's
  // records have no such fields.
  std::optional<std::uint32_t> channelId;
  std::optional<std::uint32_t> channelType;  // channel_type
};

}  // namespace sdma::cupti
