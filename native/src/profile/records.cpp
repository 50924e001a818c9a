// Run mode's record helpers (profile/records.hpp): demangling and the merge by start time.
#include "profile/records.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace sdma::runmode {

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

void forEachInStartOrder(const std::vector<DispatchRecord>& dispatches, const std::vector<CopyRecord>& copies,
                         const std::function<void(const DispatchRecord&)>& onDispatch,
                         const std::function<void(const CopyRecord&)>& onCopy) {
  std::size_t di = 0, ci = 0;
  while (di < dispatches.size() || ci < copies.size()) {
    if (ci >= copies.size() || (di < dispatches.size() && dispatches[di].startNs <= copies[ci].startNs)) {
      onDispatch(dispatches[di++]);
    } else {
      onCopy(copies[ci++]);
    }
  }
}

}  // namespace sdma::runmode
