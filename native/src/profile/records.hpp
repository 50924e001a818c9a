// Run mode's records as data (backend/run_records.hpp) and what the readers do with them
// before the reporter writes them: names demangled, dispatches and copies merged by start.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend/run_records.hpp"

namespace sdma::runmode {

// Both kinds, each already ordered by start, visited as one time-ordered stream (a dispatch
// first when both start at once).
void forEachInStartOrder(const std::vector<DispatchRecord>& dispatches, const std::vector<CopyRecord>& copies,
                         const std::function<void(const DispatchRecord&)>& onDispatch,
                         const std::function<void(const CopyRecord&)>& onCopy);

// Itanium-mangled names through the C++ runtime's demangler; others unchanged.
std::string demangle(const std::string& name);

}  // namespace sdma::runmode
