#pragma once

#include <cstdint>
#include <string>

#include "backend/timeline.hpp"

namespace sdma {

// Writes `events` as an sdmatl v1 file (docs/PROTOCOL.md) and returns its size in bytes.
// Throws std::runtime_error with the OS reason when the file cannot be written.
std::uint64_t writeSdmatlFile(const std::string& path, const TimelineEvents& events);

}  // namespace sdma
