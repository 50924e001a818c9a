#include "backends/gpu/rocshmem_launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

extern char** environ;

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

bool startPe(const std::vector<std::string>& argv, const std::vector<std::string>& envStrings, Pe& pe,
             std::string& problem) {
  int in[2], out[2], err[2];
  if (pipe(in) != 0) return problem = std::strerror(errno), false;
  if (pipe(out) != 0) {
    close(in[0]), close(in[1]);
    return problem = std::strerror(errno), false;
  }
  if (pipe(err) != 0) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return problem = std::strerror(errno), false;
  }
  for (int fd : {in[1], out[0], err[0]}) fcntl(fd, F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args, env;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : envStrings) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  const int rc = posix_spawn(&pe.pid, argv[0].c_str(), &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]), close(out[1]), close(err[1]);
  if (rc != 0) {
    close(in[1]), close(out[0]), close(err[0]);
    pe.pid = -1;
    problem = std::strerror(rc);
    return false;
  }
  pe.stdinFd = in[1];
  pe.stdoutFd = out[0];
  pe.stderrFd = err[0];
  return true;
}

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

std::string lastLine(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
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

PePutResult parsePeOutput(const std::string& text) {
  PePutResult r;
  bool validated = false;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    std::istringstream values(rest);
    if (key == "error") {
      const std::vector<std::string> parts = splitOn(rest, '\t');
      r.status = parts.empty() || parts[0].empty() ? "runtime" : parts[0];
      r.failure = parts.size() > 1 ? parts[1] : "the rocSHMEM PE reported an error without a message";
      r.hint = parts.size() > 2 ? parts[2] : "";
      return r;
    } else if (key == "version") {
      r.rocshmemVersion = rest;
    } else if (key == "times") {
      double ns = 0;
      while (values >> ns) r.timesNs.push_back(ns);
    } else if (key == "ops") {
      values >> r.opsDone;
    } else if (key == "trace") {
      PePutTrace t;
      if (values >> t.startNs >> t.issuedNs >> t.completeNs >> t.cu >> t.xcc) {
        r.trace = t;
        r.traced = true;
      }
    } else if (key == "validation") {
      if (rest == "ok") {
        validated = true;
      } else {
        r.status = "validation";
        r.failure = rest;
        return r;
      }
    }
  }
  if (!validated || r.timesNs.empty()) {
    return failed("runtime", "the rocSHMEM PE ended without a checked result", "");
  }
  r.status = "ok";
  return r;
}

std::string sdmaFallbackLine(const std::string& stderrText) {
  std::istringstream lines(stderrText);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("SDMA") == std::string::npos) continue;
    if (line.find("fall back") != std::string::npos || line.find("connect failed") != std::string::npos ||
        line.find("SDMA disabled") != std::string::npos) {
      return line;
    }
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

std::vector<std::pair<std::string, std::string>> peEnvironment(const PePutRequest& request,
                                                               const char* helperVisible) {
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
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = name == "CUDA_VISIBLE_DEVICES";
    for (const auto& [key, value] : overrides) replaced = replaced || name == key;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [key, value] : overrides) env.push_back(key + "=" + value);

  Pe pes[2];
  for (int p = 0; p < 2; ++p) {
    std::string problem;
    if (!startPe(peArguments(peBinary, request, p), env, pes[p], problem)) {
      if (p == 1) stop(pes[0]);
      return failed("runtime", "could not start rocSHMEM PE " + std::to_string(p) + " (" + peBinary + "): " + problem,
                    "");
    }
  }
  closeFd(pes[0].stdinFd);

  std::string out0, err[2];
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
      std::string* sinks[3] = {&out0, &err[0], &err[1]};
      for (int i = 0; i < 3; ++i) {
        if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        char buffer[4096];
        const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
        if (n > 0) {
          sinks[i]->append(buffer, static_cast<std::size_t>(n));
        } else {
          closeFd(*owners[i]);
        }
      }
    }
    if (!uidSent) {
      const std::size_t at = out0.find("uid ");
      const std::size_t end = at == std::string::npos ? at : out0.find('\n', at);
      if (end != std::string::npos) {
        const std::string line = out0.substr(at, end - at + 1);
        const bool sent = writeWithoutSigpipe(pes[1].stdinFd, line);
        closeFd(pes[1].stdinFd);
        uidSent = true;
        if (!sent) stopReason = "could not hand the unique id to PE 1";
      }
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
  const std::string fallback = sdmaFallbackLine(err[0] + err[1]);
  if (!fallback.empty()) {
    return failed("sdma-unavailable",
                  "rocSHMEM's SDMA transport did not come up, so its puts would be load/store copies, not "
                  "engine copies: \"" + fallback + "\"",
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
    const std::string detail = lastLine(err[1]);
    return failed("runtime", stopReason + (detail.empty() ? "" : ": " + detail), "");
  }
  PePutResult result = parsePeOutput(out0);
  if (result.status == "runtime" && result.failure == "the rocSHMEM PE ended without a checked result") {
    std::string how = "PE 0 ended without a checked result";
    if (WIFEXITED(status[0])) how += " (exit status " + std::to_string(WEXITSTATUS(status[0])) + ")";
    if (WIFSIGNALED(status[0])) how += " (signal " + std::to_string(WTERMSIG(status[0])) + ")";
    const std::string detail = lastLine(err[0]);
    result.failure = how + (detail.empty() ? "" : ": " + detail);
    result.hint = "rocSHMEM logs more with ROCSHMEM_DEBUG_LEVEL=info";
  }
  return result;
}

}  // namespace sdma::gpu
