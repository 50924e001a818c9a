#include "profile/records.hpp"

#include <cxxabi.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "protocol/json_writer.hpp"

namespace sdma::runmode {

namespace {

void put(Reporter& reporter, JsonWriter& j) {
  j.endObject();
  reporter.raw(j.str() + "\n");
}

void programHead(JsonWriter& j, std::string_view event, const std::vector<std::string>& argv, long pid) {
  j.beginObject().key("type").value("program").key("event").value(event);
  j.key("argv").beginArray();
  for (const std::string& a : argv) j.value(a);
  j.endArray();
  j.key("pid").value(static_cast<std::int64_t>(pid));
}

void triple(JsonWriter& j, std::string_view key, const std::array<int, 3>& v) {
  j.key(key).beginArray().value(v[0]).value(v[1]).value(v[2]).endArray();
}

}  // namespace

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

void emitProgramStart(Reporter& reporter, const std::vector<std::string>& argv, long pid) {
  JsonWriter j;
  programHead(j, "start", argv, pid);
  put(reporter, j);
}

void emitProgramExit(Reporter& reporter, const std::vector<std::string>& argv, long pid, const ProgramExit& exit) {
  JsonWriter j;
  programHead(j, "exit", argv, pid);
  j.key("exitCode");
  if (exit.signalName.empty()) j.value(exit.exitCode); else j.null();
  j.key("signal");
  if (exit.signalName.empty()) j.null(); else j.value(exit.signalName);
  if (!exit.kfdSdma.empty()) {
    j.key("kfdSdma").beginArray();
    for (const KfdSdmaActivity& a : exit.kfdSdma) {
      j.beginObject().key("gpu").value(a.gpu).key("kfdGpuId").value(a.kfdGpuId).key("activity").value(a.counter).endObject();
    }
    j.endArray();
  }
  put(reporter, j);
}

void emitDispatch(Reporter& reporter, const DispatchRecord& d) {
  JsonWriter j;
  j.beginObject().key("type").value("dispatch").key("name").value(d.name);
  if (!d.mangled.empty()) j.key("mangled").value(d.mangled);
  j.key("gpu").value(d.gpu).key("startNs").value(d.startNs).key("endNs").value(d.endNs);
  triple(j, "grid", d.grid);
  triple(j, "block", d.block);
  j.key("source").value(d.source);
  if (d.correlationId >= 0) j.key("correlationId").value(d.correlationId);
  if (d.cusSeen >= 0) j.key("cusSeen").value(d.cusSeen);
  put(reporter, j);
}

void emitCopy(Reporter& reporter, const CopyRecord& c) {
  JsonWriter j;
  j.beginObject().key("type").value("copy").key("mover").value(c.mover).key("initiator").value(c.initiator);
  j.key("srcGpu").value(c.srcGpu).key("dstGpu").value(c.dstGpu).key("bytes").value(c.bytes);
  j.key("startNs").value(c.startNs).key("endNs").value(c.endNs).key("source").value(c.source);
  if (c.engineId >= 0) j.key("engineId").value(c.engineId);
  if (!c.label.empty()) j.key("label").value(c.label);
  put(reporter, j);
}

void emitDeviceSpan(Reporter& reporter, const DeviceSpanRecord& s) {
  JsonWriter j;
  j.beginObject().key("type").value("device-span").key("gpu").value(s.gpu).key("cu").value(s.cu).key("xcc").value(s.xcc);
  j.key("label").value(s.label).key("startNs").value(s.startNs).key("endNs").value(s.endNs);
  j.key("bytes").value(s.bytes).key("peer").value(s.peer).key("mover").value(s.mover).key("pull").value(s.pull);
  put(reporter, j);
}

void emitInStartOrder(Reporter& reporter, const std::vector<DispatchRecord>& dispatches,
                      const std::vector<CopyRecord>& copies) {
  std::size_t di = 0, ci = 0;
  while (di < dispatches.size() || ci < copies.size()) {
    if (ci >= copies.size() || (di < dispatches.size() && dispatches[di].startNs <= copies[ci].startNs)) {
      emitDispatch(reporter, dispatches[di++]);
    } else {
      emitCopy(reporter, copies[ci++]);
    }
  }
}

}  // namespace sdma::runmode
