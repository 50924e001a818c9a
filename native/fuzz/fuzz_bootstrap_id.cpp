// The bootstrap id of ranks started by srun or mpirun (native/src/commands/rank_bootstrap.hpp):
// the file rank 0 leaves in the bootstrap folder, which every other rank reads, and the hex
// text itself (also what a rank the helper starts reads on its stdin), each against what it
// promises:
//   idFromHex        an id only for exactly kBootstrapIdBytes * 2 hex digits (either case),
//                    then exactly kBootstrapIdBytes bytes, whose hex is the text's
//   readBootstrapId  an id only for a private file (0600 and ours) holding those digits and at
//                    most one '\n' after them, the same id as idFromHex's; else false with a
//                    reason that names the file and stays short, and the id left as it was;
//                    a file others may read is refused whatever it holds
//
// Input: the whole input is the id file's content (and idFromHex's text); it is written to a
// private temporary file (mkstemp: mode 0600, this user's), read, then read again with group
// or other permission bits the input's hash picks.
#include <sys/stat.h>

#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "commands/rank_bootstrap.hpp"
#include "fuzz_input.hpp"
#include "temp_file.hpp"

namespace {

using sdma::collective::kBootstrapIdBytes;

bool isHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool isHexId(std::string_view s) {
  if (s.size() != kBootstrapIdBytes * 2) return false;
  for (const char c : s) {
    if (!isHexDigit(c)) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// What a file holding `text` must give: the id's hex digits, or nullopt.
std::optional<std::string_view> promisedHex(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return isHexId(text) ? std::optional<std::string_view>(text) : std::nullopt;
}

const std::string kUntouched = "untouched";

// One read of `path`: true with the id, or false with a short reason naming the file.
bool readOnce(const std::string& path, std::string& id) {
  id = kUntouched;
  std::string why;
  const bool ok = sdma::collective::readBootstrapId(path, std::chrono::milliseconds(0), id, why);
  if (ok) {
    assert(id.size() == kBootstrapIdBytes);
  } else {
    assert(id == kUntouched);
    assert(!why.empty() && why.size() <= path.size() + 160);
    assert(why.find(path) != std::string::npos);
    sdma::fuzz::touch(why);
  }
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = sdma::fuzz::asText(data, size);

  const std::optional<std::string> parsed = sdma::collective::idFromHex(text);
  assert(parsed.has_value() == isHexId(text));
  if (parsed) {
    assert(parsed->size() == kBootstrapIdBytes);
    assert(sdma::collective::toHex(*parsed) == lower(text));
  }

  sdma::fuzz::TempFile file;
  file.write(text);
  const std::optional<std::string_view> want = promisedHex(text);
  std::string id;
  const bool ok = readOnce(file.path(), id);
  assert(ok == want.has_value());
  if (ok) assert(sdma::collective::toHex(id) == lower(*want));

  // The same bytes with group or other bits: refused, whatever they are.
  std::size_t h = size;
  for (std::size_t i = 0; i < size; ++i) h = h * 31 + data[i];
  const mode_t others = static_cast<mode_t>(h % 63 + 1);  // 001..077
  if (chmod(file.path().c_str(), 0600 | others) != 0) std::abort();
  assert(!readOnce(file.path(), id));

  // No file yet, the wait already over: refused at once.
  assert(!readOnce(file.path() + ".none", id));
  return 0;
}
