#include "profile/csv_rows.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/safe_file.hpp"

namespace sdma::ingest {

namespace {

// A UTF-8 byte order mark some tools put before the header; it is not part of the first name.
constexpr char kBom[3] = {'\xEF', '\xBB', '\xBF'};

// Bytes read from a file or a text at a time: the only part of the input held besides one row.
constexpr std::size_t kChunkBytes = 64 * 1024;

std::string rows(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); }

}  // namespace

std::size_t CsvReader::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return kNoColumn;
}

bool CsvReader::feed(std::string_view chunk, const OnRow& onRow) {
  for (std::size_t i = 0; i < chunk.size() && !stopped_ && !ended_; ++i) {
    const char c = chunk[i];
    if (!bomDone_) {
      // Held back until it is clear whether the text starts with a byte order mark; the
      // bytes are replayed as text when it does not.
      if (c == kBom[bomMatched_]) {
        if (++bomMatched_ == sizeof kBom) bomDone_ = true;
        continue;
      }
      bomDone_ = true;
      for (std::size_t k = 0; k < bomMatched_ && !stopped_; ++k) step(kBom[k], onRow);
      if (stopped_) break;
    }
    step(c, onRow);
  }
  return !stopped_ && !ended_;
}

void CsvReader::put(char c) {
  // Past the cap the row is only scanned for its end, never stored.
  if (!overlong_) buf_.push_back(c);
}

void CsvReader::endField() {
  if (!overlong_) ends_.push_back(buf_.size());
}

void CsvReader::clearRow() {
  buf_.clear();
  ends_.clear();
  cells_.clear();
  overlong_ = false;
  inRow_ = false;
  state_ = State::FieldStart;
}

void CsvReader::step(char c, const OnRow& onRow) {
  const bool lineBreak = c == '\n' || c == '\r';
  if (!inRow_ && !lineBreak) {
    inRow_ = true;
    rowLine_ = line_;
    rowBytes_ = 0;
    state_ = State::FieldStart;
  }
  if (inRow_) {
    // The line break that ends the row is not part of it; one inside quotes is.
    const bool terminator = lineBreak && state_ != State::Quoted;
    if (!terminator && ++rowBytes_ > limits_.maxRowBytes && !overlong_) {
      overlong_ = true;
      // Give the memory back now: the rest of this row is only scanned.
      std::string().swap(buf_);
      std::vector<std::size_t>().swap(ends_);
    }
    switch (state_) {
      case State::FieldStart:
        if (c == '"') {
          state_ = State::Quoted;
          quoteLine_ = line_;
        } else if (c == ',') {
          endField();
        } else if (lineBreak) {
          endField();
          endRow(onRow);
        } else {
          put(c);
          state_ = State::Unquoted;
        }
        break;
      case State::Unquoted:
        // A quote inside an unquoted field is kept as a character (RFC 4180 has no meaning for it).
        if (c == ',') {
          endField();
          state_ = State::FieldStart;
        } else if (lineBreak) {
          endField();
          endRow(onRow);
        } else {
          put(c);
        }
        break;
      case State::Quoted:
        // Commas and line breaks are text here: the field ends only at a closing quote.
        if (c == '"') {
          state_ = State::QuoteSeen;
        } else {
          put(c);
        }
        break;
      case State::QuoteSeen:
        if (c == '"') {
          put('"');  // "" inside quotes is one quote
          state_ = State::Quoted;
        } else if (c == ',') {
          endField();
          state_ = State::FieldStart;
        } else if (lineBreak) {
          endField();
          endRow(onRow);
        } else {
          // Text after a closing quote ("a"b): kept, as most readers do.
          put(c);
          state_ = State::Unquoted;
        }
        break;
    }
  }
  // "\r\n" is one line break; a lone '\r' or '\n' is one too.
  if (c == '\r' || (c == '\n' && !afterCr_)) ++line_;
  afterCr_ = c == '\r';
  afterBreak_ = lineBreak;
}

void CsvReader::endRow(const OnRow& onRow) {
  if (overlong_) {
    ++problems_.overlongRows;
    if (problems_.overlongRows == 1) problems_.firstOverlongLine = rowLine_;
    if (!hasHeader_) {
      // Without the header no later row can be given a meaning.
      problems_.headerTooLong = true;
      stopped_ = true;
    }
    clearRow();
    return;
  }
  cells_.clear();
  std::size_t begin = 0;
  for (const std::size_t e : ends_) {
    cells_.emplace_back(buf_.data() + begin, e - begin);
    begin = e;
  }
  if (!hasHeader_) {
    header_.assign(cells_.begin(), cells_.end());
    hasHeader_ = true;
    clearRow();
    return;
  }
  if (cells_.size() != header_.size()) {
    // Its cells cannot be matched to the header's columns with any confidence.
    ++problems_.fieldCountRows;
    if (problems_.fieldCountRows == 1) {
      problems_.firstFieldCountLine = rowLine_;
      problems_.firstFieldCount = cells_.size();
      problems_.firstFieldCountLastLine = line_;  // the line of the break that ends the row
    }
    clearRow();
    return;
  }
  if (rows_ >= limits_.maxRows) {
    problems_.rowsCapped = true;
    problems_.rowsCappedLine = rowLine_;
    stopped_ = true;
    clearRow();
    return;
  }
  ++rows_;
  const bool more = onRow(CsvRow(rowLine_, cells_));
  clearRow();
  if (!more) stopped_ = true;
}

bool CsvReader::end(const OnRow& onRow) {
  if (stopped_ || ended_) return false;
  if (!bomDone_) {
    // A text shorter than a byte order mark that began like one.
    bomDone_ = true;
    for (std::size_t k = 0; k < bomMatched_ && !stopped_; ++k) step(kBom[k], onRow);
  }
  if (inRow_ && !stopped_) {
    if (state_ == State::Quoted) {
      // Everything from the quote on was taken as one field that never ends: say where it
      // began and how much of the text went with it.
      problems_.unterminatedQuote = true;
      problems_.unterminatedQuoteLine = quoteLine_;
      const std::uint64_t lastLine = afterBreak_ ? line_ - 1 : line_;
      problems_.linesAfterQuote = lastLine > quoteLine_ ? lastLine - quoteLine_ : 0;
      clearRow();
    } else {
      endField();
      endRow(onRow);
    }
  }
  ended_ = true;
  return !stopped_;
}

std::string CsvReader::malformedSummary() const {
  const CsvProblems& p = problems_;
  std::string out;
  const auto add = [&out](const std::string& clause) { out += (out.empty() ? "" : "; ") + clause; };
  if (p.headerTooLong) {
    add("the header row (line " + std::to_string(p.firstOverlongLine) + ") is longer than " +
        bytesInWords(limits_.maxRowBytes) + ", so no row was read");
  } else if (p.overlongRows > 0) {
    add(rows(p.overlongRows) + " longer than " + bytesInWords(limits_.maxRowBytes) + " skipped (first at line " +
        std::to_string(p.firstOverlongLine) + ")");
  }
  if (p.fieldCountRows > 0) {
    // A row over several lines most often means a quote left open that a later quote closed.
    const std::string over = p.firstFieldCountLastLine > p.firstFieldCountLine
                                 ? ", running on to line " + std::to_string(p.firstFieldCountLastLine) +
                                       " inside quotes: a quote not closed?"
                                 : "";
    add(rows(p.fieldCountRows) + " whose number of fields is not the header's " + std::to_string(header_.size()) +
        " skipped (first at line " + std::to_string(p.firstFieldCountLine) + ", with " +
        std::to_string(p.firstFieldCount) + over + ")");
  }
  if (p.unterminatedQuote) {
    add("a quote opened at line " + std::to_string(p.unterminatedQuoteLine) + " is never closed, so that row and the " +
        std::to_string(p.linesAfterQuote) + " lines after it could not be read as rows");
  }
  return out;
}

CsvReadResult readCsvFile(const std::string& path, std::uint64_t maxBytes, CsvReader& reader, Control& control,
                          const CsvReader::OnRow& onRow) {
  CsvReadResult result;
  const SafeFile file = SafeFile::open(path, maxBytes);
  if (!file.ok()) {
    result.problem = file.problem();
    return result;
  }
  const CsvReader::OnRow polled = [&](const CsvRow& row) {
    if (!control.poll()) {
      result.cancelled = true;
      return false;
    }
    return onRow(row);
  };
  const ChunkReadResult read =
      readChunks(file, maxBytes, control, [&](std::string_view chunk) { return reader.feed(chunk, polled); });
  result.bytes = read.bytes;
  result.byteCapReached = read.byteCapReached;
  result.cancelled = result.cancelled || read.cancelled;
  result.problem = read.problem;
  if (read.stopped) {
    result.stopped = !result.cancelled;
    return result;
  }
  // A cut file's last row may be cut too: it is not read.
  if (read.cancelled || read.byteCapReached || !read.problem.empty()) return result;
  if (!reader.end(polled)) result.stopped = !result.cancelled && reader.stopped();
  return result;
}

CsvReadResult readCsvText(std::string_view text, CsvReader& reader, Control& control, const CsvReader::OnRow& onRow) {
  CsvReadResult result;
  const CsvReader::OnRow polled = [&](const CsvRow& row) {
    if (!control.poll()) {
      result.cancelled = true;
      return false;
    }
    return onRow(row);
  };
  while (!text.empty()) {
    if (!control.poll()) {
      result.cancelled = true;
      return result;
    }
    const std::string_view piece = text.substr(0, kChunkBytes);
    text.remove_prefix(piece.size());
    result.bytes += piece.size();
    if (!reader.feed(piece, polled)) {
      result.stopped = !result.cancelled;
      return result;
    }
  }
  if (!reader.end(polled)) result.stopped = !result.cancelled && reader.stopped();
  return result;
}

}  // namespace sdma::ingest
