// The process's own read control: the cancel flag and the heartbeat hook.
#include "util/read_control.hpp"

#include "util/cancel.hpp"
#include "util/heartbeat.hpp"

namespace sdma::ingest {

Control Control::process() {
  return Control([] { return cancel::requested(); }, [] { sdma::heartbeat(); });
}

}  // namespace sdma::ingest
