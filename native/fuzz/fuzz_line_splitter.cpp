// The bounded line splitter every line reader uses (native/src/util/safe_file.hpp), fed
// the text in chunks of sizes the input picks, against what its header promises, worked out
// from the whole text at once: one line per '\n' and one for a last unterminated piece, each
// the first maxLineBytes of its line with a trailing '\r' dropped, overlong exactly when the
// line was longer than that.
//
// Input: byte 0 picks maxLineBytes (0..255), bytes 1..4 seed the chunk sizes (0..2*max+2),
// the rest is the text.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "util/safe_file.hpp"

namespace {

struct Line {
  std::string text;
  bool overlong = false;
};

std::vector<Line> promised(std::string_view text, std::size_t max) {
  std::vector<Line> out;
  const std::vector<std::string_view> pieces = sdma::fuzz::lines(text);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::string_view piece = pieces[i];
    // The last piece is no line when it is empty (the text ended with '\n', or is empty).
    if (i + 1 == pieces.size() && piece.empty()) break;
    std::string_view kept = piece.substr(0, max);
    if (!kept.empty() && kept.back() == '\r') kept.remove_suffix(1);
    out.push_back({std::string(kept), piece.size() > max});
  }
  return out;
}

[[noreturn]] void broken(const char* what, std::size_t index) {
  std::fprintf(stderr, "LineSplitter broke its promise: %s (line %zu)\n", what, index);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  const std::size_t max = data[0];
  std::uint32_t state = (std::uint32_t{data[1]} | std::uint32_t{data[2]} << 8 | std::uint32_t{data[3]} << 16 |
                         std::uint32_t{data[4]} << 24) |
                        1u;
  const std::string_view text = sdma::fuzz::asText(data + 5, size - 5);

  std::vector<Line> got;
  const sdma::ingest::LineSplitter::OnLine collect = [&](std::string_view line, bool overlong) {
    got.push_back({std::string(line), overlong});
  };
  sdma::ingest::LineSplitter splitter(max);
  std::string_view rest = text;
  while (!rest.empty()) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    const std::size_t chunk = state % (2 * max + 3);
    splitter.feed(rest.substr(0, chunk), collect);
    rest.remove_prefix(std::min(chunk, rest.size()));
  }
  splitter.end(collect);

  const std::vector<Line> want = promised(text, max);
  if (got.size() != want.size()) broken("line count", got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i].text.size() > max) broken("a line longer than maxLineBytes", i);
    if (got[i].text != want[i].text) broken("line text", i);
    if (got[i].overlong != want[i].overlong) broken("overlong flag", i);
  }
  return 0;
}
