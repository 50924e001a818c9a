// The NDJSON line reader (ndjson_reader.hpp): a recursive-descent parser of JSON's grammar
// whose recursion is bounded by Limits::maxDepth and whose every loop advances through the
// line, so no input costs more than a pass (a key repeated many times keeps its last value;
// a number of thousands of digits costs one pass of strtod).
#include "util/ndjson_reader.hpp"

#include <cmath>
#include <cstdlib>

#include "util/checked.hpp"

namespace sdma::ndjson {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

void appendUtf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const Limits& limits) : s_(text), limits_(limits) {}

  std::optional<Value> line() {
    skip();
    if (i_ >= s_.size() || s_[i_] != '{') return fail("not a JSON object");
    std::optional<Value> v = value(1);
    if (!v) return std::nullopt;
    skip();
    if (i_ != s_.size()) return fail("text after the object");
    return v;
  }

  std::string problem() const {
    return problem_.empty() ? std::string() : problem_ + " (at byte " + std::to_string(at_) + ")";
  }

 private:
  std::nullopt_t fail(const char* what) {
    if (problem_.empty()) {
      problem_ = what;
      at_ = i_;
    }
    return std::nullopt;
  }
  void skip() {
    while (i_ < s_.size() && isSpace(s_[i_])) ++i_;
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

  std::optional<std::uint32_t> hex4() {
    if (s_.size() - i_ < 4) return std::nullopt;
    std::uint32_t code = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_ + static_cast<std::size_t>(k)];
      std::uint32_t d = 0;
      if (c >= '0' && c <= '9')
        d = static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        d = static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        d = static_cast<std::uint32_t>(c - 'A' + 10);
      else
        return std::nullopt;
      code = code * 16 + d;
    }
    i_ += 4;
    return code;
  }

  std::optional<std::string> string() {
    if (!eat('"')) return fail("expected a string");
    std::string out;
    while (i_ < s_.size()) {
      // The run up to the next quote or backslash in one append.
      std::size_t end = i_;
      while (end < s_.size() && s_[end] != '"' && s_[end] != '\\') ++end;
      out.append(s_.data() + i_, end - i_);
      i_ = end;
      if (i_ >= s_.size()) break;
      if (s_[i_++] == '"') return out;
      if (i_ >= s_.size()) break;
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::optional<std::uint32_t> code = hex4();
          if (!code) return fail("a \\u escape without four hex digits");
          if (*code >= 0xD800 && *code <= 0xDBFF && s_.substr(i_, 2) == "\\u") {
            const std::size_t back = i_;
            i_ += 2;
            const std::optional<std::uint32_t> low = hex4();
            if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
              appendUtf8(out, 0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00));
              break;
            }
            i_ = back;  // not a pair: the high half alone, the next escape read on its own
          }
          appendUtf8(out, *code >= 0xD800 && *code <= 0xDFFF ? 0xFFFD : *code);
          break;
        }
        default:
          return fail("an escape JSON does not have");
      }
    }
    return fail("a string without its closing quote");
  }

  // JSON's number grammar exactly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? ; one pass.
  std::optional<Value> number() {
    const std::size_t start = i_;
    const auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && isDigit(s_[i_])) ++i_;
      return i_ - from;
    };
    eat('-');
    const std::size_t intStart = i_;
    const std::size_t intDigits = digits();
    if (intDigits == 0 || (intDigits > 1 && s_[intStart] == '0')) return fail("not a JSON value");
    bool integral = true;
    if (eat('.')) {
      integral = false;
      if (digits() == 0) return fail("a number without digits after its point");
    }
    if (eat('e') || eat('E')) {
      integral = false;
      if (!eat('+')) eat('-');
      if (digits() == 0) return fail("a number without digits in its exponent");
    }
    const std::string_view text = s_.substr(start, i_ - start);
    Value v;
    if (integral) {
      if (const std::optional<std::int64_t> n = ingest::parseInt64(text)) {
        v.kind = Value::Kind::Int;
        v.integer = *n;
        v.number = static_cast<double>(*n);
        return v;
      }
    }
    // Not an int64 (a fraction, an exponent, or too many digits): strtod, which gives +-inf
    // or 0 where the value is beyond double's range. The text was checked above, so strtod
    // reads all of it.
    v.kind = Value::Kind::Double;
    v.integral = integral;
    v.number = std::strtod(std::string(text).c_str(), nullptr);
    return v;
  }

  std::optional<Value> value(std::size_t depth) {
    skip();
    if (i_ >= s_.size()) return fail("the line ends where a value should be");
    Value v;
    const char c = s_[i_];
    if (c == '"') {
      std::optional<std::string> text = string();
      if (!text) return std::nullopt;
      v.kind = Value::Kind::String;
      v.text = std::move(*text);
      return v;
    }
    if (c == '{' || c == '[') {
      if (depth > limits_.maxDepth) return fail("nested deeper than the limit");
      ++i_;
      return c == '{' ? object(depth, v) : array(depth, v);
    }
    if (word("true")) {
      v.kind = Value::Kind::Bool;
      v.boolean = true;
      return v;
    }
    if (word("false")) {
      v.kind = Value::Kind::Bool;
      return v;
    }
    if (word("null")) return v;
    return number();
  }

  std::optional<Value> object(std::size_t depth, Value& v) {
    v.kind = Value::Kind::Object;
    skip();
    if (eat('}')) return std::move(v);
    while (true) {
      skip();
      std::optional<std::string> key = string();
      if (!key) return std::nullopt;
      skip();
      if (!eat(':')) return fail("expected ':' after a key");
      std::optional<Value> member = value(depth + 1);
      if (!member) return std::nullopt;
      Member* same = nullptr;
      for (Member& m : v.members) {
        if (m.key == *key) {
          same = &m;
          break;
        }
      }
      if (same != nullptr) {
        same->value = std::move(*member);
      } else {
        if (v.members.size() >= limits_.maxMembers) return fail("more keys in an object than the limit");
        v.members.push_back(Member{std::move(*key), std::move(*member)});
      }
      skip();
      if (eat(',')) continue;
      if (eat('}')) return std::move(v);
      return fail("expected ',' or '}' in an object");
    }
  }

  std::optional<Value> array(std::size_t depth, Value& v) {
    v.kind = Value::Kind::Array;
    skip();
    if (eat(']')) return std::move(v);
    while (true) {
      if (v.items.size() >= limits_.maxItems) return fail("more values in an array than the limit");
      std::optional<Value> item = value(depth + 1);
      if (!item) return std::nullopt;
      v.items.push_back(std::move(*item));
      skip();
      if (eat(',')) continue;
      if (eat(']')) return std::move(v);
      return fail("expected ',' or ']' in an array");
    }
  }

  std::string_view s_;
  const Limits& limits_;
  std::size_t i_ = 0;
  std::string problem_;
  std::size_t at_ = 0;
};

bool finite(const Value& v) {
  return (v.kind == Value::Kind::Int || v.kind == Value::Kind::Double) && std::isfinite(v.number);
}

}  // namespace

const Value* Value::find(std::string_view key) const {
  if (kind != Kind::Object) return nullptr;
  for (const Member& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

std::optional<Value> parseLine(std::string_view line, const Limits& limits, std::string* problem) {
  if (line.size() > limits.maxLineBytes) {
    if (problem != nullptr) *problem = "a line longer than " + std::to_string(limits.maxLineBytes) + " bytes";
    return std::nullopt;
  }
  Parser parser(line, limits);
  std::optional<Value> v = parser.line();
  if (problem != nullptr) *problem = v ? std::string() : parser.problem();
  return v;
}

std::optional<std::int64_t> intField(const Value& object, std::string_view key) {
  const Value* v = object.find(key);
  if (v == nullptr) return std::nullopt;
  if (v->kind == Value::Kind::Int) return v->integer;
  // A whole number written with too many digits for int64 stays out of range, even where
  // its nearest double (-2^63) would fit.
  if (v->kind == Value::Kind::Double && !v->integral) return ingest::toInt64(v->number);
  return std::nullopt;
}

std::optional<double> numberField(const Value& object, std::string_view key) {
  const Value* v = object.find(key);
  if (v == nullptr || !finite(*v)) return std::nullopt;
  return v->number;
}

std::optional<std::string> stringField(const Value& object, std::string_view key) {
  const Value* v = object.find(key);
  if (v == nullptr || v->kind != Value::Kind::String) return std::nullopt;
  return v->text;
}

std::optional<bool> boolField(const Value& object, std::string_view key) {
  const Value* v = object.find(key);
  if (v == nullptr || v->kind != Value::Kind::Bool) return std::nullopt;
  return v->boolean;
}

std::optional<std::vector<double>> numbersField(const Value& object, std::string_view key) {
  const Value* v = object.find(key);
  if (v == nullptr || v->kind != Value::Kind::Array) return std::nullopt;
  std::vector<double> out;
  out.reserve(v->items.size());
  for (const Value& item : v->items) {
    if (!finite(item)) return std::nullopt;
    out.push_back(item.number);
  }
  return out;
}

bool present(const Value& object, std::string_view key) {
  const Value* v = object.find(key);
  return v != nullptr && !v->isNull();
}

bool isFlat(const Value& object) {
  if (object.kind != Value::Kind::Object) return false;
  for (const Member& m : object.members) {
    if (m.value.kind == Value::Kind::Object) return false;
    if (m.value.kind != Value::Kind::Array) continue;
    for (const Value& item : m.value.items) {
      if (item.kind != Value::Kind::Int && item.kind != Value::Kind::Double) return false;
    }
  }
  return true;
}

}  // namespace sdma::ndjson
