// The flag table (cli/flag_table.cpp) against native/src/limits.json: every limit the extension
// reads that bounds a flag is kept by a row; and the size grammar of --sizes against the
// vectors the CLI's tests read too (test/fixtures/size-grammar.json).
#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/flag_table.hpp"
#include "doctest_support.hpp"
#include "sdma_limits.hpp"
#include "util/ndjson_reader.hpp"

namespace {

using namespace sdma;
using namespace sdma::cli;

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<const std::vector<FlagSpec>*> allTables() {
  return {&infoFlags(),   &sweepFlags(),      &matrixFlags(), &runFlags(),
          &importFlags(), &collectiveFlags(), &overlapFlags()};
}

// The limits.json keys some row keeps (its bound's key, or one it names as kept).
std::set<std::string> keptKeys() {
  std::set<std::string> keys;
  for (const std::vector<FlagSpec>* table : allTables()) {
    for (const FlagSpec& row : *table) {
      if (!row.max.key.empty()) keys.insert(std::string(row.max.key));
      for (std::string_view key : splitOn(row.keeps, ' ')) {
        if (!key.empty()) keys.insert(std::string(key));
      }
    }
  }
  return keys;
}

const FlagSpec& sizesRow() {
  const std::vector<FlagSpec>& rows = sweepFlags();
  const auto row = std::find_if(rows.begin(), rows.end(), [](const FlagSpec& r) { return r.name == "--sizes"; });
  REQUIRE(row != rows.end());
  return *row;
}

}  // namespace

TEST_CASE("every limit the extension reads that bounds a flag is kept by a row of the flag table") {
  const std::string json = readAll(SDMA_LIMITS_JSON);
  REQUIRE(!json.empty());
  // Not flag bounds: the heartbeat period, and the timeline's event count (checked against the
  // node once the timeline is planned, cli/options.cpp).
  const std::set<std::string> notFlags = {"heartbeatMs", "timelineEventsMax"};
  const std::set<std::string> kept = keptKeys();
  const std::regex key(R"re("([A-Za-z]+)"\s*:)re");
  int checked = 0;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), key); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    if (notFlags.count(name) > 0) continue;
    CHECK_MESSAGE(kept.count(name) == 1, (name + " bounds no flag of the table"));
    ++checked;
  }
  CHECK(checked >= 17);
}

TEST_CASE("a row's bound is the limit its key names") {
  const std::vector<std::pair<std::string_view, long long>> known = {
      {"sizeBytesMax", limits::sizeBytesMax},
      {"cusMax", limits::cusMax},
      {"itersMax", limits::itersMax},
      {"warmupMax", limits::warmupMax},
      {"simDelayMsMax", limits::simDelayMsMax},
      {"simGpusMax", limits::simGpusMax},
      {"timelineRepeatsMax", limits::timelineRepeatsMax},
      {"targetMsMax", limits::targetMsMax},
      {"blocksPerCuMax", limits::blocksPerCuMax},
      {"wavesPerCuMax", limits::wavesPerCuMax},
      {"splitMax", limits::splitMax},
      {"batchMax", limits::batchMax},
      {"collectiveRepeatsMax", limits::collectiveRepeatsMax},
      {"listLengthMax", limits::listLengthMax},
      {"pairsMax", limits::pairsMax},
      {"gpuIndexMax", limits::gpuIndexMax}};
  for (const std::vector<FlagSpec>* table : allTables()) {
    for (const FlagSpec& row : *table) {
      if (row.max.key.empty()) continue;
      const auto it = std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.first == row.max.key; });
      REQUIRE_MESSAGE(it != known.end(), (std::string(row.name) + ": unknown key " + std::string(row.max.key)));
      CHECK_MESSAGE(row.max.value == it->second, std::string(row.name));
    }
  }
}

TEST_CASE("the size grammar's shared vectors (test/fixtures/size-grammar.json)") {
  std::ifstream in(SDMA_SIZE_GRAMMAR_JSON);
  REQUIRE(in.good());
  const FlagSpec& row = sizesRow();
  int vectors = 0;
  std::string line;
  // One vector per line: {"input": ..., "bytes": [...]} or {"input": ..., "helper": MESSAGE, ...}.
  while (std::getline(in, line)) {
    const std::size_t open = line.find('{');
    const std::size_t close = line.rfind('}');
    if (open == std::string::npos || close == std::string::npos || line.find("\"input\"") == std::string::npos)
      continue;
    const auto object = ndjson::parseLine(line.substr(open, close - open + 1));
    REQUIRE_MESSAGE(object.has_value(), line);
    const std::string input = ndjson::stringField(*object, "input").value_or("");
    const auto bytes = ndjson::numbersField(*object, "bytes");
    const auto message = ndjson::stringField(*object, "helper");
    REQUIRE_MESSAGE((bytes.has_value() != message.has_value()), (input + ": bytes or helper, one of them"));
    Options options;
    INFO("--sizes ", input);
    ++vectors;
    if (bytes) {
      REQUIRE_NOTHROW(row.set(row, input, &options));
      std::vector<double> got(options.sizesBytes.begin(), options.sizesBytes.end());
      CHECK(got == *bytes);
    } else {
      try {
        row.set(row, input, &options);
        FAIL_CHECK("taken, but the vector says it is refused");
      } catch (const UsageError& e) {
        CHECK(std::string(e.what()) == *message);
        CHECK(e.error().code == "usage");
      }
    }
  }
  CHECK(vectors >= 20);
}

namespace {

const FlagSpec& sweepRow(std::string_view name) {
  const std::vector<FlagSpec>& rows = sweepFlags();
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const FlagSpec& r) { return r.name == name; });
  REQUIRE(row != rows.end());
  return *row;
}

// The message of the UsageError `read` throws, or empty.
template <typename Read>
std::string refusal(Read read) {
  try {
    read();
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("the seed's dimension flags: lists in their ranges, refused outside") {
  const FlagSpec& waves = sweepRow("--waves-per-cu");
  CHECK(readWavesList(waves, "1,16,64") == std::vector<int>{1, 16, 64});
  CHECK(refusal([&] { readWavesList(waves, "0"); }).find("out of range (1..64") != std::string::npos);
  CHECK(refusal([&] { readWavesList(waves, "65"); }).find("out of range (1..64") != std::string::npos);
  CHECK(refusal([&] { readWavesList(waves, "x"); }).find("is not a wave count") != std::string::npos);
  CHECK(refusal([&] { readWavesList(waves, "4,4"); }).find("listed twice") != std::string::npos);

  const FlagSpec& engines = sweepRow("--engines");
  CHECK(readEnginesList(engines, "1,2,4") == std::vector<int>{1, 2, 4});
  CHECK(refusal([&] { readEnginesList(engines, "0"); }).find("out of range (1..64") != std::string::npos);
  CHECK(refusal([&] { readEnginesList(engines, "65"); }).find("--engines") == 0);

  const FlagSpec& batch = sweepRow("--batch");
  CHECK(readBatchList(batch, "0,8,1024") == std::vector<int>{0, 8, 1024});
  CHECK(refusal([&] { readBatchList(batch, "1025"); }).find("out of range (0..1024") != std::string::npos);
  CHECK(refusal([&] { readBatchList(batch, "-1"); }).find("out of range") != std::string::npos);

  const FlagSpec& shmem = sweepRow("--shmem-sdma");
  CHECK(readShmemSdmaList(shmem, "forced,library,off") ==
        std::vector<ShmemSdma>{ShmemSdma::Forced, ShmemSdma::Library, ShmemSdma::Off});
  CHECK(refusal([&] { readShmemSdmaList(shmem, "on"); }).find("forced, library, off") != std::string::npos);

  std::string many;
  for (int i = 0; i <= limits::listLengthMax; ++i) many += (many.empty() ? "" : ",") + std::to_string(i % 1025);
  CHECK(refusal([&] { readBatchList(batch, many); }).find("more than") != std::string::npos);
}
