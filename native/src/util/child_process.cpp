#include "util/child_process.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace sdma::runmode {

namespace {

bool isExecutableFile(const std::string& path, bool& exists) {
  struct stat st {};
  exists = stat(path.c_str(), &st) == 0;
  return exists && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string resolveProgram(const std::string& name, std::string& problem) {
  problem.clear();
  if (name.empty()) {
    problem = "not-found";
    return {};
  }
  bool exists = false;
  if (name.find('/') != std::string::npos) {
    if (isExecutableFile(name, exists)) return name;
    problem = exists ? "not-executable" : "not-found";
    return {};
  }
  const char* pathEnv = std::getenv("PATH");
  const std::string path = pathEnv ? pathEnv : "/usr/local/bin:/usr/bin:/bin";
  bool sawNonExecutable = false;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = path.find(':', start);
    std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (isExecutableFile(candidate, exists)) return candidate;
    sawNonExecutable = sawNonExecutable || exists;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  problem = sawNonExecutable ? "not-executable" : "not-found";
  return {};
}

SpawnResult spawnInNewGroup(const SpawnRequest& request) {
  // Everything the child needs is built before fork: after it only async-signal-safe calls.
  std::vector<std::string> envStrings;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& [key, value] : request.env) replaced = replaced || entry.rfind(key + "=", 0) == 0;
    if (!replaced) envStrings.push_back(entry);
  }
  for (const auto& [key, value] : request.env) envStrings.push_back(key + "=" + value);
  std::vector<char*> envp, argv;
  for (std::string& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argStrings = request.argv;
  for (std::string& s : argStrings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int status[2];
  SpawnResult result;
  if (pipe2(status, O_CLOEXEC) != 0) {
    result.execErrno = errno;
    return result;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    result.execErrno = errno;
    close(status[0]);
    close(status[1]);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
#if defined(__linux__)
    // The program does not outlive a helper that was killed outright.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    // exec keeps ignored signals ignored: the helper ignores SIGPIPE, the program must not.
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    const int devNull = open("/dev/null", O_RDONLY);
    if (devNull >= 0) {
      dup2(devNull, 0);
      if (devNull != 0) close(devNull);
    }
    dup2(2, 1);
    if (request.inheritFd >= 0) fcntl(request.inheritFd, F_SETFD, 0);
    execve(request.path.c_str(), argv.data(), envp.data());
    const int error = errno;
    ssize_t ignored = write(status[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  // Both sides set the group, so it exists whichever runs first.
  setpgid(pid, pid);
  close(status[1]);
  int error = 0;
  ssize_t n;
  do {
    n = read(status[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  close(status[0]);
  result.pid = pid;
  if (n == static_cast<ssize_t>(sizeof error)) result.execErrno = error;
  return result;
}

std::string signalName(int signalNumber) {
  switch (signalNumber) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    default: return "SIG" + std::to_string(signalNumber);
  }
}

}  // namespace sdma::runmode
