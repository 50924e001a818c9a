// The NDJSON line reader (native/src/util/ndjson_reader.hpp): the whole input is one line, as
// another process writes it (a trace line, a variant child's record, a PE record). It is read
// under the limits of each of its readers: the trace lines' (64 KiB, flat), the default ones
// and the variant child's (deep, many keys); every value of the result is walked, every
// getter asked for every key the object has and for the keys the readers look up, and what
// the reader promises is checked: no getter hands out a non-finite number, the limits hold.
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "util/ndjson_reader.hpp"

namespace {

using sdma::ndjson::Limits;
using sdma::ndjson::Value;

constexpr std::string_view kKeys[] = {"k",
                                      "pid",
                                      "gpu",
                                      "name",
                                      "startNs",
                                      "endNs",
                                      "grid",
                                      "block",
                                      "corr",
                                      "bytes",
                                      "src",
                                      "dst",
                                      "kind",
                                      "label",
                                      "cu",
                                      "xcc",
                                      "monoStartNs",
                                      "monoEndNs",
                                      "peer",
                                      "mover",
                                      "pull",
                                      "cuptiNs",
                                      "monoNs",
                                      "dropped",
                                      "alignUncertaintyNs",
                                      "message",
                                      "type",
                                      "uid",
                                      "ns",
                                      "ok",
                                      "ops",
                                      "code",
                                      "hint",
                                      "version",
                                      "issuedNs",
                                      "completeNs",
                                      ""};

void askAll(const Value& object, std::string_view key) {
  using namespace sdma::ndjson;
  if (const auto v = intField(object, key)) sdma::fuzz::sink = sdma::fuzz::sink + static_cast<std::size_t>(*v);
  if (const auto v = numberField(object, key)) {
    assert(std::isfinite(*v));
    sdma::fuzz::sink = sdma::fuzz::sink + (*v > 0 ? 1 : 0);
  }
  if (const auto v = stringField(object, key)) sdma::fuzz::touch(*v);
  if (const auto v = boolField(object, key)) sdma::fuzz::sink = sdma::fuzz::sink + (*v ? 1 : 0);
  if (const auto v = numbersField(object, key)) {
    for (const double d : *v) {
      assert(std::isfinite(d));
      sdma::fuzz::sink = sdma::fuzz::sink + (d > 0 ? 1 : 0);
    }
  }
  sdma::fuzz::sink = sdma::fuzz::sink + (present(object, key) ? 1 : 0);
}

void walk(const Value& v, const Limits& limits, std::size_t depth) {
  if (v.kind == Value::Kind::Object || v.kind == Value::Kind::Array) assert(depth <= limits.maxDepth);
  assert(v.members.size() <= limits.maxMembers);
  assert(v.items.size() <= limits.maxItems);
  sdma::fuzz::touch(v.text);
  for (const Value& item : v.items) walk(item, limits, depth + 1);
  std::size_t asked = 0;
  for (const auto& m : v.members) {
    sdma::fuzz::touch(m.key);
    if (asked++ < 64) askAll(v, m.key);  // each getter looks its key up: bounded work per input
    walk(m.value, limits, depth + 1);
  }
}

void readUnder(std::string_view line, const Limits& limits) {
  std::string problem;
  const auto object = sdma::ndjson::parseLine(line, limits, &problem);
  if (!object) {
    assert(!problem.empty());
    return;
  }
  assert(line.size() <= limits.maxLineBytes);
  assert(object->kind == Value::Kind::Object);
  walk(*object, limits, 1);
  for (const std::string_view key : kKeys) askAll(*object, key);
  sdma::fuzz::sink = sdma::fuzz::sink + (sdma::ndjson::isFlat(*object) ? 1 : 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line = sdma::fuzz::asText(data, size);
  Limits trace;
  trace.maxLineBytes = 64 * 1024;
  trace.maxDepth = 2;
  readUnder(line, trace);
  readUnder(line, Limits{});
  Limits child;
  child.maxDepth = 32;
  child.maxMembers = 4096;
  readUnder(line, child);
  Limits tiny;  // every limit reachable by a short input
  tiny.maxLineBytes = 512;
  tiny.maxDepth = 3;
  tiny.maxMembers = 4;
  tiny.maxItems = 4;
  readUnder(line, tiny);
  return 0;
}
