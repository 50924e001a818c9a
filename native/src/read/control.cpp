#include "read/control.hpp"

#include "cancel.hpp"
#include "reporter.hpp"

namespace sdma::read {

Control Control::process() { return Control([] { return cancel::requested(); }, [] { sdma::heartbeat(); }); }

}  // namespace sdma::read
