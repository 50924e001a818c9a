#pragma once

#include <cstdint>
#include <string>

#include "backend/timeline.hpp"

namespace sdma {

// The version writeSdmatlFile() writes (and the `timeline` record names): 2, the columns of
// version 1 followed by `flags` (docs/PROTOCOL.md, "The timeline file").
inline constexpr std::uint32_t kSdmatlVersion = 2;

// Bytes of an sdmatl version 2 file of `eventCount` events: the header and the twelve
// columns, each padded to a multiple of 8 bytes.
std::uint64_t sdmatlFileBytes(std::uint64_t eventCount);

// Writes `events` as an sdmatl version 2 file and returns its size in bytes. Throws
// std::runtime_error with the OS reason when the file cannot be written, and
// std::invalid_argument, before creating it, when the columns differ in length or an event
// sets a flag bit version 2 does not define.
std::uint64_t writeSdmatlFile(const std::string& path, const TimelineEvents& events);

}  // namespace sdma
