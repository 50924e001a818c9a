#pragma once
// One line of NCCL's or RCCL's debug log (NCCL_DEBUG=INFO), read for the path a collective
// call took. The one reader of these lines: `collective` uses it per measured point,
// `run --library-log` per call of the user's program (docs/COLLECTIVES.md, docs/PROFILE.md).
// Plain C++: no GPU headers, so it builds and is tested everywhere.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sdma::librarylog {

// What the size on a line counts.
enum class SizeKind { None, Bytes, BytesPerPeer };

struct LogLine {
  // The collective as the library names it ("AllToAll", "AllGather"); empty when the line
  // does not say.
  std::string op;
  // Lower case: "sdma", "lsa" (RCCL's GIN line), "ring/simple" (NCCL's tuner line),
  // "ce", "symmetric-kernel".
  std::string transport;
  SizeKind sizeKind = SizeKind::None;
  std::uint64_t sizeBytes = 0;
  // From the "host:pid:tid [device]" prefix the libraries put before "NCCL INFO"; -1: absent.
  long pid = -1;
  int device = -1;
  // The text after "NCCL INFO " (the whole line without that marker), at most kMaxMessage chars.
  std::string message;
};

constexpr std::size_t kMaxMessage = 240;

// The path a line names, or nullopt when it names none. Recognised shapes:
//   RCCL GIN all-to-all: "AllToAll GIN: transport=sdma bytesPerPeer=8388608 threads=64"
//                        "AllToAll GIN: transport=lsa bytesPerPeer=65536 chunks=8 ctas=16 threads=256"
//   NCCL/RCCL tuner:     "AllGather: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..7}"
//   copy-engine and symmetric-kernel lines, by their words (no size).
std::optional<LogLine> parseLogLine(std::string_view line);

// "rccl" or "nccl" for the library's version line ("RCCL version : 2.27.7-...",
// "NCCL version 2.28.9+cuda12.9"), else empty.
std::string_view libraryOfVersionLine(std::string_view line);

}  // namespace sdma::librarylog
