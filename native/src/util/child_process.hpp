#pragma once

// Run mode's program start: the request, the program's lookup on PATH and the names of the
// signals that end it. The start itself is util/process.hpp's.

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace sdma::runmode {

struct SpawnRequest {
  std::string path;                                      // what is executed (the program, or rocprofv3)
  std::vector<std::string> argv;                         // argv[0] included
  std::vector<std::pair<std::string, std::string>> env;  // set on top of the helper's environment
  int inheritFd = -1;                                    // kept open across exec (the trace pipe's write end)
};

struct SpawnResult {
  pid_t pid = -1;     // -1: the program did not start (its exit, if any, already reaped)
  int execErrno = 0;  // non-zero: the pipe, fork or exec failed with this errno
};

// Starts the program as the leader of a new process group, so that a cancel reaches
// everything it started. Its stdout and stderr go to the helper's stderr (stdout carries
// only records); its stdin is /dev/null; SIGPIPE, SIGINT, SIGTERM at their defaults, no
// signal blocked; killed when the helper dies; request.inheritFd kept open across exec.
SpawnResult spawnInNewGroup(const SpawnRequest& request);

// Looks `name` up like a shell does (PATH when it has no '/'). Returns the path, or an
// empty string with `problem` set to "not-found" or "not-executable".
std::string resolveProgram(const std::string& name, std::string& problem);

std::string signalName(int signalNumber);

}  // namespace sdma::runmode
