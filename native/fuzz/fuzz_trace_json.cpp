// The trace-line JSON reader (native/src/util/mini_json.hpp): the whole input is one line, as
// the program's side writes it. Every accessor is asked for every key the object has and for
// the keys the collector reads, whatever the value's kind.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_input.hpp"
#include "util/mini_json.hpp"

namespace {

constexpr std::string_view kKeys[] = {"k",     "pid",   "gpu",   "name",        "startNs",     "endNs",
                                      "grid",  "block", "corr",  "bytes",       "src",         "dst",
                                      "kind",  "label", "cu",    "xcc",         "monoStartNs", "monoEndNs",
                                      "peer",  "mover", "pull",  "cuptiNs",     "monoNs",      "dropped",
                                      "alignUncertaintyNs", "message", ""};

void askAll(const sdma::runmode::JsonObject& object, std::string_view key) {
  using namespace sdma::runmode;
  if (const auto v = intField(object, key)) sdma::fuzz::sink = sdma::fuzz::sink + static_cast<std::size_t>(*v);
  if (const auto v = stringField(object, key)) sdma::fuzz::touch(*v);
  if (const auto v = boolField(object, key)) sdma::fuzz::sink = sdma::fuzz::sink + (*v ? 1 : 0);
  if (const auto v = arrayField(object, key)) {
    for (const double d : *v) sdma::fuzz::sink = sdma::fuzz::sink + (d > 0 ? 1 : 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto object = sdma::runmode::parseFlatObject(sdma::fuzz::asText(data, size));
  if (!object) return 0;
  for (const auto& [key, value] : *object) {
    sdma::fuzz::touch(key);
    askAll(*object, key);
  }
  for (const std::string_view key : kKeys) askAll(*object, key);
  return 0;
}
