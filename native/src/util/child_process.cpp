// Run mode's side of starting the user's program: where the program is (resolveProgram),
// how it is started (spawnInNewGroup, through the one process starter util/process.hpp) and
// how its end is named (signalName).
#include "util/child_process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "util/process.hpp"

namespace sdma::runmode {

namespace {

bool isExecutableFile(const std::string& path, bool& exists) {
  struct stat st{};
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
  process::Spec spec;
  spec.path = request.path;
  spec.argv = request.argv;
  spec.set = request.env;
  spec.in = process::Stream::DevNull;
  spec.out = process::Stream::ToStderr;
  spec.newGroup = true;
  spec.defaultSignals = true;
  spec.dieWithHelper = true;
  spec.keepFd = request.inheritFd;
  const process::Child child = process::start(spec);
  SpawnResult result;
  result.pid = child.pid;
  result.execErrno = child.error;
  return result;
}

std::string signalName(int signalNumber) {
  switch (signalNumber) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "SIG" + std::to_string(signalNumber);
  }
}

}  // namespace sdma::runmode
