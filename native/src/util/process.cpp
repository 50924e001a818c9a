// The one process starter (process.hpp). posix_spawn where it can do what the caller asks
// (glibc's is a vfork-style clone: nothing of a GPU runtime's address space is copied);
// fork + execve where the child must die with the helper (PR_SET_PDEATHSIG has no spawn
// attribute), and then only async-signal-safe calls between fork and exec.
#include "util/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <cerrno>

extern char** environ;

namespace sdma::process {

namespace {

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Everything the child needs, built before it starts: argument and environment arrays, the
// pipes (both ends close-on-exec: the child's end reaches it only through dup2).
struct Prepared {
  std::vector<std::string> argStrings, envStrings;
  std::vector<char*> argv, envp;
  int pipes[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};  // stdin, stdout, stderr
  int devNull = -1;                                  // posix_spawn path: opened here

  ~Prepared() {
    for (auto& p : pipes) {
      closeFd(p[0]);
      closeFd(p[1]);
    }
    closeFd(devNull);
  }
  // The end the helper keeps: stdin's write end, stdout's and stderr's read ends.
  int& helperEnd(int stream) { return pipes[stream][stream == 0 ? 1 : 0]; }
  int& childEnd(int stream) { return pipes[stream][stream == 0 ? 0 : 1]; }
};

bool isDropped(const std::string& entry, const Spec& spec) {
  const std::string name = entry.substr(0, entry.find('='));
  for (const std::string& key : spec.unset) {
    if (name == key) return true;
  }
  for (const auto& [key, value] : spec.set) {
    if (name == key) return true;
  }
  return false;
}

int prepare(const Spec& spec, Prepared& p) {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry = *e;
    if (!isDropped(entry, spec)) p.envStrings.push_back(std::move(entry));
  }
  for (const auto& [key, value] : spec.set) p.envStrings.push_back(key + "=" + value);
  for (std::string& s : p.envStrings) p.envp.push_back(s.data());
  p.envp.push_back(nullptr);
  p.argStrings = spec.argv;
  if (p.argStrings.empty()) p.argStrings.push_back(spec.path);
  for (std::string& s : p.argStrings) p.argv.push_back(s.data());
  p.argv.push_back(nullptr);
  const Stream streams[3] = {spec.in, spec.out, spec.err};
  for (int s = 0; s < 3; ++s) {
    if (streams[s] == Stream::Pipe && pipe2(p.pipes[s], O_CLOEXEC) != 0) return errno;
  }
  return 0;
}

void handOver(Prepared& p, Child& child) {
  child.stdinFd = std::exchange(p.helperEnd(0), -1);
  child.stdoutFd = std::exchange(p.helperEnd(1), -1);
  child.stderrFd = std::exchange(p.helperEnd(2), -1);
}

Child startWithFork(const Spec& spec, Prepared& p) {
  Child child;
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) {
    child.error = errno;
    return child;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    child.error = errno;
    close(status[0]);
    close(status[1]);
    return child;
  }
  if (pid == 0) {
    if (spec.newGroup) setpgid(0, 0);
#if defined(__linux__)
    // The child does not outlive a helper that was killed outright.
    if (spec.dieWithHelper) prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (spec.defaultSignals) {
      // exec keeps ignored signals ignored: the helper ignores SIGPIPE, the child must not.
      signal(SIGPIPE, SIG_DFL);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
    }
    if (spec.in == Stream::DevNull) {
      const int devNull = open("/dev/null", O_RDONLY);
      if (devNull >= 0) {
        dup2(devNull, 0);
        if (devNull != 0) close(devNull);
      }
    }
    if (spec.out == Stream::ToStderr) dup2(2, 1);
    for (int s = 0; s < 3; ++s) {
      // dup2 onto itself keeps close-on-exec (a helper started with that stream closed).
      if (p.childEnd(s) == s)
        fcntl(s, F_SETFD, 0);
      else if (p.childEnd(s) >= 0)
        dup2(p.childEnd(s), s);
    }
    if (spec.keepFd >= 0) fcntl(spec.keepFd, F_SETFD, 0);
    execve(spec.path.c_str(), p.argv.data(), p.envp.data());
    const int error = errno;
    ssize_t ignored = write(status[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  // Both sides set the group, so it exists whichever runs first.
  if (spec.newGroup) setpgid(pid, pid);
  close(status[1]);
  int error = 0;
  ssize_t n;
  do {
    n = read(status[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  close(status[0]);
  if (n == static_cast<ssize_t>(sizeof error)) {
    // The exec failed: the child is gone with status 127.
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    child.error = error;
    return child;
  }
  child.pid = pid;
  handOver(p, child);
  return child;
}

Child startWithSpawn(const Spec& spec, Prepared& p) {
  Child child;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = 0;
  if (spec.newGroup) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  if (spec.defaultSignals) {
    flags |= POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    sigset_t defaults, none;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
  }
  posix_spawnattr_setflags(&attr, flags);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (spec.in == Stream::DevNull) {
    p.devNull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (p.devNull >= 0) posix_spawn_file_actions_adddup2(&actions, p.devNull, 0);
  }
  if (spec.out == Stream::ToStderr) posix_spawn_file_actions_adddup2(&actions, 2, 1);
  for (int s = 0; s < 3; ++s) {
    if (p.childEnd(s) >= 0) posix_spawn_file_actions_adddup2(&actions, p.childEnd(s), s);
  }
  // dup2 of a descriptor onto itself clears its close-on-exec flag (POSIX; glibc 2.29 on).
  if (spec.keepFd >= 0) posix_spawn_file_actions_adddup2(&actions, spec.keepFd, spec.keepFd);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, spec.path.c_str(), &actions, &attr, p.argv.data(), p.envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    child.error = rc;
    return child;
  }
  child.pid = pid;
  handOver(p, child);
  return child;
}

}  // namespace

Child start(const Spec& spec) {
  Prepared p;
  if (const int error = prepare(spec, p); error != 0) {
    Child child;
    child.error = error;
    return child;
  }
  return spec.dieWithHelper ? startWithFork(spec, p) : startWithSpawn(spec, p);
}

void closePipes(Child& child) {
  closeFd(child.stdinFd);
  closeFd(child.stdoutFd);
  closeFd(child.stderrFd);
}

}  // namespace sdma::process
