#include "ingest/control.hpp"

#include "cancel.hpp"
#include "reporter.hpp"

namespace sdma::ingest {

Control Control::process() { return Control([] { return cancel::requested(); }, [] { sdma::heartbeat(); }); }

}  // namespace sdma::ingest
