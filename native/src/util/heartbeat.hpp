// The heartbeat hook: long work calls heartbeat() where it moves on (each slice of the
// simulator's delay, each turn of the wait for a profiled program, each stride of a reader),
// so the reader of the helper's output can tell silence from slow work: a helper that prints
// nothing for a while is stuck. It is called from the working thread, never from a timer
// thread of its own, so a hang falls silent as it should.
//
// The engine and the readers only call heartbeat(); whoever writes the records (the reporter,
// protocol/reporter.hpp) installs the hook and decides whether a `heartbeat` record is due.
// Without a hook installed heartbeat() does nothing.
#pragma once

namespace sdma {

using HeartbeatHook = void (*)(void* context);

// Makes `hook(context)` what heartbeat() calls, replacing any hook installed before.
void installHeartbeat(HeartbeatHook hook, void* context);
// Removes the hook if `context` is still the one installed (a newer one stays).
void removeHeartbeat(void* context);

void heartbeat();

}  // namespace sdma
