#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sdma {

// Builds one JSON value into a string, inserting commas itself so callers cannot get the
// punctuation wrong. Numbers use std::to_chars: fast, locale-free and round-trip exact.
class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  // Shortest text that reads back as the same double; NaN and infinities become null.
  JsonWriter& value(double number);
  // At most `digits` significant digits (like %.6g), for figures whose precision is known.
  JsonWriter& valueSignificant(double number, int digits);
  JsonWriter& null();

  template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>>>
  JsonWriter& value(Int number) {
    separate();
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
    out_.append(buffer, result.ptr);
    return *this;
  }

  const std::string& str() const { return out_; }
  void clear();

 private:
  void separate();

  std::string out_;
  std::vector<bool> needsComma_;  // one per open object/array
  bool afterKey_ = false;
};

// Appends `text` as a JSON string literal. Invalid UTF-8 bytes become U+FFFD so the line
// stays valid JSON whatever a user passed on the command line.
void appendJsonString(std::string& out, std::string_view text);

}  // namespace sdma
