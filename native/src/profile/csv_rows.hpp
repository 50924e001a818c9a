#pragma once

// A streaming reader of CSV text nobody vouched for (RFC 4180 quoting). Text is fed in
// chunks and rows are handed over one at a time, so memory stays at one row whatever the
// size of the file: the first row is the header and gives the column indices; every later
// row comes as its cells, in the header's order. Rows that cannot be trusted (longer than a
// cap, a field count other than the header's, a quote never closed) are not handed over but
// counted, with the line of the first, so the caller can say so to the user.
//
// It depends only on the ingest foundation (control, safe open), so it can move there.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/read_control.hpp"

namespace sdma::ingest {

struct CsvLimits {
  // One row's raw text (quotes, commas and line breaks inside quotes included).
  std::size_t maxRowBytes = std::size_t{1} << 20;
  // Data rows of one text; the reader stops after that many (rowsCapped).
  std::uint64_t maxRows = 50000000;
};

// What the reader could not use. Lines are 1-based physical lines of the text.
struct CsvProblems {
  std::uint64_t overlongRows = 0;
  std::uint64_t firstOverlongLine = 0;
  bool headerTooLong = false;  // the header itself was over the cap: nothing was read
  std::uint64_t fieldCountRows = 0;
  std::uint64_t firstFieldCountLine = 0;
  std::size_t firstFieldCount = 0;
  std::uint64_t firstFieldCountLastLine = 0;  // past firstFieldCountLine: a quoted line break (a quote left open?)
  bool unterminatedQuote = false;             // a quote opened and never closed before the end
  std::uint64_t unterminatedQuoteLine = 0;
  std::uint64_t linesAfterQuote = 0;  // lines from the quote to the end, lost with it
  bool rowsCapped = false;
  std::uint64_t rowsCappedLine = 0;

  bool malformed() const { return overlongRows > 0 || fieldCountRows > 0 || unterminatedQuote; }
};

// One data row: cells in the header's column order (always as many as the header has).
// The views point into the reader's buffer and are valid only during the callback.
class CsvRow {
 public:
  CsvRow(std::uint64_t line, const std::vector<std::string_view>& cells) : line_(line), cells_(cells) {}
  std::uint64_t line() const { return line_; }
  std::size_t size() const { return cells_.size(); }
  // The cell of a column index from CsvReader::column(); empty for kNoColumn.
  std::string_view operator[](std::size_t column) const {
    return column < cells_.size() ? cells_[column] : std::string_view();
  }

 private:
  std::uint64_t line_;
  const std::vector<std::string_view>& cells_;
};

class CsvReader {
 public:
  static constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);
  // Returns false to stop reading (the reader then ignores whatever is fed).
  using OnRow = std::function<bool(const CsvRow& row)>;

  explicit CsvReader(CsvLimits limits = {}) : limits_(limits) {}

  // Feeds the next piece of text; a row may span pieces. false once reading stopped.
  bool feed(std::string_view chunk, const OnRow& onRow);
  // The text ended: the last row when it has no line break, or an unterminated quote.
  bool end(const OnRow& onRow);

  bool stopped() const { return stopped_; }
  bool hasHeader() const { return hasHeader_; }
  const std::vector<std::string>& header() const { return header_; }
  // The index of the first header cell equal to `name`, or kNoColumn.
  std::size_t column(std::string_view name) const;
  std::uint64_t rowsHandedOver() const { return rows_; }
  const CsvProblems& problems() const { return problems_; }
  const CsvLimits& limits() const { return limits_; }
  // The malformed rows in words ("2 rows ... (first at line 9)"); empty when there were none.
  std::string malformedSummary() const;

 private:
  enum class State { FieldStart, Unquoted, Quoted, QuoteSeen };
  void step(char c, const OnRow& onRow);
  void put(char c);
  void endField();
  void endRow(const OnRow& onRow);
  void clearRow();

  CsvLimits limits_;
  State state_ = State::FieldStart;
  bool inRow_ = false;
  bool overlong_ = false;
  bool afterCr_ = false;
  bool afterBreak_ = false;  // the last byte was a line break
  bool stopped_ = false;
  bool ended_ = false;
  std::size_t bomMatched_ = 0;  // bytes of a leading UTF-8 byte order mark seen so far
  bool bomDone_ = false;
  std::uint64_t line_ = 1;  // the line of the next byte
  std::uint64_t rowLine_ = 0;
  std::uint64_t quoteLine_ = 0;
  std::size_t rowBytes_ = 0;
  std::string buf_;                // the current row's cells, unquoted, end to end
  std::vector<std::size_t> ends_;  // where each cell ends in buf_
  std::vector<std::string_view> cells_;
  bool hasHeader_ = false;
  std::vector<std::string> header_;
  std::uint64_t rows_ = 0;
  CsvProblems problems_;
};

struct CsvReadResult {
  std::string problem;  // the file could not be opened or read, in words; empty when it was
  std::uint64_t bytes = 0;
  bool byteCapReached = false;  // it held more than maxBytes (it grew while read): the rest was not read
  bool cancelled = false;       // control.poll() said stop
  bool stopped = false;         // onRow or the row cap ended the reading before the end
};

// Reads one file through the safe open (no links, regular files only, non-blocking open, at
// most maxBytes) in 64 KiB chunks into `reader`, polling `control` every chunk and every row.
CsvReadResult readCsvFile(const std::string& path, std::uint64_t maxBytes, CsvReader& reader, Control& control,
                          const CsvReader::OnRow& onRow);
// The same on text in memory (tests, fuzzing), in the same chunks and with the same polling.
CsvReadResult readCsvText(std::string_view text, CsvReader& reader, Control& control, const CsvReader::OnRow& onRow);

}  // namespace sdma::ingest
