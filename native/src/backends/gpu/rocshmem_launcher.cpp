// The helper's side of the AMD engine/device path (rocshmem_launcher.hpp): PE 0's NDJSON
// result records, the PE environment and arguments, and the start, feeding, reading and
// stopping of both PE processes.
#include "backends/gpu/rocshmem_launcher.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "util/json_writer.hpp"
#include "util/checked.hpp"
#include "util/ndjson_reader.hpp"
#include "util/process.hpp"
#include "util/safe_file.hpp"

namespace sdma::gpu {
namespace {

std::vector<std::string> splitOn(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

double nowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One started PE: its pid and the pipe ends the helper keeps.
struct Pe {
  pid_t pid = -1;
  int stdinFd = -1;   // write end (PE 1: the unique id)
  int stdoutFd = -1;  // read end
  int stderrFd = -1;  // read end
};

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// PE stderr lines are rocSHMEM's and the HIP runtime's log lines: a longer one is not kept.
constexpr std::size_t kMaxPeStderrLineBytes = 64 * 1024;

bool startPe(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& overrides,
             Pe& pe, std::string& problem) {
  process::Spec spec;
  spec.path = argv[0];
  spec.argv = argv;
  spec.set = overrides;
  spec.unset = {"CUDA_VISIBLE_DEVICES"};
  spec.in = spec.out = spec.err = process::Stream::Pipe;
  const process::Child child = process::start(spec);
  if (!child.started()) {
    problem = std::strerror(child.error);
    return false;
  }
  pe.pid = child.pid;
  pe.stdinFd = child.stdinFd;
  pe.stdoutFd = child.stdoutFd;
  pe.stderrFd = child.stderrFd;
  return true;
}

// One PE's stderr, read as it arrives: the first line saying the SDMA transport fell back
// and the last line that is not empty, each line at most kMaxPeStderrLineBytes.
struct StderrLines {
  ingest::LineSplitter splitter{kMaxPeStderrLineBytes};
  std::string fallback;
  std::string last;

  void feed(std::string_view chunk) {
    splitter.feed(chunk, [this](std::string_view l, bool o) { add(l, o); });
  }
  void end() {
    splitter.end([this](std::string_view l, bool o) { add(l, o); });
  }
  void add(std::string_view line, bool overlong) {
    if (overlong) return;
    if (fallback.empty() && isSdmaFallbackLine(line)) fallback = std::string(line);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) last = std::string(line);
  }
};

// Reaps `pe` if it has exited; returns true once it has (status in `status`).
bool reaped(Pe& pe, int& status) {
  if (pe.pid < 0) return true;
  if (waitpid(pe.pid, &status, WNOHANG) == pe.pid) {
    pe.pid = -1;
    return true;
  }
  return false;
}

void stop(Pe& pe) {
  if (pe.pid < 0) return;
  kill(pe.pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200 && !reaped(pe, status); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (pe.pid >= 0) {
    kill(pe.pid, SIGKILL);
    waitpid(pe.pid, &status, 0);
    pe.pid = -1;
  }
}

// A write of a few hundred bytes to a fresh pipe is whole (PIPE_BUF). A PE that already
// died must not take the helper with it through SIGPIPE: the signal is held for this write
// and a pending one is consumed.
bool writeWithoutSigpipe(int fd, const std::string& text) {
  sigset_t pipeOnly, previous;
  sigemptyset(&pipeOnly);
  sigaddset(&pipeOnly, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous);
  const bool whole = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (!whole) {
    const timespec none{0, 0};
    while (sigtimedwait(&pipeOnly, nullptr, &none) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return whole;
}

PePutResult failed(const std::string& code, const std::string& message, const std::string& hint) {
  PePutResult r;
  r.status = code;
  r.failure = message;
  r.hint = hint;
  return r;
}

}  // namespace

namespace {

ndjson::Limits peLineLimits() {
  ndjson::Limits limits;
  limits.maxLineBytes = kMaxPeLineBytes;
  limits.maxDepth = 2;
  limits.maxMembers = 16;
  limits.maxItems = 100000;
  return limits;
}

bool isHexText(const std::string& text) {
  if (text.empty() || text.size() % 2 != 0 || text.size() > 1024) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

void PeOutput::addLine(std::string_view line) {
  if (final_) return;
  static const ndjson::Limits kLimits = peLineLimits();
  const std::optional<ndjson::Value> o = ndjson::parseLine(line, kLimits);
  if (!o) return;
  const std::string type = ndjson::stringField(*o, "type").value_or("");
  if (type == "error") {
    const std::string code = ndjson::stringField(*o, "code").value_or("");
    r_.status = code.empty() ? "runtime" : code;
    r_.failure = ndjson::stringField(*o, "message").value_or("");
    if (r_.failure.empty()) r_.failure = "the rocSHMEM PE reported an error without a message";
    r_.hint = ndjson::stringField(*o, "hint").value_or("");
    final_ = true;
  } else if (type == "uid") {
    const std::string uid = ndjson::stringField(*o, "uid").value_or("");
    if (uid_.empty() && isHexText(uid)) uid_ = uid;
  } else if (type == "version") {
    if (const auto v = ndjson::stringField(*o, "version")) r_.rocshmemVersion = *v;
  } else if (type == "times") {
    if (const auto ns = ndjson::numbersField(*o, "ns")) r_.timesNs.insert(r_.timesNs.end(), ns->begin(), ns->end());
  } else if (type == "ops") {
    const auto ops = ndjson::intField(*o, "ops");
    if (ops && *ops >= 0) r_.opsDone = static_cast<std::uint64_t>(*ops);
  } else if (type == "trace") {
    const auto start = ndjson::numberField(*o, "startNs");
    const auto issued = ndjson::numberField(*o, "issuedNs");
    const auto complete = ndjson::numberField(*o, "completeNs");
    const auto cu = ndjson::intField(*o, "cu");
    const auto xcc = ndjson::intField(*o, "xcc");
    const auto cuValue = cu ? ingest::toUnsigned(*cu) : std::nullopt;
    const auto xccValue = xcc ? ingest::toUnsigned(*xcc) : std::nullopt;
    if (start && issued && complete && cuValue && xccValue) {
      r_.trace = PePutTrace{*start, *issued, *complete, *cuValue, *xccValue};
      r_.traced = true;
    }
  } else if (type == "validation") {
    const auto ok = ndjson::boolField(*o, "ok");
    if (ok == true) {
      validated_ = true;
    } else if (ok == false) {
      r_.status = "validation";
      r_.failure = ndjson::stringField(*o, "message").value_or("the copy did not check");
      final_ = true;
    }
  }
}

std::string PeOutput::uidRecord() const {
  if (uid_.empty()) return {};
  JsonWriter j;
  j.beginObject().key("type").value("uid").key("uid").value(uid_).endObject();
  return j.str() + "\n";
}

PePutResult PeOutput::result() const {
  if (final_) return r_;
  if (!validated_ || r_.timesNs.empty()) {
    return failed("runtime", "the rocSHMEM PE ended without a checked result", "");
  }
  PePutResult r = r_;
  r.status = "ok";
  return r;
}

PePutResult parsePeOutput(const std::string& text) {
  PeOutput out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.addLine(std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
  return out.result();
}

bool isSdmaFallbackLine(std::string_view line) {
  if (line.find("SDMA") == std::string_view::npos) return false;
  return line.find("fall back") != std::string_view::npos || line.find("connect failed") != std::string_view::npos ||
         line.find("SDMA disabled") != std::string_view::npos;
}

std::string sdmaFallbackLine(const std::string& stderrText) {
  std::istringstream lines(stderrText);
  std::string line;
  while (std::getline(lines, line)) {
    if (isSdmaFallbackLine(line)) return line;
  }
  return "";
}

std::string peVisibleDevices(const char* helperVisible, int srcGpu, int dstGpu) {
  if (helperVisible == nullptr || *helperVisible == '\0') {
    return std::to_string(srcGpu) + "," + std::to_string(dstGpu);
  }
  const std::vector<std::string> ids = splitOn(helperVisible, ',');
  auto at = [&](int i) {
    return i >= 0 && static_cast<std::size_t>(i) < ids.size() ? ids[static_cast<std::size_t>(i)] : std::to_string(i);
  };
  return at(srcGpu) + "," + at(dstGpu);
}

std::vector<std::pair<std::string, std::string>> peEnvironment(const PePutRequest& request, const char* helperVisible) {
  // Both regions live in the symmetric heap (PE 0 reads its source there, PE 1 receives in
  // its destination there), with room for rocSHMEM's own buffers.
  const std::uint64_t heap = 2 * request.regionBytes + (256ull << 20);
  return {
      {"HIP_VISIBLE_DEVICES", peVisibleDevices(helperVisible, request.srcGpu, request.dstGpu)},
      {"ROCSHMEM_BACKEND", "ipc"},
      {"ROCSHMEM_SDMA_ENABLED", "1"},
      {"ROCSHMEM_SDMA_THRESHOLD", "0"},
      {"ROCSHMEM_HEAP_SIZE", std::to_string(heap)},
  };
}

std::vector<std::string> peArguments(const std::string& peBinary, const PePutRequest& request, int pe) {
  std::vector<std::string> a{peBinary, "--pe", std::to_string(pe), "--region", std::to_string(request.regionBytes)};
  if (pe != 0) return a;
  auto add = [&](const char* name, const std::string& value) {
    a.emplace_back(name);
    a.push_back(value);
  };
  add("--size", std::to_string(request.sizeBytes));
  add("--stride", std::to_string(request.strideBytes));
  add("--slots", std::to_string(request.slots));
  add("--warmup", std::to_string(request.warmupIters));
  add("--iters", std::to_string(request.iters));
  add("--max-iters", std::to_string(request.maxIters));
  add("--depth", std::to_string(request.depth));
  add("--target-ns", std::to_string(static_cast<long long>(request.targetNs)));
  add("--seed", std::to_string(request.seed));
  if (request.trace) a.emplace_back("--trace");
  if (request.corrupt) a.emplace_back("--corrupt");
  return a;
}

std::string peBinaryNextToHelper() {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "sdma-probe-rocshmem-pe";
  std::string path(self, static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/sdma-probe-rocshmem-pe";
}

PePutResult runRocshmemPut(const std::string& peBinary, const PePutRequest& request, bool (*cancelled)()) {
  if (access(peBinary.c_str(), X_OK) != 0) {
    return failed("library-not-found",
                  "this sdma-probe was built with rocSHMEM, but its PE program is missing: " + peBinary,
                  "reinstall or rebuild native/ so that sdma-probe-rocshmem-pe sits next to sdma-probe");
  }
  const char* visible = std::getenv("HIP_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const auto overrides = peEnvironment(request, visible);

  Pe pes[2];
  for (int p = 0; p < 2; ++p) {
    std::string problem;
    if (!startPe(peArguments(peBinary, request, p), overrides, pes[p], problem)) {
      if (p == 1) {
        stop(pes[0]);
        closeFd(pes[0].stdinFd);
        closeFd(pes[0].stdoutFd);
        closeFd(pes[0].stderrFd);
      }
      return failed("runtime", "could not start rocSHMEM PE " + std::to_string(p) + " (" + peBinary + "): " + problem,
                    "");
    }
  }
  closeFd(pes[0].stdinFd);

  // PE 0's records are read as they arrive, through the NDJSON reader: each line at most
  // kMaxPeLineBytes (a longer one is dropped), nothing kept but the result.
  PeOutput out0;
  ingest::LineSplitter out0Lines(kMaxPeLineBytes);
  const ingest::LineSplitter::OnLine onOut0 = [&out0](std::string_view line, bool overlong) {
    if (!overlong) out0.addLine(line);
  };
  StderrLines err[2];
  bool uidSent = false;
  int status[2] = {0, 0};
  bool exited[2] = {false, false};
  const double deadline = nowNs() + request.timeoutNs;
  std::string stopReason;
  while (true) {
    pollfd fds[3] = {{pes[0].stdoutFd, POLLIN, 0}, {pes[0].stderrFd, POLLIN, 0}, {pes[1].stderrFd, POLLIN, 0}};
    const int ready = poll(fds, 3, 50);
    if (ready > 0) {
      int* owners[3] = {&pes[0].stdoutFd, &pes[0].stderrFd, &pes[1].stderrFd};
      for (int i = 0; i < 3; ++i) {
        if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        char buffer[4096];
        const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
        if (n > 0) {
          const std::string_view chunk(buffer, static_cast<std::size_t>(n));
          if (i == 0) {
            out0Lines.feed(chunk, onOut0);
          } else {
            err[i - 1].feed(chunk);
          }
        } else if (n == 0 || errno != EINTR) {
          if (i == 0) {
            out0Lines.end(onOut0);
          } else {
            err[i - 1].end();
          }
          closeFd(*owners[i]);
        }
      }
    }
    if (!uidSent && !out0.uid().empty()) {
      const bool sent = writeWithoutSigpipe(pes[1].stdinFd, out0.uidRecord());
      closeFd(pes[1].stdinFd);
      uidSent = true;
      if (!sent) stopReason = "could not hand the unique id to PE 1";
    }
    for (int p = 0; p < 2; ++p) {
      if (!exited[p]) exited[p] = reaped(pes[p], status[p]);
    }
    if (!stopReason.empty()) break;
    // PE 0 is done once it has exited and its output is read; PE 1 is stopped below.
    if (exited[0] && pes[0].stdoutFd < 0 && pes[0].stderrFd < 0) break;
    if (exited[1] && !exited[0] && WIFEXITED(status[1]) && WEXITSTATUS(status[1]) != 0) {
      stopReason = "PE 1 (destination GPU) ended (exit status " + std::to_string(WEXITSTATUS(status[1])) + ")";
      break;
    }
    if (cancelled != nullptr && cancelled()) {
      stopReason = "cancelled";
      break;
    }
    if (nowNs() > deadline) {
      stopReason = "timeout";
      break;
    }
  }
  for (Pe& pe : pes) {
    stop(pe);
    closeFd(pe.stdinFd);
    closeFd(pe.stdoutFd);
    closeFd(pe.stderrFd);
  }
  for (StderrLines& e : err) e.end();
  const std::string fallback = !err[0].fallback.empty() ? err[0].fallback : err[1].fallback;
  if (!fallback.empty()) {
    return failed("sdma-unavailable",
                  "rocSHMEM's SDMA transport did not come up, so its puts would be load/store copies, not "
                  "engine copies: \"" +
                      fallback + "\"",
                  "check that this rocSHMEM was built with USE_SDMA and that the GPUs reach each other over xGMI; "
                  "rocSHMEM's SDMA channels per peer are ROCSHMEM_SDMA_NUM_CHANNELS (1 to 8)");
  }
  if (stopReason == "cancelled") return failed("cancelled", "cancelled", "");
  if (stopReason == "timeout") {
    return failed("timeout", "the rocSHMEM PEs did not finish within " + std::to_string(request.timeoutNs / 1e9) + " s",
                  "check `rocm-smi` for other work or a hung device; rocSHMEM logs more with "
                  "ROCSHMEM_DEBUG_LEVEL=info");
  }
  if (!stopReason.empty()) {
    const std::string& detail = err[1].last;
    return failed("runtime", stopReason + (detail.empty() ? "" : ": " + detail), "");
  }
  PePutResult result = out0.result();
  if (result.status == "runtime" && result.failure == "the rocSHMEM PE ended without a checked result") {
    std::string how = "PE 0 ended without a checked result";
    if (WIFEXITED(status[0])) how += " (exit status " + std::to_string(WEXITSTATUS(status[0])) + ")";
    if (WIFSIGNALED(status[0])) how += " (signal " + std::to_string(WTERMSIG(status[0])) + ")";
    const std::string& detail = err[0].last;
    result.failure = how + (detail.empty() ? "" : ": " + detail);
    result.hint = "rocSHMEM logs more with ROCSHMEM_DEBUG_LEVEL=info";
  }
  return result;
}

}  // namespace sdma::gpu
