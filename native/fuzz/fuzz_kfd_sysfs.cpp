// The KFD sysfs parsers (native/src/backend/kfd_sdma.hpp): a value file, a node's
// properties, the PCI address made from them, and the names of a process's counter files and
// of the process folders, each against what it promises:
//   parseValue       a value only for whole decimal text (at most kMaxValueBytes, one
//                    trailing '\n' allowed), and that value's digits are the text's
//   parseProperties  a fact only when its line is there once, and it fits 32 bits
//   pciBusIdOf       "DDDD:BB:DD.F" in lower-case hex whatever the numbers
//   parseSdmaFileName, parsePidName
//                    a number only for the name the kernel would write for it
//
// Input: the whole text goes to parseValue and parseProperties; its first line to the name
// parsers; its first 8 bytes (as two little-endian 32-bit words) to pciBusIdOf.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "backend/kfd_sdma.hpp"
#include "fuzz_input.hpp"

namespace {

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string_view withoutLeadingZeros(std::string_view s) {
  while (s.size() > 1 && s.front() == '0') s.remove_prefix(1);
  return s;
}

bool isHex(std::string_view s) {
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return !s.empty();
}

void checkBusId(const std::string& id) {
  // DDDD (4 to 8 digits) ":" BB ":" DD "." F
  assert(id.size() >= 12 && id.size() <= 16);
  const std::size_t domainEnd = id.size() - 8;
  assert(isHex(std::string_view(id).substr(0, domainEnd)));
  assert(id[domainEnd] == ':' && id[domainEnd + 3] == ':' && id[domainEnd + 6] == '.');
  assert(isHex(std::string_view(id).substr(domainEnd + 1, 2)));
  assert(isHex(std::string_view(id).substr(domainEnd + 4, 2)));
  assert(id.back() >= '0' && id.back() <= '7');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = sdma::fuzz::asText(data, size);

  if (const std::optional<std::uint64_t> v = sdma::kfd::parseValue(text)) {
    std::string_view body = text;
    if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
    assert(text.size() <= sdma::kfd::kMaxValueBytes);
    assert(allDigits(body));
    assert(std::to_string(*v) == withoutLeadingZeros(body));
  }

  const sdma::kfd::NodeProperties p = sdma::kfd::parseProperties(text);
  if (p.domain || p.locationId) assert(text.size() <= sdma::kfd::kMaxPropertiesBytes);
  if (p.domain) assert(text.find("domain ") != std::string_view::npos);
  if (p.locationId) assert(text.find("location_id ") != std::string_view::npos);
  if (p.domain && p.locationId) {
    if (const std::optional<std::string> id = sdma::kfd::pciBusIdOf(*p.domain, *p.locationId)) checkBusId(*id);
  }

  std::uint32_t words[2] = {0, 0};
  std::memcpy(words, data, size < sizeof words ? size : sizeof words);
  const std::optional<std::string> id = sdma::kfd::pciBusIdOf(words[0], words[1]);
  assert(id.has_value() == ((words[1] & 0x0FFF0000u) == 0));
  if (id) checkBusId(*id);

  std::string_view rest = text;
  const std::string_view name = sdma::fuzz::takeLine(rest);
  if (const std::optional<std::uint32_t> gpu = sdma::kfd::parseSdmaFileName(name)) {
    assert(name == "sdma_" + std::to_string(*gpu));
  }
  if (const std::optional<long> pid = sdma::kfd::parsePidName(name)) {
    assert(*pid > 0 && name == std::to_string(*pid));
  }
  return 0;
}
