#pragma once

// What the harnesses share: splitting one fuzz input into lines or texts, and the header line
// that carries a harness's numbers (clock offsets, caps) in words a person can edit.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace sdma::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return size == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char*>(data), size);
}

// Cuts `text` at its first '\n': the part before goes to `line`, the rest stays in `text`.
inline std::string_view takeLine(std::string_view& text) {
  const std::size_t nl = text.find('\n');
  const std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  return line;
}

// Every '\n'-separated piece, the last one even when empty.
inline std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) return out;
    text.remove_prefix(nl + 1);
  }
}

// The header line's numbers, space separated: "min" and "max" are int64's extremes, any other
// word is read as a decimal int64 (0 when it is none). Missing ones are `fallback`.
class Header {
 public:
  explicit Header(std::string_view line) : rest_(line) {}

  std::int64_t next(std::int64_t fallback = 0) {
    while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
    if (rest_.empty()) return fallback;
    const std::size_t end = rest_.find(' ');
    const std::string_view word = rest_.substr(0, end);
    rest_.remove_prefix(word.size());
    if (word == "min") return std::numeric_limits<std::int64_t>::min();
    if (word == "max") return std::numeric_limits<std::int64_t>::max();
    std::int64_t v = 0;
    std::from_chars(word.data(), word.data() + word.size(), v);
    return v;
  }

 private:
  std::string_view rest_;
};

// A small cap (1..max) from a header number, so that memory stays low whatever it says.
inline std::size_t smallCap(std::int64_t v, std::size_t max) {
  const std::uint64_t u = static_cast<std::uint64_t>(v);
  return static_cast<std::size_t>(u % max) + 1;
}

// `text` cut at the lines that are exactly `marker` (the marker lines dropped, with the '\n'
// before them), into exactly `count` parts: missing ones are empty, the last one keeps any
// further marker lines.
inline std::vector<std::string_view> splitAtMarkerLines(std::string_view text, std::string_view marker,
                                                        std::size_t count) {
  std::vector<std::string_view> out;
  std::size_t lineStart = 0, partStart = 0;
  while (out.size() + 1 < count) {
    const std::size_t nl = text.find('\n', lineStart);
    const std::size_t lineEnd = nl == std::string_view::npos ? text.size() : nl;
    if (text.substr(lineStart, lineEnd - lineStart) == marker) {
      const std::size_t partEnd = lineStart > partStart ? lineStart - 1 : partStart;
      out.push_back(text.substr(partStart, partEnd - partStart));
      partStart = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    if (nl == std::string_view::npos) break;
    lineStart = nl + 1;
  }
  out.push_back(text.substr(partStart));
  out.resize(count);
  return out;
}

// Reads every byte of a result string, so that a dangling or overrun one shows under ASan.
inline volatile std::size_t sink = 0;
inline void touch(std::string_view s) {
  std::size_t h = s.size();
  for (const char c : s) h = h * 31 + static_cast<unsigned char>(c);
  sink = sink + h;
}

}  // namespace sdma::fuzz
