// Reading words of text as values (util/parse.hpp).
#include "util/parse.hpp"

#include <charconv>

namespace sdma {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::vector<std::string_view> splitOn(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

namespace {
template <typename Int>
std::optional<Int> parseWhole(std::string_view text) {
  Int value{};
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}
}  // namespace

std::optional<long long> parseWholeSigned(std::string_view text) { return parseWhole<long long>(text); }
std::optional<std::uint64_t> parseWholeUnsigned(std::string_view text) { return parseWhole<std::uint64_t>(text); }

long long parseIntInRange(std::string_view flag, std::string_view text, long long min, long long max) {
  const std::optional<long long> value = parseWholeSigned(text);
  if (!value) throw UsageError(std::string(flag) + ": " + quoted(text) + " is not a whole number");
  if (*value < min || *value > max) {
    throw UsageError(std::string(flag) + ": " + quoted(text) + " is out of range (" + std::to_string(min) + ".." +
                     std::to_string(max) + ")");
  }
  return *value;
}

}  // namespace sdma
