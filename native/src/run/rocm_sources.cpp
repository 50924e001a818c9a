#include "run/rocm_sources.hpp"

#include <dirent.h>
#include <ftw.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "run/child_process.hpp"
#include "run/rocpd_reader.hpp"

namespace sdma::runmode {

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void findFiles(const std::string& dir, std::vector<std::string>& out, int depth = 0) {
  if (depth > 6) return;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    if (e->d_type == DT_DIR) findFiles(path, out, depth + 1);
    else out.push_back(path);
  }
  closedir(d);
}

std::int64_t clockNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

std::int64_t toInt(const std::map<std::string, std::string>& row, const std::string& key, std::int64_t fallback) {
  const auto it = row.find(key);
  if (it == row.end() || it->second.empty()) return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  return end && *end == '\0' ? v : fallback;
}

std::string field(const std::map<std::string, std::string>& row, const std::string& key) {
  const auto it = row.find(key);
  return it == row.end() ? std::string() : it->second;
}

}  // namespace

std::vector<std::map<std::string, std::string>> parseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(cell));
      cell.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !cell.empty()) {
        row.push_back(std::move(cell));
        rows.push_back(std::move(row));
      }
      row.clear();
      cell.clear();
      any = false;
    } else {
      cell += c;
      any = true;
    }
  }
  if (any || !cell.empty()) {
    row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  std::vector<std::map<std::string, std::string>> out;
  if (rows.empty()) return out;
  const std::vector<std::string>& header = rows[0];
  for (std::size_t r = 1; r < rows.size(); ++r) {
    std::map<std::string, std::string> m;
    for (std::size_t k = 0; k < header.size() && k < rows[r].size(); ++k) m[header[k]] = rows[r][k];
    out.push_back(std::move(m));
  }
  return out;
}

std::int64_t rocprofClockToMonoNs() {
  // rocprofv3 stamps with CLOCK_BOOTTIME; the run's time line is CLOCK_MONOTONIC. They
  // differ by the time the machine spent suspended, constant during a run.
  const std::int64_t t0 = clockNs(CLOCK_MONOTONIC);
  const std::int64_t boot = clockNs(CLOCK_BOOTTIME);
  const std::int64_t t1 = clockNs(CLOCK_MONOTONIC);
  return (t0 + (t1 - t0) / 2) - boot;
}

std::size_t readRocprofDir(const std::string& dir, std::int64_t bootToMono, TraceCollector& collector,
                           std::vector<CollectorWarning>& warnings, ingest::Control& control) {
  std::vector<std::string> files;
  findFiles(dir, files);
  std::sort(files.begin(), files.end());
  std::vector<std::string> kernels, copies, agents, databases;
  for (const std::string& f : files) {
    if (endsWith(f, "kernel_trace.csv")) kernels.push_back(f);
    else if (endsWith(f, "memory_copy_trace.csv")) copies.push_back(f);
    else if (endsWith(f, "agent_info.csv")) agents.push_back(f);
    else if (endsWith(f, ".db")) databases.push_back(f);
  }
  if (kernels.empty() && copies.empty() && !databases.empty()) {
    // A rocprofv3 that writes its rocpd database whatever --output-format says (or was told
    // otherwise): the same records from the database.
    std::size_t count = 0;
    for (const std::string& db : databases) count += readRocpdDatabase(db, bootToMono, collector, warnings, control);
    return count;
  }
  if (kernels.empty() && copies.empty()) {
    warnings.push_back({"rocprofv3-no-output", "rocprofv3 wrote no kernel or memory-copy trace (CSV or rocpd database) under " + dir});
    return 0;
  }

  // Agent ids to GPU indices: GPU agents in id order (agent_info.csv when present; else
  // the agents that ran kernels).
  std::set<std::int64_t> gpuAgents;
  for (const std::string& f : agents) {
    for (const auto& row : parseCsv(readFile(f))) {
      std::string type = field(row, "Agent_Type");
      if (type.empty()) type = field(row, "Type");
      if (type.find("GPU") == std::string::npos) continue;
      for (const char* key : {"Logical_Node_Id", "Node_Id", "Agent_Id", "Id"}) {
        const std::int64_t id = toInt(row, key, -1);
        if (id >= 0) {
          gpuAgents.insert(id);
          break;
        }
      }
    }
  }
  std::vector<std::vector<std::map<std::string, std::string>>> kernelRows;
  for (const std::string& f : kernels) kernelRows.push_back(parseCsv(readFile(f)));
  if (gpuAgents.empty()) {
    for (const auto& rows : kernelRows)
      for (const auto& row : rows) gpuAgents.insert(toInt(row, "Agent_Id", -1));
    gpuAgents.erase(-1);
  }
  const auto gpuOf = [&](std::int64_t agent) {
    const auto it = gpuAgents.find(agent);
    return it == gpuAgents.end() ? -1 : static_cast<int>(std::distance(gpuAgents.begin(), it));
  };

  std::size_t count = 0;
  for (const auto& rows : kernelRows) {
    for (const auto& row : rows) {
      const std::int64_t start = toInt(row, "Start_Timestamp", -1), end = toInt(row, "End_Timestamp", -1);
      const std::string name = field(row, "Kernel_Name");
      if (start < 0 || end < 0 || name.empty()) continue;
      DispatchRecord d;
      d.name = demangle(name);
      if (d.name != name) d.mangled = name;
      d.gpu = std::max(0, gpuOf(toInt(row, "Agent_Id", -1)));
      d.startNs = start + bootToMono;
      d.endNs = end + bootToMono;
      d.grid = {static_cast<int>(toInt(row, "Grid_Size_X", 0)), static_cast<int>(toInt(row, "Grid_Size_Y", 0)),
                static_cast<int>(toInt(row, "Grid_Size_Z", 0))};
      d.block = {static_cast<int>(toInt(row, "Workgroup_Size_X", 0)),
                 static_cast<int>(toInt(row, "Workgroup_Size_Y", 0)),
                 static_cast<int>(toInt(row, "Workgroup_Size_Z", 0))};
      d.source = "rocprofv3";
      d.correlationId = toInt(row, "Correlation_Id", -1);
      collector.addDispatchMono(std::move(d));
      ++count;
    }
  }
  bool bytesMissing = false;
  for (const std::string& f : copies) {
    for (const auto& row : parseCsv(readFile(f))) {
      const std::int64_t start = toInt(row, "Start_Timestamp", -1), end = toInt(row, "End_Timestamp", -1);
      if (start < 0 || end < 0) continue;
      CopyRecord c;
      // hipMemcpy*: started by the host, moved by an SDMA engine (or by blit kernels when
      // HSA_ENABLE_SDMA=0; rocprofv3 does not say which).
      c.mover = "engine";
      c.initiator = "host";
      c.srcGpu = gpuOf(toInt(row, "Source_Agent_Id", -1));
      c.dstGpu = gpuOf(toInt(row, "Destination_Agent_Id", -1));
      const std::int64_t bytes = toInt(row, "Bytes", -1);
      bytesMissing = bytesMissing || bytes < 0;
      c.bytes = bytes < 0 ? 0 : static_cast<std::uint64_t>(bytes);
      c.startNs = start + bootToMono;
      c.endNs = end + bootToMono;
      c.source = "rocprofv3";
      std::string direction = field(row, "Direction");
      if (direction.rfind("MEMORY_COPY_", 0) == 0) direction = direction.substr(12);
      c.label = direction;
      collector.addCopyMono(std::move(c));
      ++count;
    }
  }
  if (bytesMissing) {
    warnings.push_back({"rocprofv3-no-bytes", "this rocprofv3 writes no Bytes column: memory copies carry bytes 0"});
  }
  return count;
}

KfdSdmaSampler::KfdSdmaSampler(pid_t group) : group_(group) {
  const std::string topology = "/sys/class/kfd/kfd/topology/nodes";
  DIR* d = opendir(topology.c_str());
  if (!d) return;
  std::vector<std::pair<int, std::uint32_t>> nodes;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    std::ifstream in(topology + "/" + name + "/gpu_id");
    std::uint32_t id = 0;
    if (in >> id && id != 0) nodes.emplace_back(std::atoi(name.c_str()), id);
  }
  closedir(d);
  std::sort(nodes.begin(), nodes.end());
  for (std::size_t i = 0; i < nodes.size(); ++i) gpuIndexById_[nodes[i].second] = static_cast<int>(i);
  available_ = access("/sys/class/kfd/kfd/proc", R_OK) == 0;
}

void KfdSdmaSampler::sample() {
  if (!available_) return;
  const std::string procRoot = "/sys/class/kfd/kfd/proc";
  DIR* d = opendir(procRoot.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    const long pid = std::atol(e->d_name);
    if (pid <= 0) continue;
    // Only processes of the program's group: field 5 of /proc/<pid>/stat.
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const std::size_t close = content.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(content.substr(close + 2));
    std::string state;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp != group_) continue;
    const std::string dir = procRoot + "/" + e->d_name;
    DIR* pd = opendir(dir.c_str());
    if (!pd) continue;
    while (dirent* f = readdir(pd)) {
      const std::string name = f->d_name;
      if (name.rfind("sdma_", 0) != 0) continue;
      const std::uint32_t gpuId = static_cast<std::uint32_t>(std::strtoul(name.c_str() + 5, nullptr, 10));
      std::ifstream in(dir + "/" + name);
      std::uint64_t value = 0;
      if (in >> value) {
        std::uint64_t& kept = latest_[{pid, gpuId}];
        kept = std::max(kept, value);
      }
    }
    closedir(pd);
  }
  closedir(d);
}

std::vector<KfdSdmaActivity> KfdSdmaSampler::totals() const {
  std::map<std::uint32_t, std::uint64_t> byGpu;
  for (const auto& [key, value] : latest_) byGpu[key.second] += value;
  std::vector<KfdSdmaActivity> out;
  for (const auto& [id, value] : byGpu) {
    const auto it = gpuIndexById_.find(id);
    out.push_back({it == gpuIndexById_.end() ? -1 : it->second, id, value});
  }
  return out;
}

void removeTree(const std::string& dir) {
  nftw(
      dir.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return std::remove(path); }, 16,
      FTW_DEPTH | FTW_PHYS);
}

}  // namespace sdma::runmode
