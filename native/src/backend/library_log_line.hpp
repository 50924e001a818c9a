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
  // Channels (one CTA each, on a CU/SM of its own) the call's kernels used, as the line says:
  // channel{Lo..Hi}={a..b} -> b-a+1 (NCCL/RCCL tuner line), "nchannels N" (NCCL's symmetric
  // kernel line), "ctas=N" (RCCL's GIN LSA line). Unset when the line says nothing of it
  // (copy-engine lines included: whether no CTA ran is the caller's to confirm).
  std::optional<int> channels;
  // The text after "NCCL INFO " (the whole line without that marker), at most kMaxMessage chars.
  std::string message;
};

constexpr std::size_t kMaxMessage = 240;
// Larger channel counts are not believed (NCCL's MAXCHANNELS is 64, RCCL's 128 or 256).
constexpr int kMaxChannels = 1024;

// The path a line names, or nullopt when it names none. Recognised shapes:
//   RCCL GIN all-to-all: "AllToAll GIN: transport=sdma bytesPerPeer=8388608 threads=64"
//                        "AllToAll GIN: transport=lsa bytesPerPeer=65536 chunks=8 ctas=16 threads=256"
//   NCCL/RCCL tuner:     "AllGather: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..7}"
//   NCCL copy engine:    "AllGather [Copy Engine]: 1048576 Bytes -> cudaMemcpy" (2.29+)
//   NCCL symmetric:      "AllGather [Symmetric]: 1048576 Bytes -> Kernel AllGather_ST nchannels 8 nthreads 512"
//   RCCL copy engine:    "CE: rank 0 -> Batch path without intraBatchSync (hipMemcpyBatchAsync), numOps=8"
//   other copy-engine and symmetric-kernel lines, by their words (no size).
std::optional<LogLine> parseLogLine(std::string_view line);

// The channel count of a communicator from its init line
// "32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer"
// (NCCL_DEBUG_SUBSYS=INIT); nullopt for any other line or a count above kMaxChannels.
std::optional<int> collChannelsOfInitLine(std::string_view line);

// "rccl" or "nccl" for the library's version line ("RCCL version : 2.27.7-...",
// "NCCL version 2.28.9+cuda12.9"), else empty.
std::string_view libraryOfVersionLine(std::string_view line);

}  // namespace sdma::librarylog
