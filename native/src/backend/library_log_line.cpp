#include "backend/library_log_line.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace sdma::librarylog {

namespace {

std::string lowerCase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::optional<std::uint64_t> number(std::string_view digits) {
  std::uint64_t v = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

// The collectives' names as NCCL's ncclFuncToString and RCCL's logs spell them; matched
// without regard to case (RCCL writes "AllToAll", NCCL's API "AlltoAll").
constexpr std::array<std::string_view, 12> kOps = {"AllGather", "AllReduce", "AllToAll",      "AllToAllv",
                                                   "Broadcast", "Reduce",    "ReduceScatter", "Gather",
                                                   "Scatter",   "Send",      "Recv",          "SendRecv"};

// The first word of the message that names a collective ("AllToAll GIN: ...", "AllGather: ...").
std::string opOf(std::string_view message) {
  std::size_t i = 0;
  while (i < message.size()) {
    while (i < message.size() && message[i] == ' ') ++i;
    std::size_t end = i;
    while (end < message.size() && message[end] != ' ') ++end;
    std::string_view word = message.substr(i, end - i);
    while (!word.empty() && word.back() == ':') word.remove_suffix(1);
    const std::string lower = lowerCase(word);
    for (std::string_view op : kOps) {
      if (lower == lowerCase(op)) return std::string(op);
    }
    i = end;
  }
  return {};
}

// "host:pid:tid [device] NCCL INFO ...", possibly after a timestamp in brackets.
void prefixFields(std::string_view prefix, LogLine& out) {
  if (const std::size_t open = prefix.rfind('['); open != std::string_view::npos) {
    const std::size_t close = prefix.find(']', open);
    if (close != std::string_view::npos) {
      const std::string_view inside = prefix.substr(open + 1, close - open - 1);
      if (allDigits(inside) && inside.size() < 6) out.device = static_cast<int>(*number(inside));
    }
  }
  std::size_t end = prefix.size();
  while (end > 0) {
    while (end > 0 && prefix[end - 1] == ' ') --end;
    std::size_t start = end;
    while (start > 0 && prefix[start - 1] != ' ') --start;
    const std::string_view token = prefix.substr(start, end - start);
    const std::size_t last = token.rfind(':');
    const std::size_t middle =
        last == std::string_view::npos || last == 0 ? std::string_view::npos : token.rfind(':', last - 1);
    if (middle != std::string_view::npos) {
      const std::string_view pid = token.substr(middle + 1, last - middle - 1);
      if (allDigits(pid) && allDigits(token.substr(last + 1)) && pid.size() < 12) {
        out.pid = static_cast<long>(*number(pid));
        return;
      }
    }
    end = start;
  }
}

// A small count in `digits` (1..6 digits, at most kMaxChannels), else nullopt.
std::optional<int> smallCount(std::string_view digits) {
  if (digits.empty() || digits.size() > 6 || !allDigits(digits)) return std::nullopt;
  const auto n = number(digits);
  if (!n || *n > static_cast<std::uint64_t>(kMaxChannels)) return std::nullopt;
  return static_cast<int>(*n);
}

// The digits that start at `at` in `text`.
std::string_view digitsAt(std::string_view text, std::size_t at) {
  if (at > text.size()) return {};
  std::size_t end = at;
  while (end < text.size() && end - at < 16 && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return text.substr(at, end - at);
}

// channel{Lo..Hi}={a..b}, "nchannels N" or "ctas=N", in that order of preference.
std::optional<int> channelsOf(std::string_view line, std::string_view lower) {
  constexpr std::string_view kRange = "channel{lo..hi}={";
  if (const std::size_t at = lower.find(kRange); at != std::string_view::npos) {
    const std::size_t loAt = at + kRange.size();
    const std::string_view lo = digitsAt(line, loAt);
    const std::size_t dots = loAt + lo.size();
    if (dots + 2 > line.size() || line.substr(dots, 2) != "..") return std::nullopt;
    const std::string_view hi = digitsAt(line, dots + 2);
    const std::size_t close = dots + 2 + hi.size();
    if (close >= line.size() || line[close] != '}') return std::nullopt;
    const auto a = smallCount(lo);
    const auto b = smallCount(hi);
    if (!a || !b || *b < *a || *b - *a + 1 > kMaxChannels) return std::nullopt;
    return *b - *a + 1;
  }
  for (std::string_view key : {std::string_view("nchannels "), std::string_view("ctas=")}) {
    const std::size_t at = lower.find(key);
    if (at == std::string_view::npos) continue;
    if (at > 0 && std::isalnum(static_cast<unsigned char>(lower[at - 1]))) continue;
    return smallCount(digitsAt(line, at + key.size()));
  }
  return std::nullopt;
}

void sizeFields(std::string_view line, std::string_view lower, LogLine& out) {
  if (const std::size_t at = lower.find("bytesperpeer="); at != std::string_view::npos) {
    std::size_t end = at + 13;
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
    if (const auto n = number(line.substr(at + 13, end - at - 13))) {
      out.sizeKind = SizeKind::BytesPerPeer;
      out.sizeBytes = *n;
    }
    return;
  }
  if (const std::size_t at = line.find(" Bytes -> "); at != std::string_view::npos) {
    std::size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
    if (const auto n = number(line.substr(start, at - start))) {
      out.sizeKind = SizeKind::Bytes;
      out.sizeBytes = *n;
    }
  }
}

}  // namespace

std::optional<LogLine> parseLogLine(std::string_view line) {
  const std::string lower = lowerCase(line);
  LogLine out;
  // RCCL's GIN line: "AllToAll GIN: transport=sdma|lsa bytesPerPeer=...".
  if (const std::size_t at = lower.find("transport="); at != std::string::npos) {
    std::size_t end = at + 10;
    while (end < lower.size() && std::isalnum(static_cast<unsigned char>(lower[end]))) ++end;
    out.transport = lower.substr(at + 10, end - at - 10);
  } else if (const std::size_t algoAt = line.find("-> Algo "); algoAt != std::string_view::npos) {
    // NCCL's tuner line: "AllGather: N Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..7}".
    std::string algo(line.substr(algoAt + 8));
    const std::size_t protoAt = algo.find(" proto ");
    std::string proto;
    if (protoAt != std::string::npos) {
      proto = algo.substr(protoAt + 7);
      proto = proto.substr(0, proto.find(' '));
      algo = algo.substr(0, protoAt);
    }
    algo = lowerCase(algo.substr(0, algo.find(' ')));
    proto = lowerCase(proto);
    out.transport = proto.empty() ? algo : algo + "/" + proto;
  } else if (lower.find("[copy engine]") != std::string::npos || lower.find("[hierarchical ce]") != std::string::npos ||
             (lower.find("ce: rank ") != std::string::npos && lower.find(" path") != std::string::npos)) {
    // NCCL's per-call copy-engine line (2.29+) and RCCL's per-launch CE line (ce_coll.cc).
    out.transport = "ce";
  } else if (lower.find("[symmetric]") != std::string::npos) {
    out.transport = "symmetric-kernel";
  } else if (lower.find("ce ") != std::string::npos &&
             (lower.find("memcpybatch") != std::string::npos || lower.find("ceallgather") != std::string::npos ||
              lower.find("cealltoall") != std::string::npos || lower.find("ce collective") != std::string::npos)) {
    // Copy-engine and symmetric-kernel collectives say so in their own words.
    out.transport = "ce";
  } else if (lower.find("symk") != std::string::npos || lower.find("symmetric kernel") != std::string::npos) {
    out.transport = "symmetric-kernel";
  }
  if (out.transport.empty()) return std::nullopt;

  constexpr std::string_view kMarker = "NCCL INFO ";
  const std::size_t marker = line.find(kMarker);
  std::string_view message = line;
  if (marker != std::string_view::npos) {
    prefixFields(line.substr(0, marker), out);
    message = line.substr(marker + kMarker.size());
  }
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) message.remove_suffix(1);
  out.message = std::string(message.substr(0, kMaxMessage));
  out.op = opOf(message);
  sizeFields(line, lower, out);
  out.channels = channelsOf(line, lower);
  return out;
}

std::optional<int> collChannelsOfInitLine(std::string_view line) {
  constexpr std::string_view kMark = " coll channels, ";
  const std::size_t at = line.find(kMark);
  if (at == std::string_view::npos || line.find(" p2p channels", at) == std::string_view::npos) return std::nullopt;
  std::size_t start = at;
  while (start > 0 && at - start < 8 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
  if (start > 0 && line[start - 1] != ' ') return std::nullopt;
  return smallCount(line.substr(start, at - start));
}

std::string_view libraryOfVersionLine(std::string_view line) {
  if (line.find("RCCL version") != std::string_view::npos) return "rccl";
  if (line.find("NCCL version") != std::string_view::npos) return "nccl";
  return {};
}

}  // namespace sdma::librarylog
