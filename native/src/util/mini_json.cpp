#include "util/mini_json.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>

#include "util/checked.hpp"

namespace sdma::runmode {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<JsonObject> object() {
    JsonObject out;
    skip();
    if (!eat('{')) return std::nullopt;
    skip();
    if (eat('}')) return finish(out);
    while (true) {
      skip();
      std::optional<std::string> key = string();
      if (!key) return std::nullopt;
      skip();
      if (!eat(':')) return std::nullopt;
      skip();
      std::optional<JsonValue> v = value();
      if (!v) return std::nullopt;
      out[*key] = std::move(*v);
      skip();
      if (eat(',')) continue;
      if (eat('}')) return finish(out);
      return std::nullopt;
    }
  }

 private:
  std::optional<JsonObject> finish(JsonObject& out) {
    skip();
    if (i_ != s_.size()) return std::nullopt;
    return std::move(out);
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  std::optional<std::string> string() {
    if (!eat('"')) return std::nullopt;
    std::string out;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) return std::nullopt;
      const char e = s_[i_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) return std::nullopt;
          unsigned code = 0;
          const auto r = std::from_chars(s_.data() + i_, s_.data() + i_ + 4, code, 16);
          if (r.ptr != s_.data() + i_ + 4) return std::nullopt;
          i_ += 4;
          // Trace lines carry ASCII; anything else is kept as a replacement mark.
          out += code < 0x80 ? static_cast<char>(code) : '?';
          break;
        }
        default: out += e; break;
      }
    }
    return std::nullopt;
  }
  // JSON's number grammar exactly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? ; one pass.
  std::optional<JsonValue> number() {
    const std::size_t start = i_;
    const auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      return i_ - from;
    };
    eat('-');
    const std::size_t intStart = i_;
    const std::size_t intDigits = digits();
    if (intDigits == 0 || (intDigits > 1 && s_[intStart] == '0')) return std::nullopt;
    bool integral = true;
    if (eat('.')) {
      integral = false;
      if (digits() == 0) return std::nullopt;
    }
    if (eat('e') || eat('E')) {
      integral = false;
      if (!eat('+')) eat('-');
      if (digits() == 0) return std::nullopt;
    }
    const std::string_view text = s_.substr(start, i_ - start);
    JsonValue v;
    if (integral) {
      std::int64_t n = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
      if (r.ec == std::errc() && r.ptr == text.data() + text.size()) {
        v.kind = JsonValue::Kind::Int;
        v.integer = n;
        v.number = static_cast<double>(n);
        return v;
      }
    }
    // Not an int64 (a fraction, an exponent, or too many digits): strtod, which gives +-inf
    // or 0 where the value is beyond double's range. The text was checked above, so strtod
    // reads all of it.
    v.kind = JsonValue::Kind::Double;
    v.integral = integral;
    v.number = std::strtod(std::string(text).c_str(), nullptr);
    return v;
  }
  std::optional<JsonValue> value() {
    JsonValue v;
    if (i_ >= s_.size()) return std::nullopt;
    const char c = s_[i_];
    if (c == '"') {
      std::optional<std::string> text = string();
      if (!text) return std::nullopt;
      v.kind = JsonValue::Kind::String;
      v.text = std::move(*text);
      return v;
    }
    if (c == '[') {
      ++i_;
      v.kind = JsonValue::Kind::NumberArray;
      skip();
      if (eat(']')) return v;
      while (true) {
        skip();
        std::optional<JsonValue> n = number();
        if (!n) return std::nullopt;
        v.numbers.push_back(n->number);
        skip();
        if (eat(',')) continue;
        if (eat(']')) return v;
        return std::nullopt;
      }
    }
    if (word("true")) {
      v.kind = JsonValue::Kind::Bool;
      v.boolean = true;
      return v;
    }
    if (word("false")) {
      v.kind = JsonValue::Kind::Bool;
      return v;
    }
    if (word("null")) return v;
    return number();
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

const JsonValue* find(const JsonObject& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<JsonObject> parseFlatObject(std::string_view line) { return Parser(line).object(); }

std::optional<std::int64_t> intField(const JsonObject& object, std::string_view key) {
  const JsonValue* v = find(object, key);
  if (!v) return std::nullopt;
  if (v->kind == JsonValue::Kind::Int) return v->integer;
  // A whole number written with too many digits for int64 stays out of range, even where
  // its nearest double (-2^63) would fit.
  if (v->kind == JsonValue::Kind::Double && !v->integral) return ingest::toInt64(v->number);
  return std::nullopt;
}

std::optional<std::string> stringField(const JsonObject& object, std::string_view key) {
  const JsonValue* v = find(object, key);
  if (!v || v->kind != JsonValue::Kind::String) return std::nullopt;
  return v->text;
}

std::optional<bool> boolField(const JsonObject& object, std::string_view key) {
  const JsonValue* v = find(object, key);
  if (!v || v->kind != JsonValue::Kind::Bool) return std::nullopt;
  return v->boolean;
}

std::optional<std::vector<double>> arrayField(const JsonObject& object, std::string_view key) {
  const JsonValue* v = find(object, key);
  if (!v || v->kind != JsonValue::Kind::NumberArray) return std::nullopt;
  return v->numbers;
}

}  // namespace sdma::runmode
