/**
 * The shell programs SDMA Lens runs on a node. Each is a constant: nothing from a user,
 * a setting or a host name is ever spliced into it. Variable data reaches a script only as
 * its positional parameters ($1, $2, ...), which `remoteCommand` quotes one word each:
 *
 *     sh -c SCRIPT sdma-lens ARG1 ARG2 ...
 *
 * Inside the scripts every expansion is double-quoted. They are POSIX sh (dash, bash, busybox)
 * and stay on one line, so a csh-family login shell passes them through too.
 *
 * Everything they create lives under the per-user cache folder:
 * ${XDG_CACHE_HOME:-~/.cache}/sdma-lens/ (helper-<hash>/ for builds, run/<token>/ while a
 * helper runs).
 */

const lines = (...l: string[]) => l.join(' ');

/** Sets $c to the cache folder (an absolute XDG_CACHE_HOME, else ~/.cache) + /sdma-lens. */
const CACHE = lines('c=${XDG_CACHE_HOME:-};', 'case "$c" in /*) ;; *) c="$HOME/.cache";; esac;', 'c="$c/sdma-lens";');

/** Milliseconds between heartbeats sent by the host. */
export const HEARTBEAT_INTERVAL_MS = 2000;
/**
 * Seconds of silence after which the node's watchdog stops the helper. It looks once a
 * second and counts the looks in a row that find no heartbeat since the look before; this
 * many send SIGTERM. Four heartbeat intervals, so a heartbeat held up by a busy host or by TCP
 * retransmissions (up to 6 s late) never trips it.
 */
export const HEARTBEAT_TIMEOUT_S = 8;
/** Seconds between SIGTERM and SIGKILL of the helper's process group on the node. */
export const REMOTE_KILL_GRACE_S = 2;

/**
 * The most seconds from the last heartbeat the node received (at the latest, the moment the
 * connection went quiet) until the helper's process group is gone: the watchdog's first look
 * after that heartbeat comes within 1 s and clears it, the next HEARTBEAT_TIMEOUT_S looks find
 * none and the last of them sends SIGTERM, and SIGKILL follows REMOTE_KILL_GRACE_S later; 1 s
 * more for the looks' own time (each starts a `sleep`: milliseconds, more on a node busy on
 * every core). A connection that closes is faster: end of input sends SIGTERM at once. The
 * drop message states this bound, and test/ssh/remote.test.ts measures it.
 */
export const NODE_STOPS_HELPER_WITHIN_S = 1 + HEARTBEAT_TIMEOUT_S + REMOTE_KILL_GRACE_S + 1;

/**
 * Runs a program ($2...) on the node so that nothing outlives the connection:
 * - `setsid` makes it the leader of a new session and process group, so one `kill -- -PGID`
 *   reaches everything it starts; the group id is saved in run/<token>/pgid ($1 = token).
 * - A reader keeps the ssh channel's stdin. The host never writes to it except a newline
 *   every 2 s; end of input (the host cancelled, ssh died, or sshd lost the connection and
 *   closed the session) sends SIGTERM to the group, then SIGKILL.
 * - A watchdog covers a connection that goes silent without closing (a network partition
 *   that sshd has not noticed): every second it clears the heartbeat mark, or counts a look
 *   that found none ($n); HEARTBEAT_TIMEOUT_S empty looks in a row, same kill. Either way the
 *   group is gone within NODE_STOPS_HELPER_WITHIN_S of the last heartbeat.
 * - When the program ends, leftovers of its group are killed, the watchers stop, the run
 *   folder is removed and its exit status is returned.
 * The watchers write nowhere near the channel's stdout/stderr, so the session ends as soon as
 * the program does. Background jobs get /dev/null as stdin, hence fd 3 for the reader.
 */
export const WATCHED_RUN = lines(
  CACHE,
  'case "$1" in *[!a-z0-9]*|"") echo "sdma-lens: bad run token" >&2; exit 125;; esac;',
  'd="$c/run/$1"; shift;',
  'mkdir -p "$d" || exit 125;',
  'command -v setsid >/dev/null 2>&1 || { echo "sdma-lens: setsid is missing on this node (util-linux)" >&2; exit 127; };',
  'exec 3<&0;',
  'setsid "$@" </dev/null & g=$!;',
  'echo "$g" >"$d/pgid";',
  ': >"$d/beat";',
  `( while IFS= read -r _; do : >"$d/beat"; done; kill -TERM -"$g"; sleep ${REMOTE_KILL_GRACE_S}; kill -KILL -"$g" ) <&3 >/dev/null 2>&1 & r=$!;`,
  `( n=0; while sleep 1; do if [ -e "$d/beat" ]; then rm -f "$d/beat"; n=0; else n=$((n + 1)); if [ "$n" -ge ${HEARTBEAT_TIMEOUT_S} ]; then kill -TERM -"$g"; sleep ${REMOTE_KILL_GRACE_S}; kill -KILL -"$g"; exit 0; fi; fi; done ) </dev/null >/dev/null 2>&1 & w=$!;`,
  'exec 3<&-;',
  'wait "$g"; s=$?;',
  'kill -KILL -"$g" 2>/dev/null;',
  'kill "$r" "$w" 2>/dev/null;',
  'rm -rf "$d";',
  'exit "$s"',
);

/** Cancels a watched run from a second connection ($1 = token): SIGTERM to its group, SIGKILL after the grace. */
export const KILL_RUN = lines(
  CACHE,
  'case "$1" in *[!a-z0-9]*|"") exit 125;; esac;',
  'f="$c/run/$1/pgid";',
  '[ -r "$f" ] || exit 0;',
  'g=$(cat "$f");',
  'case "$g" in *[!0-9]*|"") exit 0;; esac;',
  'kill -TERM -"$g" 2>/dev/null || exit 0;',
  `sleep ${REMOTE_KILL_GRACE_S};`,
  'kill -KILL -"$g" 2>/dev/null; exit 0',
);

/**
 * One round trip that says what the node has ($1 = source hash, $2 = a configured helper path
 * or ""): the cache folder, the --version line of a configured, cached or PATH helper, and the
 * tools a build needs. Output: `key=value` lines.
 */
export const PROBE = lines(
  CACHE,
  'echo "cache=$c";',
  'echo "home=$HOME";',
  // Builds cut off by a lost connection leave their folder; a day later nothing can still be using it.
  '[ -d "$c" ] && find "$c" -maxdepth 1 -name "build-*" -mmin +1440 -exec rm -rf {} + 2>/dev/null;',
  'v() { "$1" --version 2>/dev/null </dev/null | head -n 1; };',
  'if [ -n "$2" ]; then if [ -x "$2" ]; then echo "configured=$(v "$2")"; else echo "configured-missing=1"; fi; fi;',
  'for b in "$c/helper-$1"*/sdma-probe; do [ -x "$b" ] && echo "cached=$b $(v "$b")"; done;',
  'p=$(command -v sdma-probe 2>/dev/null) && echo "onpath=$p" && echo "onpath-version=$(v "$p")";',
  'for t in sh tar cmake make ninja c++ g++ clang++ setsid ps; do command -v "$t" >/dev/null 2>&1 && echo "have=$t"; done;',
  'for t in hipcc nvcc; do p=$(command -v "$t" 2>/dev/null) && echo "have=$t"; done;',
  '[ -x /opt/rocm/bin/hipcc ] && echo "have=hipcc" && echo "rocm=/opt/rocm";',
  '[ -x /usr/local/cuda/bin/nvcc ] && echo "have=nvcc";',
  'uname -sm | sed "s/^/uname=/";',
  'exit 0',
);

/** Unpacks a tar of the helper sources from stdin into $c/build-<token>/src ($1 = token). */
export const UNPACK = lines(
  CACHE,
  'case "$1" in *[!a-z0-9]*|"") exit 125;; esac;',
  'd="$c/build-$1";',
  'rm -rf "$d" && mkdir -p "$d/src" && tar -x -f - -C "$d/src"',
);

/**
 * Builds the helper with the node's CMake and compilers ($1 = token of the unpacked
 * sources, $2 = cache key: source hash and the GPU compilers present) and moves the binary into $c/helper-<hash>/ only when it
 * works, so a failed or cancelled build never leaves something that looks reusable. ROCm and
 * CUDA in their standard places are added to PATH: non-interactive ssh sessions often lack
 * them, and CMake picks the GPU backends from the compilers it finds.
 */
export const BUILD = lines(
  CACHE,
  'case "$1$2" in *[!a-z0-9-]*|"") exit 125;; esac;',
  'd="$c/build-$1"; o="$c/helper-$2";',
  // A cancelled build gets SIGTERM (its whole group): leave through exit so the EXIT trap cleans up.
  "trap 'rm -rf \"$d\"' EXIT; trap 'exit 143' TERM HUP INT;",
  'for p in /opt/rocm/bin /usr/local/cuda/bin; do [ -d "$p" ] && PATH="$PATH:$p"; done; export PATH;',
  'n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2);',
  'echo "sdma-lens: configure";',
  'cmake -S "$d/src" -B "$d/build" -DCMAKE_BUILD_TYPE=Release -DSDMA_PROBE_BUILD_TESTS=OFF 2>&1 || exit 10;',
  'echo "sdma-lens: compile";',
  'cmake --build "$d/build" --parallel "$n" 2>&1 || exit 11;',
  '"$d/build/sdma-probe" --version </dev/null || exit 12;',
  'mkdir -p "$o" && mv -f "$d/build/sdma-probe" "$o/sdma-probe" || exit 13;',
  'echo "sdma-lens: installed $o/sdma-probe"',
);

/** Prints a file under the cache folder ($1 = path relative to it) to stdout. */
export const READ_CACHE_FILE = lines(CACHE, 'case "$1" in ""|/*|*..*) exit 125;; esac;', 'exec cat -- "$c/$1"');

/** Creates a folder under the cache folder ($1 = path relative to it) and prints its absolute path. */
export const MAKE_CACHE_DIR = lines(
  CACHE,
  'case "$1" in ""|/*|*..*) exit 125;; esac;',
  'mkdir -p -- "$c/$1" && printf "%s\\n" "$c/$1"',
);

/** Removes a folder under the cache folder ($1 = path relative to it). */
export const REMOVE_CACHE_DIR = lines(CACHE, 'case "$1" in ""|/*|*..*) exit 125;; esac;', 'rm -rf -- "$c/$1"');

/** Lists the node's processes of this user whose command line starts with $1 (tests and diagnostics). */
export const LIST_PROCESSES = lines(
  'ps -u "$(id -u)" -o pid=,args= | while read -r p a; do case "$a" in "$1"*) echo "$p $a";; esac; done; exit 0',
);
