#include "backend/validation.hpp"

#include <cstring>
#include <vector>

namespace sdma {

namespace {

// Pattern bytes are 0..250; the poison is 0xFF, so a byte the copy missed always shows.
constexpr unsigned char kPoison = 0xFF;
constexpr std::size_t kGuardBytes = 64;

unsigned char patternByte(std::size_t index, std::uint64_t seed) {
  return static_cast<unsigned char>((index + seed * 31u) % 251u);
}

}  // namespace

std::optional<std::string> validateHostCopy(std::size_t bytes, std::uint64_t patternSeed, bool corrupt) {
  std::vector<unsigned char> src(bytes);
  std::vector<unsigned char> dst(bytes + kGuardBytes, kPoison);
  for (std::size_t i = 0; i < bytes; ++i) src[i] = patternByte(i, patternSeed);

  if (bytes > 0) std::memcpy(dst.data(), src.data(), bytes);
  if (corrupt && bytes > 0) dst[bytes / 2] ^= 0x5A;

  for (std::size_t i = 0; i < bytes; ++i) {
    if (dst[i] != patternByte(i, patternSeed)) {
      return "byte " + std::to_string(i) + " is " + std::to_string(dst[i]) + ", expected " +
             std::to_string(patternByte(i, patternSeed));
    }
  }
  for (std::size_t i = bytes; i < dst.size(); ++i) {
    if (dst[i] != kPoison) return "guard byte " + std::to_string(i - bytes) + " past the copy was overwritten";
  }
  return std::nullopt;
}

}  // namespace sdma
