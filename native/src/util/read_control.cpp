#include "util/read_control.hpp"

#include "util/cancel.hpp"
#include "protocol/reporter.hpp"

namespace sdma::ingest {

Control Control::process() { return Control([] { return cancel::requested(); }, [] { sdma::heartbeat(); }); }

}  // namespace sdma::ingest
