#include "cupti/cupti_layout.hpp"

#include <cstddef>
#include <cstring>

#include "cupti/cupti_loader.hpp"

namespace sdma::cupti {
namespace {

static_assert(sizeof(void*) == 8, "the offsets below are those of CUPTI's 64-bit (CUPTILP64) records");

// The offsets read, the same in every CUPTI from CUDA 11.6 to 13.0:
//   memcpy (MEMCPY): CUpti_ActivityMemcpy5 (CUDA 11.6 to 12.7) and CUpti_ActivityMemcpy6
//     (12.8 to 13.0, which appends isDeviceLaunched and copyCount after channelType);
//   peer memcpy (MEMCPY2): CUpti_ActivityMemcpyPtoP4 (11.6 to 13.0);
//   kernel (KERNEL, CONCURRENT_KERNEL): CUpti_ActivityKernel4 to CUpti_ActivityKernel10
//     (CUDA 9.0 to 13.0: each version appends fields; 12.x writes Kernel9, 13.0 Kernel10).
// channelID / channelType came with Memcpy5 and PtoP4 (CUDA 11.6, API version 17); before
// that those offsets hold other fields or none, so they are read only from version 17 on.
namespace memcpy_at {
constexpr std::size_t kCopyKind = 4, kBytes = 8, kStart = 16, kEnd = 24, kDeviceId = 32, kStreamId = 40,
                      kCorrelationId = 44, kChannelId = 76, kChannelType = 80;
}
namespace peer_at {
constexpr std::size_t kCopyKind = 4, kBytes = 8, kStart = 16, kEnd = 24, kDeviceId = 32, kStreamId = 40,
                      kSrcDeviceId = 44, kDstDeviceId = 52, kCorrelationId = 60, kChannelId = 84, kChannelType = 88;
}
namespace kernel_at {
constexpr std::size_t kStart = 16, kEnd = 24, kDeviceId = 40, kStreamId = 48, kGridX = 52, kBlockX = 64,
                      kCorrelationId = 92, kName = 104;
}

// The header this is built with must agree, struct by struct, for the versions it declares.
#define SDMA_CUPTI_AT(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "::" #field " is not where every CUPTI version has it")
#define SDMA_CUPTI_MEMCPY_LAYOUT(type)                           \
  SDMA_CUPTI_AT(type, copyKind, memcpy_at::kCopyKind);           \
  SDMA_CUPTI_AT(type, bytes, memcpy_at::kBytes);                 \
  SDMA_CUPTI_AT(type, start, memcpy_at::kStart);                 \
  SDMA_CUPTI_AT(type, end, memcpy_at::kEnd);                     \
  SDMA_CUPTI_AT(type, deviceId, memcpy_at::kDeviceId);           \
  SDMA_CUPTI_AT(type, streamId, memcpy_at::kStreamId);           \
  SDMA_CUPTI_AT(type, correlationId, memcpy_at::kCorrelationId); \
  SDMA_CUPTI_AT(type, channelID, memcpy_at::kChannelId);         \
  SDMA_CUPTI_AT(type, channelType, memcpy_at::kChannelType)
#define SDMA_CUPTI_KERNEL_LAYOUT(type)                           \
  SDMA_CUPTI_AT(type, start, kernel_at::kStart);                 \
  SDMA_CUPTI_AT(type, end, kernel_at::kEnd);                     \
  SDMA_CUPTI_AT(type, deviceId, kernel_at::kDeviceId);           \
  SDMA_CUPTI_AT(type, streamId, kernel_at::kStreamId);           \
  SDMA_CUPTI_AT(type, gridX, kernel_at::kGridX);                 \
  SDMA_CUPTI_AT(type, gridZ, kernel_at::kGridX + 8);             \
  SDMA_CUPTI_AT(type, blockX, kernel_at::kBlockX);               \
  SDMA_CUPTI_AT(type, blockZ, kernel_at::kBlockX + 8);           \
  SDMA_CUPTI_AT(type, correlationId, kernel_at::kCorrelationId); \
  SDMA_CUPTI_AT(type, name, kernel_at::kName)

SDMA_CUPTI_MEMCPY_LAYOUT(CUpti_ActivityMemcpy5);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, copyKind, peer_at::kCopyKind);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, bytes, peer_at::kBytes);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, start, peer_at::kStart);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, end, peer_at::kEnd);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, deviceId, peer_at::kDeviceId);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, streamId, peer_at::kStreamId);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, srcDeviceId, peer_at::kSrcDeviceId);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, dstDeviceId, peer_at::kDstDeviceId);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, correlationId, peer_at::kCorrelationId);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, channelID, peer_at::kChannelId);
SDMA_CUPTI_AT(CUpti_ActivityMemcpyPtoP4, channelType, peer_at::kChannelType);
SDMA_CUPTI_KERNEL_LAYOUT(CUpti_ActivityKernel4);
SDMA_CUPTI_KERNEL_LAYOUT(CUpti_ActivityKernel9);
#if CUPTI_API_VERSION >= 26  // CUDA 12.8
SDMA_CUPTI_MEMCPY_LAYOUT(CUpti_ActivityMemcpy6);
#endif
#if CUPTI_API_VERSION >= 130000  // CUDA 13.0
SDMA_CUPTI_KERNEL_LAYOUT(CUpti_ActivityKernel10);
#endif
#undef SDMA_CUPTI_KERNEL_LAYOUT
#undef SDMA_CUPTI_MEMCPY_LAYOUT
#undef SDMA_CUPTI_AT

// cupti_record.hpp's copies of CUPTI's enumerations.
static_assert(
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == copy_kind::kHtoD && CUPTI_ACTIVITY_MEMCPY_KIND_DTOH == copy_kind::kDtoH &&
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOA == copy_kind::kHtoA && CUPTI_ACTIVITY_MEMCPY_KIND_ATOH == copy_kind::kAtoH &&
    CUPTI_ACTIVITY_MEMCPY_KIND_ATOA == copy_kind::kAtoA && CUPTI_ACTIVITY_MEMCPY_KIND_ATOD == copy_kind::kAtoD &&
    CUPTI_ACTIVITY_MEMCPY_KIND_DTOA == copy_kind::kDtoA && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == copy_kind::kDtoD &&
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOH == copy_kind::kHtoH && CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == copy_kind::kPtoP);
static_assert(CUPTI_CHANNEL_TYPE_INVALID == static_cast<int>(channel_type::kInvalid) &&
              CUPTI_CHANNEL_TYPE_COMPUTE == static_cast<int>(channel_type::kCompute) &&
              CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY == static_cast<int>(channel_type::kAsyncMemcpy));

template <typename T>
T at(const CUpti_Activity* record, std::size_t offset) {
  T value;
  std::memcpy(&value, reinterpret_cast<const unsigned char*>(record) + offset, sizeof value);
  return value;
}

}  // namespace

std::optional<ActivityRecord> decodeRecord(const CUpti_Activity* record, std::uint32_t cuptiVersion) {
  if (record == nullptr) return std::nullopt;
  const bool channels = cuptiVersion >= kFirstVersionWithChannels;
  ActivityRecord r;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      r.type = RecordType::Memcpy;
      r.copyKind = at<std::uint8_t>(record, memcpy_at::kCopyKind);
      r.bytes = at<std::uint64_t>(record, memcpy_at::kBytes);
      r.startNs = at<std::uint64_t>(record, memcpy_at::kStart);
      r.endNs = at<std::uint64_t>(record, memcpy_at::kEnd);
      r.deviceId = at<std::uint32_t>(record, memcpy_at::kDeviceId);
      r.streamId = at<std::uint32_t>(record, memcpy_at::kStreamId);
      r.correlationId = at<std::uint32_t>(record, memcpy_at::kCorrelationId);
      if (channels) {
        r.channelId = at<std::uint32_t>(record, memcpy_at::kChannelId);
        r.channelType = at<std::uint32_t>(record, memcpy_at::kChannelType);
      }
      return r;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      r.type = RecordType::Memcpy;
      r.peer = true;
      r.copyKind = at<std::uint8_t>(record, peer_at::kCopyKind);
      r.bytes = at<std::uint64_t>(record, peer_at::kBytes);
      r.startNs = at<std::uint64_t>(record, peer_at::kStart);
      r.endNs = at<std::uint64_t>(record, peer_at::kEnd);
      r.deviceId = at<std::uint32_t>(record, peer_at::kDeviceId);
      r.streamId = at<std::uint32_t>(record, peer_at::kStreamId);
      r.srcDeviceId = at<std::uint32_t>(record, peer_at::kSrcDeviceId);
      r.dstDeviceId = at<std::uint32_t>(record, peer_at::kDstDeviceId);
      r.correlationId = at<std::uint32_t>(record, peer_at::kCorrelationId);
      if (channels) {
        r.channelId = at<std::uint32_t>(record, peer_at::kChannelId);
        r.channelType = at<std::uint32_t>(record, peer_at::kChannelType);
      }
      return r;
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      r.type = RecordType::Kernel;
      r.startNs = at<std::uint64_t>(record, kernel_at::kStart);
      r.endNs = at<std::uint64_t>(record, kernel_at::kEnd);
      r.deviceId = at<std::uint32_t>(record, kernel_at::kDeviceId);
      r.streamId = at<std::uint32_t>(record, kernel_at::kStreamId);
      for (int i = 0; i < 3; ++i) {
        r.grid[i] = at<std::int32_t>(record, kernel_at::kGridX + 4 * static_cast<std::size_t>(i));
        r.block[i] = at<std::int32_t>(record, kernel_at::kBlockX + 4 * static_cast<std::size_t>(i));
      }
      r.correlationId = at<std::uint32_t>(record, kernel_at::kCorrelationId);
      if (const char* name = at<const char*>(record, kernel_at::kName)) r.name = name;
      return r;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace sdma::cupti
