#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "backend/copy_path.hpp"

namespace sdma {

// Numeric codes are the sdmatl `kind` and `op` columns (docs/PROTOCOL.md).
enum class EventKind : std::uint8_t { Kernel = 0, Cu = 1, Packet = 2, Doorbell = 3, Proxy = 4 };
enum class PacketOp : std::uint8_t { None = 0, Copy = 1, CopySignal = 2, Atomic = 3, Fence = 4, Timestamp = 5 };

inline std::string_view eventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::Kernel:
      return "kernel";
    case EventKind::Cu:
      return "cu";
    case EventKind::Packet:
      return "packet";
    case EventKind::Doorbell:
      return "doorbell";
    case EventKind::Proxy:
      return "proxy";
  }
  return "?";
}

inline std::string_view packetOpName(PacketOp op) {
  switch (op) {
    case PacketOp::None:
      return "none";
    case PacketOp::Copy:
      return "copy";
    case PacketOp::CopySignal:
      return "copy+signal";
    case PacketOp::Atomic:
      return "atomic";
    case PacketOp::Fence:
      return "fence";
    case PacketOp::Timestamp:
      return "timestamp";
  }
  return "?";
}

// The `lane` of a packet or doorbell whose engine is not known: the runtime or the device
// API chose one and does not say which (docs/PROTOCOL.md, "Timeline events").
inline constexpr std::uint32_t kEngineUnknown = 0xFFFF;

// Bits of the sdmatl v2 `flags` column (docs/PROTOCOL.md, "The timeline file").
// Inferred: the hardware did not report this box; its times were derived from what was
// observed around it (the kernel's own clock stamps, the host proxy's), so it shows where the
// work must have happened, not when an engine said it did.
inline constexpr std::uint8_t kEventInferred = 1u << 0;
// Every bit a version 2 file may set; readers refuse the others.
inline constexpr std::uint8_t kEventFlagsKnown = kEventInferred;

struct TimelineEvent {
  EventKind kind = EventKind::Kernel;
  PacketOp op = PacketOp::None;
  CopyPath path = CopyPath::CuHost;
  std::uint16_t gpu = 0;
  std::uint32_t lane = 0;
  std::int32_t ref = -1;  // id of a related event (a doorbell's first packet), -1 if none
  double startNs = 0;
  double endNs = 0;
  double queuedNs = -1;  // -1 when not applicable
  double bytes = 0;
  std::uint8_t flags = 0;  // kEventInferred, or 0: observed
};

// Stored by column, exactly as the sdmatl file lays them out, so writing a file is a
// handful of bulk writes even for millions of events.
struct TimelineEvents {
  std::vector<std::uint8_t> kind, op, path, flags;
  std::vector<std::uint16_t> gpu;
  std::vector<std::uint32_t> lane;
  std::vector<std::int32_t> id, ref;
  std::vector<double> startNs, endNs, queuedNs, bytes;

  std::size_t size() const { return kind.size(); }

  // The next add() gets this id; ids are the insertion index, hence unique.
  std::int32_t nextId() const { return static_cast<std::int32_t>(size()); }

  std::int32_t add(const TimelineEvent& e) {
    const std::int32_t eventId = nextId();
    kind.push_back(static_cast<std::uint8_t>(e.kind));
    op.push_back(static_cast<std::uint8_t>(e.op));
    path.push_back(static_cast<std::uint8_t>(e.path));
    gpu.push_back(e.gpu);
    lane.push_back(e.lane);
    id.push_back(eventId);
    ref.push_back(e.ref);
    startNs.push_back(e.startNs);
    endNs.push_back(e.endNs);
    queuedNs.push_back(e.queuedNs);
    bytes.push_back(e.bytes);
    flags.push_back(e.flags);
    return eventId;
  }

  void reserve(std::size_t n) {
    kind.reserve(n), op.reserve(n), path.reserve(n), gpu.reserve(n), lane.reserve(n);
    id.reserve(n), ref.reserve(n), startNs.reserve(n), endNs.reserve(n), queuedNs.reserve(n);
    bytes.reserve(n), flags.reserve(n);
  }
};

}  // namespace sdma
