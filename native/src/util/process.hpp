#pragma once

// The helper's one way to start another process: run mode's program (or rocprofv3 around
// it), the two rocSHMEM PE processes and a collective's variant child all start here. An
// argument array and an environment, never a shell. Each caller says what the child gets:
// its standard streams (inherited, /dev/null, the helper's stderr, or a pipe the helper keeps
// the other end of), a process group of its own or the helper's, the helper's signal
// dispositions or the defaults, death with the helper, and one descriptor kept open across
// exec. Every descriptor the helper creates for a child is close-on-exec on the helper's
// side, so no other child inherits it.
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace sdma::process {

enum class Stream {
  Inherit,   // the helper's own
  DevNull,   // stdin only: /dev/null (left as the helper's when /dev/null cannot be opened)
  ToStderr,  // stdout only: the helper's stderr (the helper's stdout carries only records)
  Pipe,      // a pipe; the helper's end is in Child
};

struct Spec {
  std::string path;               // what is executed
  std::vector<std::string> argv;  // argv[0] included
  // The helper's environment without `unset` and the keys of `set`, then `set` in order.
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> unset;
  Stream in = Stream::Inherit;
  Stream out = Stream::Inherit;
  Stream err = Stream::Inherit;
  // The leader of a new process group, so that a signal to the group reaches everything it
  // starts; otherwise it stays in the helper's.
  bool newGroup = false;
  // SIGPIPE, SIGINT and SIGTERM at their defaults and no signal blocked, whatever the helper
  // ignores or blocks (exec keeps ignored signals ignored); otherwise inherited as they are.
  bool defaultSignals = false;
  // SIGKILL when the helper dies (Linux); needs fork, so set only where the helper has no
  // GPU runtime in its address space.
  bool dieWithHelper = false;
  int keepFd = -1;  // kept open across exec under its number (e.g. the trace pipe's write end)
};

struct Child {
  pid_t pid = -1;    // -1: nothing runs (the start failed, `error` says why)
  int error = 0;     // errno of the failed pipe, fork/spawn or exec; 0 when it runs
  int stdinFd = -1;  // the helper's ends of the pipes asked for (close-on-exec), else -1
  int stdoutFd = -1;
  int stderrFd = -1;
  bool started() const { return pid > 0; }
};

// Starts the child. When the exec itself fails, the child is already reaped and `error` is
// its errno (ENOENT, EACCES, ...), so every failure reads the same to the caller.
Child start(const Spec& spec);

// Closes the helper's pipe ends of `child` that are still open.
void closePipes(Child& child);

}  // namespace sdma::process
