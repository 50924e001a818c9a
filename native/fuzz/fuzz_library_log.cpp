// NCCL's and RCCL's debug-log lines (NCCL_DEBUG=INFO): the one line reader
// (native/src/backend/library_log_line.hpp) and the per-call counter of
// `run --library-log` (native/src/profile/library_log.hpp) on the same lines. The input is a
// log; its lines are spread over three files, as the ranks of one run write them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "backend/library_log_line.hpp"
#include "fuzz_input.hpp"
#include "profile/library_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sdma;
  static const std::string kFiles[] = {"nccl.node-01.4101.log", "nccl.node-01.4102.log", "nccl.node-02.77.log"};
  runmode::LibraryCallCounter counter;
  std::size_t n = 0;
  for (const std::string_view line : fuzz::lines(fuzz::asText(data, size))) {
    if (const auto parsed = librarylog::parseLogLine(line)) {
      fuzz::touch(parsed->op);
      fuzz::touch(parsed->transport);
      fuzz::touch(parsed->message);
      fuzz::sink = fuzz::sink + parsed->sizeBytes + static_cast<std::size_t>(parsed->pid) +
                   static_cast<std::size_t>(parsed->device);
      if (parsed->channels) fuzz::sink = fuzz::sink + static_cast<std::size_t>(*parsed->channels);
    }
    if (const auto channels = librarylog::collChannelsOfInitLine(line)) {
      fuzz::sink = fuzz::sink + static_cast<std::size_t>(*channels);
    }
    fuzz::touch(librarylog::libraryOfVersionLine(line));
    counter.addLine(kFiles[n++ % 3], std::string(line));
  }
  for (const runmode::LibraryCalls& c : counter.finish()) {
    fuzz::touch(c.library);
    fuzz::touch(c.op);
    fuzz::touch(c.evidence);
    fuzz::sink =
        fuzz::sink + c.minBytes + c.maxBytes + static_cast<std::size_t>(c.calls) + static_cast<std::size_t>(c.ranks);
  }
  return 0;
}
