// The heartbeat hook (util/heartbeat.hpp): one hook for the process, called from the working
// thread only.
#include "util/heartbeat.hpp"

namespace sdma {

namespace {
HeartbeatHook g_hook = nullptr;
void* g_context = nullptr;
}  // namespace

void installHeartbeat(HeartbeatHook hook, void* context) {
  g_hook = hook;
  g_context = context;
}

void removeHeartbeat(void* context) {
  if (g_context != context) return;
  g_hook = nullptr;
  g_context = nullptr;
}

void heartbeat() {
  if (g_hook != nullptr) g_hook(g_context);
}

}  // namespace sdma
