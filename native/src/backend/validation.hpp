#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace sdma {

// Fills a source with a seeded pattern and a destination (plus a guard past its end) with
// poison, copies, then checks every byte and the guard. Returns a description of the first
// wrong byte, or nullopt when the copy is exact. The simulator has no device memory, so it
// runs this host-side copy per sample: `validated: true` is earned by a real check.
// With `corrupt`, one byte of the copy is damaged before the check (--fault corrupt-after).
std::optional<std::string> validateHostCopy(std::size_t bytes, std::uint64_t patternSeed, bool corrupt = false);

}  // namespace sdma
