#pragma once

// Numeric conversions of outside data with every range checked: nothing here has undefined
// behaviour on any input (no signed overflow, no out-of-range float-to-integer cast). Each
// returns nullopt where the value does not fit, and the caller says so to the user.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace sdma::ingest {

inline std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::int64_t> sub(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// A double to int64: finite and inside [-2^63, 2^63) (2^63 itself does not fit), truncated
// toward zero as a cast would.
inline std::optional<std::int64_t> toInt64(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  constexpr double kTwo63 = 9223372036854775808.0;
  if (v >= kTwo63 || v < -kTwo63) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

// A double to int, truncated toward zero; nullopt outside int's range or not finite.
inline std::optional<int> toInt(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  const double t = std::trunc(v);
  if (t < static_cast<double>(std::numeric_limits<int>::min()) ||
      t > static_cast<double>(std::numeric_limits<int>::max())) {
    return std::nullopt;
  }
  return static_cast<int>(t);
}

inline std::optional<int> toInt(std::int64_t v) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(v);
}

inline std::optional<unsigned> toUnsigned(std::int64_t v) {
  if (v < 0 || static_cast<std::uint64_t>(v) > std::numeric_limits<unsigned>::max()) return std::nullopt;
  return static_cast<unsigned>(v);
}

// Whole decimal text (an optional '-', then digits, nothing else) to int64; nullopt when it
// is not such text or does not fit.
inline std::optional<std::int64_t> parseInt64(std::string_view text) {
  std::int64_t v = 0;
  if (text.empty()) return std::nullopt;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// Rounds a double to int64 (half away from zero), nullopt when it does not fit.
inline std::optional<std::int64_t> roundToInt64(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  return toInt64(std::round(v));
}

}  // namespace sdma::ingest
