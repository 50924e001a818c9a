#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sdma {

// The two axes of the protocol: who carries the bytes (mover) and who starts the copy
// (initiator). The numeric values are the sdmatl `path` column, so they must not change.
enum class CopyPath : std::uint8_t { CuHost = 0, CuDevice = 1, EngineHost = 2, EngineDevice = 3 };

inline constexpr std::array<CopyPath, 4> kAllCopyPaths = {CopyPath::CuHost, CopyPath::CuDevice, CopyPath::EngineHost,
                                                          CopyPath::EngineDevice};

inline bool usesEngine(CopyPath p) { return p == CopyPath::EngineHost || p == CopyPath::EngineDevice; }
inline bool isDeviceInitiated(CopyPath p) { return p == CopyPath::CuDevice || p == CopyPath::EngineDevice; }

inline std::string_view moverName(CopyPath p) { return usesEngine(p) ? "engine" : "cu"; }
inline std::string_view initiatorName(CopyPath p) { return isDeviceInitiated(p) ? "device" : "host"; }

inline std::string_view pathName(CopyPath p) {
  switch (p) {
    case CopyPath::CuHost:
      return "cu/host";
    case CopyPath::CuDevice:
      return "cu/device";
    case CopyPath::EngineHost:
      return "engine/host";
    case CopyPath::EngineDevice:
      return "engine/device";
  }
  return "?";
}

inline std::optional<CopyPath> parseCopyPath(std::string_view name) {
  for (CopyPath p : kAllCopyPaths) {
    if (pathName(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace sdma
