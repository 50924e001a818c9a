#include "commands/helper_child.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "util/process.hpp"
#include "util/safe_file.hpp"

namespace sdma {

HelperChildResult runHelperChild(
    const HelperChildSpec& spec,
    const std::function<void(std::string_view type, const ndjson::Value& record, const std::string& line)>& onRecord) {
  HelperChildResult result;
  process::Spec p;
  p.path = "/proc/self/exe";
  p.argv = {"/proc/self/exe"};
  p.argv.insert(p.argv.end(), spec.args.begin(), spec.args.end());
  p.set = spec.set;
  p.unset = spec.unset;
  p.out = process::Stream::Pipe;
  const process::Child child = process::start(p);
  if (!child.started()) {
    result.startErrno = child.error;
    return result;
  }
  result.started = true;
  // The child is this program, yet its output is read like any other's.
  ingest::LineSplitter splitter(kMaxChildLineBytes);
  const ingest::LineSplitter::OnLine onLine = [&](std::string_view text, bool overlong) {
    if (overlong) {
      ++result.overlongLines;
      return;
    }
    const std::string line(text);
    ndjson::Limits limits;
    limits.maxLineBytes = kMaxChildLineBytes;
    limits.maxDepth = 32;
    limits.maxMembers = 4096;
    const std::optional<ndjson::Value> record = ndjson::parseLine(line, limits);
    const std::optional<std::string> type = record ? ndjson::stringField(*record, "type") : std::nullopt;
    if (!type) {
      ++result.unreadLines;
      return;
    }
    onRecord(*type, *record, line);
  };
  char chunk[65536];
  while (true) {
    const ssize_t n = read(child.stdoutFd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    splitter.feed(std::string_view(chunk, static_cast<std::size_t>(n)), onLine);
  }
  close(child.stdoutFd);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace sdma
