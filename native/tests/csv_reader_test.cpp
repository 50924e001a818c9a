// The CSV reader and the rocprofv3 CSV import on hostile input: links and FIFOs in the folder,
// a file too big to hold, malformed rows, numbers out of range, cancellation and the
// collector's cap. Each case names what the reader must say instead of hanging, flooding
// memory, wrapping a number or dropping rows in silence.
//
// Usage: csv_reader_test FIXTURES [doctest options]   (a failed check names its case)
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "util/read_control.hpp"
#include "profile/csv_rows.hpp"
#include "profile/rocm_sources.hpp"
#include "profile/trace_collector.hpp"
#include "doctest_support.hpp"

using sdma::ingest::Control;
using sdma::ingest::CsvLimits;
using sdma::ingest::CsvReader;
using sdma::ingest::CsvRow;
using sdma::runmode::CollectorLimits;
using sdma::runmode::CollectorWarning;
using sdma::runmode::CopyRecord;
using sdma::runmode::DispatchRecord;
using sdma::runmode::TraceCollector;
using sdma::testing::MiB;

namespace {

const std::string kKernelHeader =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\","
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

const std::string kCopyHeader =
    "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\","
    "\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n";

// rocprofv3's agent_info.csv, cut to the columns read: agent 2 is the one GPU.
const std::string kAgentInfo =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\"\n"
    "0,0,\"CPU\"\n"
    "2,2,\"GPU\"\n";

struct KernelRow {
  long long id = 0;
  std::string start;
  std::string end;
  std::string name = "\"kern(float*)\"";
  std::string agent = "2";
  std::string gridX = "1024";
};

std::string kernelRow(const KernelRow& r) {
  return "\"KERNEL_DISPATCH\"," + r.agent + ",1,1,21228," + std::to_string(r.id) + ",11," + r.name + "," +
         std::to_string(r.id) + "," + r.start + "," + r.end + ",0,0,64,1,1," + r.gridX + ",1024,1\n";
}

// Row i of a well-formed trace: starts at 1000000 + 1000 i, lasts 500 ns.
std::string kernelRow(long long i) {
  KernelRow r;
  r.id = i;
  r.start = std::to_string(1000000 + 1000 * i);
  r.end = std::to_string(1000000 + 1000 * i + 500);
  return kernelRow(r);
}

std::string kernelRows(long long first, long long count) {
  std::string out;
  for (long long i = first; i < first + count; ++i) out += kernelRow(i);
  return out;
}

std::string copyRow(long long i, const std::string& bytes, const std::string& src = "0", const std::string& dst = "2") {
  return "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",1," + src + "," + dst + "," + std::to_string(i) + "," +
         std::to_string(1000 + 100 * i) + "," + std::to_string(1050 + 100 * i) + "," + bytes + "\n";
}

struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/sdma-csv-test-XXXXXX";
    if (mkdtemp(name)) path = name;
  }
  ~TempDir() {
    if (!path.empty()) sdma::runmode::removeTree(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(file(name), std::ios::binary);
    out << text;
  }
};

// What one import gave: its count, records, warnings and how it ended.
struct Import {
  std::size_t count = 0;
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> c;
  std::vector<CollectorWarning> warnings;
  bool cancelled = false;
  std::uint64_t polls = 0;
  double seconds = 0;
};

struct Options {
  std::int64_t bootToMono = 0;
  CollectorLimits limits{};
  std::uint64_t cancelAfter = 0;
};

Import run(const std::function<std::size_t(TraceCollector&, std::vector<CollectorWarning>&, Control&)>& read,
           const Options& o) {
  Import r;
  TraceCollector collector(0, o.limits);
  Control control = Control::detached(o.cancelAfter);
  const auto t0 = std::chrono::steady_clock::now();
  r.count = read(collector, r.warnings, control);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cancelled = control.cancelled();
  r.polls = control.polls();
  collector.finish(r.d, r.c, r.warnings);
  return r;
}

Import importDir(const std::string& dir, const Options& o = {}) {
  return run([&](TraceCollector& c, std::vector<CollectorWarning>& w,
                 Control& control) { return sdma::runmode::readRocprofDir(dir, o.bootToMono, c, w, control); },
             o);
}

Import importTexts(const std::string& agents, const std::string& kernels, const std::string& copies,
                   const Options& o = {}) {
  return run(
      [&](TraceCollector& c, std::vector<CollectorWarning>& w, Control& control) {
        return sdma::runmode::readRocprofCsvTexts(agents, kernels, copies, o.bootToMono, c, w, control);
      },
      o);
}

bool warns(const Import& r, const std::string& code, const std::string& fragment = "") {
  for (const CollectorWarning& w : r.warnings) {
    if (w.code == code && w.message.find(fragment) != std::string::npos) return true;
  }
  return false;
}

void printWarnings(const Import& r) {
  for (const CollectorWarning& w : r.warnings) std::printf("      warning %s: %s\n", w.code.c_str(), w.message.c_str());
}

long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Every row a reader hands over, with its line, as plain strings.
struct Rows {
  std::vector<std::pair<std::uint64_t, std::vector<std::string>>> rows;
  CsvReader::OnRow collect() {
    return [this](const CsvRow& row) {
      std::vector<std::string> cells;
      for (std::size_t i = 0; i < row.size(); ++i) cells.emplace_back(row[i]);
      rows.emplace_back(row.line(), std::move(cells));
      return true;
    };
  }
};

// ---------------------------------------------------------------------------------------
// The reader on its own.

void readerQuoting() {
  // A byte order mark, quoted commas, doubled quotes, a line break inside quotes, CRLF and
  // blank lines.
  const std::string text =
      "\xEF\xBB\xBF"
      "name,\"value\"\r\n"
      "\"a,b\",\"say \"\"hi\"\"\"\r\n"
      "\r\n"
      "\"two\nlines\",2\n"
      "\n"
      "last,3";
  CsvReader whole;
  Rows a;
  whole.feed(text, a.collect());
  whole.end(a.collect());
  CHECK_MESSAGE((whole.header() == std::vector<std::string>{"name", "value"}),
                ("reader: the header without the byte order mark"));
  CHECK_MESSAGE((whole.column("value") == 1 && whole.column("nope") == CsvReader::kNoColumn),
                ("reader: column lookup"));
  CHECK_MESSAGE((a.rows.size() == 3), ("reader: 3 rows, blank lines skipped"));
  if (a.rows.size() == 3) {
    CHECK_MESSAGE((a.rows[0].second == std::vector<std::string>{"a,b", "say \"hi\""}),
                  ("reader: quoted comma and doubled quotes"));
    CHECK_MESSAGE((a.rows[1].second == std::vector<std::string>{"two\nlines", "2"}),
                  ("reader: a line break inside quotes"));
    CHECK_MESSAGE((a.rows[0].first == 2 && a.rows[1].first == 4 && a.rows[2].first == 7),
                  ("reader: rows carry their first line"));
    CHECK_MESSAGE((a.rows[2].second == std::vector<std::string>{"last", "3"}),
                  ("reader: a last row without a line break"));
  }
  CHECK_MESSAGE((!whole.problems().malformed() && whole.malformedSummary().empty()), ("reader: nothing malformed"));

  // Byte by byte: the same rows, whatever the chunks.
  CsvReader bytewise;
  Rows b;
  for (const char c : text) bytewise.feed(std::string_view(&c, 1), b.collect());
  bytewise.end(b.collect());
  CHECK_MESSAGE((b.rows == a.rows && bytewise.header() == whole.header()),
                ("reader: fed one byte at a time, the same rows"));

  // A text that begins like a byte order mark but is not one keeps its bytes.
  CsvReader almost;
  Rows c;
  almost.feed("\xEF\xBB", c.collect());
  almost.feed("x\n1\n", c.collect());
  almost.end(c.collect());
  CHECK_MESSAGE((almost.header() == std::vector<std::string>{"\xEF\xBBx"} && c.rows.size() == 1),
                ("reader: a near byte order mark is text"));
}

void readerMalformed() {
  {
    // The old parser took everything after an unterminated quote as one cell, in silence.
    CsvReader r;
    Rows rows;
    const std::string text = "a,b\n1,2\n3,4\n\"x,5\n6,7\n8,9\n";
    r.feed(text, rows.collect());
    r.end(rows.collect());
    CHECK_MESSAGE((rows.rows.size() == 2), ("unterminated quote: the rows before it are read"));
    CHECK_MESSAGE((r.problems().unterminatedQuote && r.problems().unterminatedQuoteLine == 4 &&
                   r.problems().linesAfterQuote == 2),
                  ("unterminated quote: reported with its line (4) and the 2 lines lost after it"));
    CHECK_MESSAGE((r.malformedSummary().find("line 4") != std::string::npos),
                  ("unterminated quote: said in words: " + r.malformedSummary()));
  }
  {
    CsvReader r;
    Rows rows;
    r.feed("a,b\n1,2,3\n4,5\n6\n7,8\n", rows.collect());
    r.end(rows.collect());
    CHECK_MESSAGE((rows.rows.size() == 2), ("field count: the rows that match the header are read"));
    CHECK_MESSAGE((r.problems().fieldCountRows == 2 && r.problems().firstFieldCountLine == 2 &&
                   r.problems().firstFieldCount == 3),
                  ("field count: 2 rows counted, the first at line 2 with 3 fields"));
    CHECK_MESSAGE((r.malformedSummary().find("line 2") != std::string::npos),
                  ("field count: said in words: " + r.malformedSummary()));
  }
  {
    CsvLimits limits;
    limits.maxRowBytes = 16;
    CsvReader r(limits);
    Rows rows;
    r.feed("a,b\n1,2\n\"0123456789\",\"0123456789\"\n3,4\n", rows.collect());
    r.end(rows.collect());
    CHECK_MESSAGE((rows.rows.size() == 2 && r.problems().overlongRows == 1 && r.problems().firstOverlongLine == 3),
                  ("overlong row: skipped and reported at line 3, the next row read"));
    // Exactly the cap is not over it.
    CsvReader exact(limits);
    Rows fits;
    exact.feed("a,b\n0123456789abcd,e\n", fits.collect());
    exact.end(fits.collect());
    CHECK_MESSAGE((fits.rows.size() == 1 && exact.problems().overlongRows == 0),
                  ("overlong row: a row of exactly the cap is read"));
  }
  {
    CsvLimits limits;
    limits.maxRowBytes = 8;
    CsvReader r(limits);
    Rows rows;
    r.feed("0123456789,x\n1\n2\n", rows.collect());
    r.end(rows.collect());
    CHECK_MESSAGE((rows.rows.empty() && r.problems().headerTooLong && r.stopped()),
                  ("overlong header: nothing read, reported"));
    CHECK_MESSAGE((r.malformedSummary().find("header") != std::string::npos), ("overlong header: said in words"));
  }
  {
    CsvLimits limits;
    limits.maxRows = 3;
    CsvReader r(limits);
    Rows rows;
    r.feed("a\n1\n2\n3\n4\n5\n", rows.collect());
    CHECK_MESSAGE((rows.rows.size() == 3 && r.problems().rowsCapped && r.problems().rowsCappedLine == 5 && r.stopped()),
                  ("row cap: 3 rows, then it stops and says where"));
  }
  {
    CsvReader r;
    int seen = 0;
    const CsvReader::OnRow stopAtTwo = [&](const CsvRow&) { return ++seen < 2; };
    r.feed("a\n1\n2\n3\n", stopAtTwo);
    CHECK_MESSAGE((seen == 2 && r.stopped() && !r.feed("4\n", stopAtTwo)), ("onRow false stops the reader"));
  }
}

void readerFiles() {
  TempDir dir;
  dir.write("ok.csv", "a,b\n1,2\n3,4\n");
  CHECK_MESSAGE((symlink(dir.file("ok.csv").c_str(), dir.file("link.csv").c_str()) == 0), ("made a link"));
  CHECK_MESSAGE((symlink("/dev/zero", dir.file("zero.csv").c_str()) == 0), ("made a link to /dev/zero"));
  CHECK_MESSAGE((mkfifo(dir.file("fifo.csv").c_str(), 0600) == 0), ("made a FIFO"));
  Rows rows;
  Control control = Control::detached();
  {
    CsvReader r;
    const auto result = sdma::ingest::readCsvFile(dir.file("ok.csv"), 1024, r, control, rows.collect());
    CHECK_MESSAGE((result.problem.empty() && rows.rows.size() == 2 && result.bytes == 12),
                  ("readCsvFile: a regular file"));
  }
  for (const char* name : {"link.csv", "zero.csv", "fifo.csv"}) {
    CsvReader r;
    const auto result = sdma::ingest::readCsvFile(dir.file(name), 1024, r, control, rows.collect());
    CHECK_MESSAGE((!result.problem.empty()), (std::string("readCsvFile refuses ") + name + ": " + result.problem));
  }
  {
    CsvReader r;
    const auto result = sdma::ingest::readCsvFile("/dev/zero", 1024, r, control, rows.collect());
    CHECK_MESSAGE((result.problem.find("device") != std::string::npos),
                  ("readCsvFile refuses /dev/zero: " + result.problem));
  }
  {
    CsvReader r;
    const auto result = sdma::ingest::readCsvFile(dir.file("ok.csv"), 4, r, control, rows.collect());
    CHECK_MESSAGE((result.problem.find("more than") != std::string::npos),
                  ("readCsvFile: a file over the cap: " + result.problem));
  }
  {
    // Polled every chunk and every row: cancelling at the 3rd poll stops after a row.
    dir.write("many.csv", "a\n" + std::string(100, '1') + "\n2\n3\n4\n5\n");
    Control cancelling = Control::detached(3);
    CsvReader r;
    Rows got;
    const auto result = sdma::ingest::readCsvFile(dir.file("many.csv"), 1024, r, cancelling, got.collect());
    CHECK_MESSAGE((result.cancelled && got.rows.size() == 1), ("readCsvFile: cancelled at the 3rd poll after 1 row"));
  }
}

// ---------------------------------------------------------------------------------------
// readRocprofDir on hostile folders (each of these went wrong in the reader before).

void bigCsvBoundedMemory() {
  // 200 000 rows, about 20 MB: the old reader kept a std::map per row (about 700 MB here).
  TempDir dir;
  {
    std::FILE* f = std::fopen(dir.file("1_kernel_trace.csv").c_str(), "wb");
    if (!f) {
      CHECK_MESSAGE((false), ("big CSV: could not write it"));
      return;
    }
    std::fputs(kKernelHeader.c_str(), f);
    for (long long i = 0; i < 200000; ++i) std::fputs(kernelRow(i).c_str(), f);
    std::fclose(f);
  }
  struct stat st{};
  stat(dir.file("1_kernel_trace.csv").c_str(), &st);
  const long before = peakRssKb();
  const Import r = importDir(dir.path);
  const long grownKb = peakRssKb() - before;
  std::printf("      big CSV: %.1f MB, %zu rows read in %.2f s, peak RSS grew %.1f MB\n",
              static_cast<double>(st.st_size) / 1e6, r.count, r.seconds, static_cast<double>(grownKb) / 1024);
  CHECK_MESSAGE((r.count == 200000 && r.d.size() == 200000), ("big CSV: every row read"));
  CHECK_MESSAGE((r.d.size() == 200000 && r.d.back().startNs == 1000000 + 1000LL * 199999),
                ("big CSV: the last row's start"));
  CHECK_MESSAGE((grownKb < 200 * 1024), ("big CSV: peak RSS grew less than 200 MB"));
  CHECK_MESSAGE((r.warnings.empty()), ("big CSV: no warning"));
}

void linkAndFifo() {
  // The old reader opened a link to /dev/zero (reading without end) and blocked forever in
  // opening a FIFO for reading.
  TempDir dir;
  CHECK_MESSAGE((symlink("/dev/zero", dir.file("1_kernel_trace.csv").c_str()) == 0), ("made a link to /dev/zero"));
  CHECK_MESSAGE((mkfifo(dir.file("2_kernel_trace.csv").c_str(), 0600) == 0), ("made a FIFO"));
  dir.write("3_memory_copy_trace.csv", kCopyHeader + copyRow(0, "64") + copyRow(1, "128"));
  const Import r = importDir(dir.path);
  printWarnings(r);
  CHECK_MESSAGE((r.seconds < 5), ("link and FIFO: returns promptly (" + std::to_string(r.seconds) + " s)"));
  CHECK_MESSAGE((r.count == 2 && r.c.size() == 2), ("link and FIFO: the regular file is still read"));
  CHECK_MESSAGE(
      (warns(r, "rocprofv3-files-skipped", "1 symbolic link") && warns(r, "rocprofv3-files-skipped", "1 FIFO")),
      ("link and FIFO: a warning names both skips"));

  TempDir only;
  CHECK_MESSAGE((symlink("/dev/zero", only.file("1_kernel_trace.csv").c_str()) == 0), ("made a link to /dev/zero"));
  CHECK_MESSAGE((mkfifo(only.file("2_kernel_trace.csv").c_str(), 0600) == 0), ("made a FIFO"));
  const Import none = importDir(only.path);
  CHECK_MESSAGE((none.count == 0 && warns(none, "rocprofv3-files-skipped") && warns(none, "rocprofv3-no-output")),
                ("only a link and a FIFO: nothing read, both said"));
}

void unterminatedQuoteInFile() {
  // The old parser took everything after an unterminated quote as one cell and dropped the
  // rest of the file in silence.
  KernelRow broken;
  broken.id = 2;
  broken.start = "1002000";
  broken.end = "1002500";
  broken.name = "\"kern(float*)";  // never closed
  {
    // Open to the end of the file: the later rows hold no quote to close it.
    std::string plain;
    for (long long i = 3; i < 10; ++i) {
      KernelRow k;
      k.id = i;
      k.start = std::to_string(1000000 + 1000 * i);
      k.end = std::to_string(1000000 + 1000 * i + 500);
      std::string row = kernelRow(k);
      row.erase(std::remove(row.begin(), row.end(), '"'), row.end());
      plain += row;
    }
    TempDir dir;
    dir.write("1_kernel_trace.csv", kKernelHeader + kernelRows(0, 2) + kernelRow(broken) + plain);
    const Import r = importDir(dir.path);
    printWarnings(r);
    CHECK_MESSAGE((r.count == 2), ("unterminated quote: the 2 rows before it are read"));
    CHECK_MESSAGE((warns(r, "rocprofv3-csv-malformed", "quote opened at line 4 is never closed") &&
                   warns(r, "rocprofv3-csv-malformed", "the 7 lines after it")),
                  ("unterminated quote: reported with its line and what it swallowed"));
  }
  {
    // A later row's quote closes it: the one row it spoiled is reported, the rest read.
    TempDir dir;
    dir.write("1_kernel_trace.csv", kKernelHeader + kernelRows(0, 2) + kernelRow(broken) + kernelRows(3, 7));
    const Import r = importDir(dir.path);
    printWarnings(r);
    CHECK_MESSAGE((r.count == 8), ("open quote mid-file: every other row is read"));
    CHECK_MESSAGE((warns(r, "rocprofv3-csv-malformed", "first at line 4") &&
                   warns(r, "rocprofv3-csv-malformed", "running on to line 5 inside quotes")),
                  ("open quote mid-file: the spoiled row is reported at line 4"));
  }
}

void wrongFieldCount() {
  TempDir dir;
  std::string extra = kernelRow(1);
  extra.insert(extra.size() - 1, ",surplus");
  dir.write("1_kernel_trace.csv", kKernelHeader + kernelRow(0) + extra + kernelRow(2) + "\"KERNEL_DISPATCH\",2\n");
  const Import r = importDir(dir.path);
  printWarnings(r);
  CHECK_MESSAGE((r.count == 2), ("field count: the 2 well-formed rows are read"));
  CHECK_MESSAGE((warns(r, "rocprofv3-csv-malformed", "2 rows whose number of fields") &&
                 warns(r, "rocprofv3-csv-malformed", "first at line 3, with 20")),
                ("field count: both rows reported, the first at line 3"));
}

void overlongRow() {
  TempDir dir;
  KernelRow huge;
  huge.id = 1;
  huge.start = "1001000";
  huge.end = "1001500";
  huge.name = "\"" + std::string(MiB + MiB / 2, 'k') + "\"";
  dir.write("1_kernel_trace.csv", kKernelHeader + kernelRow(0) + kernelRow(huge) + kernelRow(2));
  const Import r = importDir(dir.path);
  printWarnings(r);
  CHECK_MESSAGE((r.count == 2), ("overlong row: the rows around it are read"));
  CHECK_MESSAGE(
      (warns(r, "rocprofv3-csv-malformed", "1 row longer than") && warns(r, "rocprofv3-csv-malformed", "line 3")),
      ("overlong row: reported at line 3"));
}

void timestampsOutOfRange() {
  // The old reader's strtoll saturated 99999999999999999999 to INT64_MAX: a dispatch from
  // the end of time whose end came before its start, and no word of it.
  TempDir dir;
  std::string text = kKernelHeader + kernelRow(0);
  KernelRow r1;
  r1.id = 1;
  r1.start = "99999999999999999999";
  r1.end = "1001500";
  KernelRow r2;
  r2.id = 2;
  r2.start = "-9223372036854775808";
  r2.end = "1002500";
  KernelRow r3;
  r3.id = 3;
  r3.start = "1003000";
  r3.end = "9223372036854775808";  // INT64_MAX + 1
  KernelRow r4;
  r4.id = 4;
  r4.start = "1.5e6";
  r4.end = "1004500";
  text += kernelRow(r1) + kernelRow(r2) + kernelRow(r3) + kernelRow(r4) + kernelRow(5);
  dir.write("1_kernel_trace.csv", text);
  const Import r = importDir(dir.path);
  printWarnings(r);
  CHECK_MESSAGE((r.count == 2 && r.d.size() == 2), ("time out of range: only the 2 good rows are read"));
  bool sane = true;
  for (const DispatchRecord& d : r.d) sane = sane && d.startNs >= 1000000 && d.endNs >= d.startNs && d.endNs < 2000000;
  CHECK_MESSAGE((sane), ("time out of range: no wrapped or saturated time"));
  CHECK_MESSAGE((warns(r, "rocprofv3-time-out-of-range", "4 rows") &&
                 warns(r, "rocprofv3-time-out-of-range", "line 3 (Start_Timestamp \"99999999999999999999\")")),
                ("time out of range: 4 rows counted, the first named"));

  // INT64_MAX itself is a time; moved by the clock offset it no longer fits.
  TempDir edge;
  KernelRow max;
  max.id = 0;
  max.start = "9223372036854775806";
  max.end = "9223372036854775807";
  edge.write("1_kernel_trace.csv", kKernelHeader + kernelRow(max));
  const Import atZero = importDir(edge.path);
  CHECK_MESSAGE(
      (atZero.count == 1 && atZero.d.size() == 1 && atZero.d[0].endNs == std::numeric_limits<std::int64_t>::max()),
      ("INT64_MAX: read as it is with no clock offset"));
  Options shifted;
  shifted.bootToMono = 1;
  const Import over = importDir(edge.path, shifted);
  printWarnings(over);
  CHECK_MESSAGE((over.count == 0 && warns(over, "rocprofv3-time-out-of-range", "overflows")),
                ("INT64_MAX + clock offset: left out, said to overflow"));
}

void reversedSpan() {
  TempDir dir;
  KernelRow back;
  back.id = 1;
  back.start = "1001500";
  back.end = "1001000";
  dir.write("1_kernel_trace.csv", kKernelHeader + kernelRow(0) + kernelRow(back) + kernelRow(2));
  dir.write("1_memory_copy_trace.csv",
            kCopyHeader + copyRow(0, "64") + "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",1,0,2,9,5000,4000,64\n");
  const Import r = importDir(dir.path);
  printWarnings(r);
  CHECK_MESSAGE((r.d.size() == 2 && r.c.size() == 1), ("reversed span: the reversed dispatch and copy are left out"));
  CHECK_MESSAGE((warns(r, "rocprofv3-span-reversed", "2 rows") &&
                 warns(r, "rocprofv3-span-reversed", "line 3 (Start_Timestamp 1001500, End_Timestamp 1001000)")),
                ("reversed span: counted, the first named"));
}

void sizesAndBytesOutOfRange() {
  TempDir dir;
  KernelRow wide;
  wide.id = 1;
  wide.start = "1001000";
  wide.end = "1001500";
  wide.gridX = "4294967296";  // static_cast<int> made it 0 in silence before
  dir.write("1_kernel_trace.csv", kKernelHeader + kernelRow(0) + kernelRow(wide));
  dir.write("1_memory_copy_trace.csv", kCopyHeader + copyRow(0, "64") + copyRow(1, "-5") +
                                           copyRow(2, "99999999999999999999") + copyRow(3, "12abc"));
  const Import r = importDir(dir.path);
  printWarnings(r);
  CHECK_MESSAGE((r.d.size() == 2 && r.d.size() == 2 && r.d[1].grid[0] == 0 && r.d[0].grid[0] == 1024),
                ("grid out of int range: the row is kept with size 0"));
  CHECK_MESSAGE((warns(r, "rocprofv3-size-out-of-range", "Grid_Size_X \"4294967296\"")),
                ("grid out of int range: said"));
  CHECK_MESSAGE((r.c.size() == 4 && r.c[0].bytes == 64 && r.c[1].bytes == 0 && r.c[2].bytes == 0 && r.c[3].bytes == 0),
                ("bytes out of range: the copies are kept with bytes 0"));
  CHECK_MESSAGE(
      (warns(r, "rocprofv3-bytes-out-of-range", "3 rows") && warns(r, "rocprofv3-bytes-out-of-range", "Bytes \"-5\"")),
      ("bytes out of range: 3 counted, the first named"));
  CHECK_MESSAGE((!warns(r, "rocprofv3-no-bytes")), ("bytes out of range: not mistaken for a missing column"));
}

void cancellation() {
  // The old reader never polled: a cancel waited for the whole folder.
  TempDir dir;
  dir.write("1_kernel_trace.csv", kKernelHeader + kernelRows(0, 1000));
  dir.write("1_agent_info.csv", kAgentInfo);  // no first pass over the kernel rows
  Options o;
  o.cancelAfter = 50;
  const Import r = importDir(dir.path, o);
  printWarnings(r);
  CHECK_MESSAGE((r.cancelled && r.count > 0 && r.count < 50),
                ("cancel: stops within a poll of the request (" + std::to_string(r.count) + " rows)"));
  CHECK_MESSAGE((warns(r, "import-cancelled", "1_kernel_trace.csv")), ("cancel: said, naming the file"));

  // Cancelled while listing the folder.
  Options early;
  early.cancelAfter = 1;
  const Import listing = importDir(dir.path, early);
  CHECK_MESSAGE((listing.cancelled && listing.count == 0 && warns(listing, "import-cancelled")),
                ("cancel: while looking for files"));

  // In the first pass over the kernel files (no agent_info.csv), before any record.
  Options second;
  second.cancelAfter = 500;
  const Import texts = importTexts("", kKernelHeader + kernelRows(0, 1000), "", second);
  CHECK_MESSAGE((texts.cancelled && texts.count == 0 && warns(texts, "import-cancelled")),
                ("cancel: during the agent pass"));
}

void collectorCap() {
  // The old reader read every row whether the collector kept it or not.
  TempDir dir;
  dir.write("1_kernel_trace.csv", kKernelHeader + kernelRows(0, 1000));
  dir.write("2_kernel_trace.csv", kKernelHeader + kernelRows(1000, 1000));
  dir.write("1_memory_copy_trace.csv", kCopyHeader + copyRow(0, "64") + copyRow(1, "64"));
  dir.write("1_agent_info.csv", kAgentInfo);
  Options o;
  o.limits.maxDispatches = 10;
  const Import r = importDir(dir.path, o);
  printWarnings(r);
  CHECK_MESSAGE((r.count == 12 && r.d.size() == 10), ("collector cap: 10 dispatches kept"));
  CHECK_MESSAGE((r.c.size() == 2), ("collector cap: the copies, under their own cap, are still read"));
  // A poll per row and per chunk: reading on would have polled about 2000 times more.
  CHECK_MESSAGE((r.polls < 100),
                ("collector cap: the rest of the kernel files is not read (" + std::to_string(r.polls) + " polls)"));
  CHECK_MESSAGE((!r.cancelled), ("collector cap: not a cancel"));

  // Without agent_info.csv the first pass reads the kernel ids (1000 polls); the second stops at the cap.
  TempDir bare;
  bare.write("1_kernel_trace.csv", kKernelHeader + kernelRows(0, 1000));
  const Import twoPass = importDir(bare.path, o);
  CHECK_MESSAGE((twoPass.count == 10 && twoPass.polls < 1100 && warns(twoPass, "records-capped")),
                ("collector cap: the second pass stops (" + std::to_string(twoPass.polls) + " polls)"));

  // The copies' own cap stops the copy files the same way.
  std::string copies = kCopyHeader;
  for (long long i = 0; i < 1000; ++i) copies += copyRow(i, "64");
  TempDir copyDir;
  copyDir.write("1_memory_copy_trace.csv", copies);
  Options fewCopies;
  fewCopies.limits.maxCopies = 5;
  const Import c = importDir(copyDir.path, fewCopies);
  CHECK_MESSAGE((c.count == 5 && c.c.size() == 5 && c.polls < 100),
                ("collector cap: copies stop at theirs (" + std::to_string(c.polls) + " polls)"));
}

// ---------------------------------------------------------------------------------------
// The texts API (also the fuzz entry point).

void agentsFromKernelsAndAgentInfo() {
  auto agentRow = [](long long id, const std::string& agent) {
    KernelRow k;
    k.id = id;
    k.start = std::to_string(1000 + id);
    k.end = std::to_string(2000 + id);
    k.agent = agent;
    return kernelRow(k);
  };
  const std::string kernels =
      kKernelHeader + agentRow(0, "7") + agentRow(1, "3") + agentRow(2, "7") + agentRow(3, "5") + agentRow(4, "x");
  const std::string copies = kCopyHeader + copyRow(0, "8", "5", "7") + copyRow(1, "8", "0", "3");
  // No agent_info.csv: the GPUs are the agents that ran kernels, in id order (3, 5, 7).
  const Import r = importTexts("", kernels, copies);
  CHECK_MESSAGE((r.d.size() == 5 && r.c.size() == 2), ("agents from kernels: every row read"));
  if (r.d.size() == 5 && r.c.size() == 2) {
    CHECK_MESSAGE((r.d[0].gpu == 2 && r.d[1].gpu == 0 && r.d[2].gpu == 2 && r.d[3].gpu == 1 && r.d[4].gpu == 0),
                  ("agents from kernels: 3 -> 0, 5 -> 1, 7 -> 2 (an unreadable id -> 0)"));
    CHECK_MESSAGE((r.c[0].srcGpu == 1 && r.c[0].dstGpu == 2 && r.c[1].srcGpu == -1 && r.c[1].dstGpu == 0),
                  ("agents from kernels: copies between them"));
  }
  // agent_info.csv names the GPU agents; CPU agents are not GPUs.
  const std::string info =
      "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\"\n"
      "0,0,\"CPU\"\n"
      "1,1,\"GPU\"\n"
      "2,2,\"GPU\"\n"
      "3,3,\"GPU\"\n"
      "4,4,\"CPU\"\n"
      "5,5,\"GPU\"\n"
      "7,7,\"GPU\"\n";
  const Import withInfo = importTexts(info, kernels, copies);
  if (withInfo.d.size() == 5) {
    CHECK_MESSAGE((withInfo.d[0].gpu == 4 && withInfo.d[1].gpu == 2 && withInfo.d[3].gpu == 3),
                  ("agent_info: GPUs 1, 2, 3, 5, 7 -> 0..4"));
  } else {
    CHECK_MESSAGE((false), ("agent_info: every row read"));
  }

  // A bounded set: 5000 distinct agents keep 4096 and say so.
  std::string many = kKernelHeader;
  for (long long i = 0; i < 5000; ++i) many += agentRow(i, std::to_string(i));
  const Import capped = importTexts("", many, "");
  CHECK_MESSAGE((capped.count == 5000 && warns(capped, "rocprofv3-agents-capped", "4096")),
                ("agents: capped at 4096, said"));
}

void textsEdges() {
  Options far;
  far.bootToMono = std::numeric_limits<std::int64_t>::max();
  const Import over = importTexts("", kKernelHeader + kernelRow(0), "", far);
  CHECK_MESSAGE((over.count == 0 && warns(over, "rocprofv3-time-out-of-range", "overflows")),
                ("texts: start + offset overflows"));
  far.bootToMono = std::numeric_limits<std::int64_t>::min();
  const Import under = importTexts("", kKernelHeader + kernelRow(0), "", far);
  CHECK_MESSAGE((under.count == 1 && under.d.size() == 1), ("texts: a large negative offset that fits is applied"));

  const Import noColumns = importTexts("", "\"Kind\",\"Kernel_Name\"\n\"KERNEL_DISPATCH\",\"k\"\n", "");
  CHECK_MESSAGE((noColumns.count == 0 && warns(noColumns, "rocprofv3-csv-columns", "Start_Timestamp, End_Timestamp")),
                ("texts: missing columns named"));
  const Import headerOnly = importTexts("", "\"Kind\",\"Kernel_Name\"\n", "");
  CHECK_MESSAGE((warns(headerOnly, "rocprofv3-csv-columns")), ("texts: missing columns named with no row"));

  KernelRow unnamed;
  unnamed.start = "5";
  unnamed.end = "6";
  unnamed.name = "\"\"";
  const Import noName = importTexts("", kKernelHeader + kernelRow(unnamed) + kernelRow(1), "");
  CHECK_MESSAGE((noName.count == 1 && warns(noName, "rocprofv3-rows-skipped", "line 2")),
                ("texts: a row without a name is said"));

  const Import nothing = importTexts("", "", "");
  CHECK_MESSAGE((nothing.count == 0 && warns(nothing, "rocprofv3-no-output")), ("texts: nothing given"));

  // Rubbish of every kind: no crash, no hang, and a warning for what could not be read.
  static const char kJunk[] = "\0\"\r\n,,\"\"\xff\n";
  const std::string junk = std::string(kJunk, sizeof kJunk - 1) + "\"" + std::string(2 * MiB, ',');
  const Import rubbish = importTexts(junk, junk, junk);
  CHECK_MESSAGE((rubbish.count == 0 && !rubbish.warnings.empty()), ("texts: rubbish is read without a record"));
}

// ---------------------------------------------------------------------------------------
// rocprofv3's published samples read exactly as before.

struct ExpectedDispatch {
  const char* name;
  int gpu;
  std::int64_t start, end;
  std::array<int, 3> grid, block;
  std::int64_t correlation;
};

struct ExpectedCopy {
  int src, dst;
  std::uint64_t bytes;
  std::int64_t start, end;
  const char* label;
};

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void publishedSamples(const std::string& fixtures) {
  // What the reader made of them before it streamed (sdma-probe import, times put back on
  // rocprofv3's clock).
  const ExpectedDispatch dispatches[] = {
      {"void addition_kernel<float>(float*, float const*, float const*, int, int)",
       0,
       2414192765353337LL,
       2414192765369494LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1937},
      {"subtract_kernel(float*, float const*, float const*, int, int)",
       0,
       2414192765424862LL,
       2414192765435326LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1945},
      {"multiply_kernel(float*, float const*, float const*, int, int)",
       0,
       2414192765487486LL,
       2414192765497669LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1953},
      {"divide_kernel(float*, float const*, float const*, int, int)",
       0,
       2414192765545619LL,
       2414192765555722LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1961},
      {"void addition_kernel<float>(float*, float const*, float const*, int, int)",
       0,
       2414192765608844LL,
       2414192765621674LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1969},
      {"subtract_kernel(float*, float const*, float const*, int, int)",
       0,
       2414192765658519LL,
       2414192765669424LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1977},
      {"multiply_kernel(float*, float const*, float const*, int, int)",
       0,
       2414192765715650LL,
       2414192765726795LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1985},
      {"divide_kernel(float*, float const*, float const*, int, int)",
       0,
       2414192765773422LL,
       2414192765784969LL,
       {1024, 1024, 1},
       {64, 1, 1},
       1993},
  };
  const ExpectedCopy copies[] = {
      {-1, 0, 0, 2414192684609085LL, 2414192684710679LL, "HOST_TO_DEVICE"},
      {-1, 0, 0, 2414192684873841LL, 2414192684973470LL, "HOST_TO_DEVICE"},
      {-1, 0, 0, 2414192706436949LL, 2414192706538622LL, "HOST_TO_DEVICE"},
      {-1, 0, 0, 2414192706592442LL, 2414192706692312LL, "HOST_TO_DEVICE"},
  };
  const std::string samples = fixtures + "/rocprofv3";
  TempDir dir;
  dir.write("1_kernel_trace.csv", readAll(samples + "/kernel_trace.csv"));
  dir.write("1_memory_copy_trace.csv", readAll(samples + "/memory_copy_trace.csv"));
  dir.write("1_rccl_trace.csv", readAll(samples + "/rccl_trace.csv"));
  const Import r = importDir(dir.path);
  printWarnings(r);
  CHECK_MESSAGE((r.count == 12 && r.d.size() == 8 && r.c.size() == 4), ("samples: 8 dispatches and 4 copies"));
  CHECK_MESSAGE((r.warnings.size() == 1 && warns(r, "rocprofv3-no-bytes")),
                ("samples: only the warning they had (no Bytes column)"));
  bool same = r.d.size() == 8 && r.c.size() == 4;
  for (std::size_t i = 0; same && i < 8; ++i) {
    const ExpectedDispatch& e = dispatches[i];
    const DispatchRecord& d = r.d[i];
    same = d.name == e.name && d.mangled.empty() && d.gpu == e.gpu && d.startNs == e.start && d.endNs == e.end &&
           d.grid == e.grid && d.block == e.block && d.correlationId == e.correlation && d.source == "rocprofv3";
  }
  for (std::size_t i = 0; same && i < 4; ++i) {
    const ExpectedCopy& e = copies[i];
    const CopyRecord& c = r.c[i];
    same = c.srcGpu == e.src && c.dstGpu == e.dst && c.bytes == e.bytes && c.startNs == e.start && c.endNs == e.end &&
           c.label == e.label && c.mover == "engine" && c.initiator == "host" && c.source == "rocprofv3";
  }
  CHECK_MESSAGE((same), ("samples: every value as before"));

  // The same through the texts API.
  const Import texts =
      importTexts("", readAll(samples + "/kernel_trace.csv"), readAll(samples + "/memory_copy_trace.csv"));
  CHECK_MESSAGE((texts.count == 12 && texts.d.size() == 8 && texts.d[7].startNs == dispatches[7].start),
                ("samples: the texts API reads them the same"));

  // parseCsv keeps its meaning: header-keyed rows, quoted names whole.
  const auto rows = sdma::runmode::parseCsv(readAll(samples + "/kernel_trace.csv"));
  CHECK_MESSAGE((rows.size() == 8 && rows[0].at("Kernel_Name") == dispatches[0].name && rows[0].at("Agent_Id") == "2" &&
                 rows[7].at("End_Timestamp") == "2414192765784969"),
                ("parseCsv: the samples' rows"));
}

}  // namespace

// One test case, in this order. The fixtures directory is the test's first argument (ctest
// passes test/fixtures).
TEST_CASE("csv reader") {
  const std::string fixtures = sdma::testing::appArg(0, "the fixtures directory (test/fixtures)");
  // The memory case first: peak RSS only grows, so it is measured before the others run.
  const std::vector<std::pair<const char*, std::function<void()>>> cases = {
      {"bigCsvBoundedMemory", bigCsvBoundedMemory},
      {"readerQuoting", readerQuoting},
      {"readerMalformed", readerMalformed},
      {"readerFiles", readerFiles},
      {"linkAndFifo", linkAndFifo},
      {"unterminatedQuoteInFile", unterminatedQuoteInFile},
      {"wrongFieldCount", wrongFieldCount},
      {"overlongRow", overlongRow},
      {"timestampsOutOfRange", timestampsOutOfRange},
      {"reversedSpan", reversedSpan},
      {"sizesAndBytesOutOfRange", sizesAndBytesOutOfRange},
      {"cancellation", cancellation},
      {"collectorCap", collectorCap},
      {"agentsFromKernelsAndAgentInfo", agentsFromKernelsAndAgentInfo},
      {"textsEdges", textsEdges},
      {"publishedSamples", [&] { publishedSamples(fixtures); }},
  };
  for (const auto& [name, test] : cases) {
    INFO("case ", name);
    test();
  }
}
