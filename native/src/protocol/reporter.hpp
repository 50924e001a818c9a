#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "protocol/json_writer.hpp"
#include "backend/runtime_knobs.hpp"
#include "backend/timeline.hpp"

namespace sdma {

enum class DoneStatus { Ok, Error, Cancelled };

// The protocol's records (docs/PROTOCOL.md), one method per record type. Each record is
// one line on stdout, flushed at once so a reader sees progress live and a crash loses
// at most the line being written.
class Reporter {
 public:
  // The newest Reporter is the one heartbeat() writes to.
  explicit Reporter(std::FILE* out);
  ~Reporter();
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  // `runtimeKnobs`: the variables the helper set before the backend opened (none: the field
  // is left out).
  void hello(std::optional<std::string_view> command, std::string_view backend, bool simulated,
             const std::vector<std::string>& backendsBuilt, const std::vector<RuntimeKnob>& runtimeKnobs = {});
  void topology(const Topology& topology);
  void progress(std::int64_t done, std::int64_t total, std::string_view message);
  void sample(const CopyRequest& request, const CopyMeasurement& measurement);
  // matrix: one GPU pair measured alone (counted as a sample in `done`).
  // With `concurrent`, the pair ran while every other pair of its path did (--concurrent).
  void matrixCell(const CopyRequest& request, const CopyMeasurement& measurement, bool concurrent = false);
  // matrix --concurrent: one path's pairs all at once, summed (not counted as a sample).
  struct GpuTotal {
    int gpu = 0;
    double sendGbps = 0;     // sum of the cells in its row (it is the source)
    double receiveGbps = 0;  // sum of the cells in its column (it is the destination)
  };
  // A cell's figure: size / median of the whole-ns times, as matrix-cell prints it.
  static double cellGbps(std::uint64_t sizeBytes, const std::vector<double>& timesNs);
  void matrixTotal(const CopyRequest& path, int pairs, std::int64_t iters, std::uint64_t bytes, double seconds,
                   const std::vector<GpuTotal>& gpus);
  // matrix: an `error` record that names the cell it belongs to; the run goes on.
  void cellError(const CopyRequest& request, std::string_view code, std::string_view message,
                 std::string_view hint = {}, std::string_view detail = {});
  // `src` and `dst`: the endpoints the timeline's copies ran between.
  void timelineFile(const std::string& path, std::uint64_t eventCount, std::uint64_t fileBytes,
                    std::uint64_t sizeBytes, const std::optional<TimelineClock>& clock, int src, int dst);
  void timelineInline(const TimelineEvents& events, std::uint64_t sizeBytes,
                      const std::optional<TimelineClock>& clock, int src, int dst);
  // A path that cannot exist between two endpoints, printed where its `points` samples would
  // have been (not counted as samples).
  void pathUnsupported(CopyPath path, int src, int dst, std::string_view reason, std::int64_t points);
  void warning(std::string_view code, std::string_view message);
  // A `heartbeat` record, when nothing was written for limits::heartbeatMs.
  void heartbeat();
  // `hint` says what the user can do about it (optional field).
  void error(std::string_view code, std::string_view message, std::string_view hint = {},
             std::string_view detail = {});
  void done(DoneStatus status);

  // Writes text as is, without a record around it: only for --fault garbage-after.
  void raw(std::string_view text);

  std::int64_t samplesEmitted() const { return samples_; }

  // Records of other subcommands (collective, overlap): begin, fill, end.
  JsonWriter& beginRecord(std::string_view type) { return begin(type); }
  void endRecord() { emit(); }

 private:
  JsonWriter& begin(std::string_view type);
  void emit();

  std::FILE* out_;
  JsonWriter json_;
  std::int64_t samples_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastWrite_;
};

// Long work calls this where it moves on (each slice of the simulator's delay, each turn of
// the wait for a profiled program), so the reader can tell silence from slow work: a helper
// that prints nothing for a while is stuck. It is called from the working thread, never from
// a timer thread of its own, so a hang falls silent as it should. No-op without a Reporter.
void heartbeat();

}  // namespace sdma
