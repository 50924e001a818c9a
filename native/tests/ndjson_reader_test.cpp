// ctest: the NDJSON reader (util/ndjson_reader.hpp) that reads every line another process
// hands the helper: JSON's grammar exactly, integers exact in int64, no getter handing out
// NaN, an infinity or an integer that does not fit, and each limit (line length, depth, keys,
// array values) refusing the line instead of growing.

#include <chrono>
#include <limits>
#include <string>

#include "util/ndjson_reader.hpp"
#include "doctest_support.hpp"

using namespace sdma::ndjson;

TEST_CASE("a record line and its getters") {
  const auto o =
      parseLine(R"({"type":"kernel","startNs":1764470000123456789,"grid":[64,1,1],"ok":true,"s":"a\"b\\c\/d","n":null,)"
                R"("x":-0.5,"nested":{"a":[{"b":1}]}})");
  REQUIRE(o);
  CHECK(o->kind == Value::Kind::Object);
  CHECK(stringField(*o, "type") == std::string("kernel"));
  CHECK(intField(*o, "startNs") == 1764470000123456789LL);  // beyond 2^53, exact
  CHECK(numbersField(*o, "grid")->size() == 3);
  CHECK(boolField(*o, "ok") == true);
  CHECK(stringField(*o, "s") == std::string("a\"b\\c/d"));
  CHECK(numberField(*o, "x") == -0.5);
  CHECK(intField(*o, "x") == 0);
  CHECK(!present(*o, "n"));
  CHECK(present(*o, "ok"));
  CHECK(!isFlat(*o));
  const Value* nested = o->find("nested");
  REQUIRE(nested);
  CHECK(nested->find("a")->items.at(0).find("b")->integer == 1);
  // Another kind than asked for: nothing.
  CHECK(!intField(*o, "type"));
  CHECK(!stringField(*o, "startNs"));
  CHECK(!boolField(*o, "s"));
  CHECK(!numbersField(*o, "ok"));
  CHECK(!intField(*o, "absent"));
}

TEST_CASE("white space, line ends and what is not one object") {
  CHECK(parseLine("  {\"k\" : 1 }\r\n"));
  CHECK(parseLine("{}"));
  CHECK(!parseLine(""));
  CHECK(!parseLine("[1,2]"));
  CHECK(!parseLine("\"text\""));
  CHECK(!parseLine("{\"k\":1"));
  CHECK(!parseLine("not json"));
  CHECK(!parseLine("{\"k\":1} trailing"));
  CHECK(!parseLine("{\"k\":1}{\"k\":2}"));
  CHECK(!parseLine("{\"k\" 1}"));
  CHECK(!parseLine("{k:1}"));
  CHECK(!parseLine("{\"k\":1,}"));
  CHECK(!parseLine("{\"k\":[1,]}"));
  CHECK(!parseLine("{\"k\":tru}"));
  CHECK(!parseLine("{\"k\":NaN}"));
  CHECK(!parseLine("{\"k\":Infinity}"));
  CHECK(!parseLine("{\"k\":-Infinity}"));
  CHECK(!parseLine("{\"k\":+1}"));
  std::string problem;
  CHECK(!parseLine("{\"k\":1} x", {}, &problem));
  CHECK(problem.find("after the object") != std::string::npos);
}

TEST_CASE("numbers: JSON's grammar, int64 exact, nothing out of range handed out") {
  const auto o = parseLine(
      R"({"big":1e300,"inf":1e999,"ninf":-1e999,"neg":-1e19,"top":9223372036854775807,"over":9223372036854775808,)"
      R"("under":-9223372036854775809,"bottom":-9223372036854775808,"half":1.5,"two63":9.2233720368547758e18,)"
      R"("tiny":1e-400,"grid":[1,1e999]})");
  REQUIRE(o);
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  CHECK(!intField(*o, "big"));
  CHECK(!intField(*o, "inf"));
  CHECK(!intField(*o, "neg"));
  CHECK(intField(*o, "top") == kMax);
  CHECK(intField(*o, "bottom") == kMin);
  CHECK(!intField(*o, "over"));
  CHECK(!intField(*o, "under"));
  CHECK(intField(*o, "half") == 1);
  CHECK(!intField(*o, "two63"));
  CHECK(numberField(*o, "big") == 1e300);
  CHECK(!numberField(*o, "inf"));
  CHECK(!numberField(*o, "ninf"));
  CHECK(numberField(*o, "tiny") == 0.0);
  CHECK(numberField(*o, "over") == 9223372036854775808.0);
  CHECK(!numbersField(*o, "grid"));
  for (const char* bad : {R"({"a":1-2})", R"({"a":01})", R"({"a":1.})", R"({"a":1e})", R"({"a":-})", R"({"a":.5})",
                          R"({"a":1e+})", R"({"a":0x10})", R"({"a":--1})"}) {
    CAPTURE(bad);
    CHECK(!parseLine(bad));
  }
}

TEST_CASE("strings: escapes and UTF-8") {
  const auto o = parseLine(R"({"a":"\u00e9\u4e2d\ud83d\ude00","b":"\ud800x","c":"\n\t\r\b\f","d":"\u0041"})");
  REQUIRE(o);
  CHECK(stringField(*o, "a") == std::string("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"));
  CHECK(stringField(*o, "b") == std::string("\xef\xbf\xbdx"));  // a lone surrogate: U+FFFD
  CHECK(stringField(*o, "c") == std::string("\n\t\r\b\f"));
  CHECK(stringField(*o, "d") == std::string("A"));
  CHECK(!parseLine(R"({"a":"\x41"})"));
  CHECK(!parseLine(R"({"a":"\u12"})"));
  CHECK(!parseLine(R"({"a":"\u12G4"})"));
  CHECK(!parseLine(R"({"a":"open})"));
  CHECK(!parseLine("{\"a\":\"\\"));
}

TEST_CASE("limits: line length, depth, keys, array values") {
  Limits limits;
  limits.maxLineBytes = 32;
  std::string problem;
  const std::string at = "{\"k\":\"" + std::string(24, 'x') + "\"}";
  REQUIRE(at.size() == 32);
  CHECK(parseLine(at, limits));
  CHECK(!parseLine(at + " ", limits, &problem));
  CHECK(problem.find("longer than 32") != std::string::npos);

  limits = Limits{};
  limits.maxDepth = 3;
  CHECK(parseLine(R"({"a":{"b":[1]}})", limits));
  CHECK(!parseLine(R"({"a":{"b":[[1]]}})", limits, &problem));
  CHECK(problem.find("nested deeper") != std::string::npos);
  // A deep line under the default limit is refused without deep recursion.
  std::string deep = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK(!parseLine(deep));

  limits = Limits{};
  limits.maxMembers = 3;
  CHECK(parseLine(R"({"a":1,"b":2,"c":3,"a":4})", limits));  // a repeated key is one key
  CHECK(!parseLine(R"({"a":1,"b":2,"c":3,"d":4})", limits, &problem));
  CHECK(problem.find("more keys") != std::string::npos);

  limits = Limits{};
  limits.maxItems = 3;
  CHECK(parseLine(R"({"a":[1,2,3]})", limits));
  CHECK(!parseLine(R"({"a":[1,2,3,4]})", limits, &problem));
  CHECK(problem.find("more values") != std::string::npos);
}

TEST_CASE("a repeated key keeps its last value; the reader stays linear") {
  std::string repeated = "{";
  for (int i = 0; i < 10000; ++i) repeated += R"("k":"x",)";
  repeated += R"("k":"dev"})";
  const std::string digits = R"({"k":"dev","monoStartNs":1)" + std::string(60000, '0') + R"(,"monoEndNs":2})";
  std::string manyKeys = "{";
  for (int i = 0; i < 255; ++i) manyKeys += "\"key" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  for (int i = 0; i < 20000; ++i) manyKeys += "\"key254\":1,";
  manyKeys += "\"last\":0}";
  const auto t = std::chrono::steady_clock::now();
  const auto r = parseLine(repeated);
  const auto d = parseLine(digits);
  const auto m = parseLine(manyKeys);
  CHECK((r && stringField(*r, "k") == std::string("dev")));
  CHECK((d && !intField(*d, "monoStartNs") && !numberField(*d, "monoStartNs")));
  CHECK((m && m->members.size() == 256));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() < 1.0);
}

TEST_CASE("isFlat: the trace lines' shape") {
  CHECK(isFlat(*parseLine(R"({"k":"dev","grid":[1,2,3],"n":null,"b":false})")));
  CHECK(!isFlat(*parseLine(R"({"k":"dev","grid":["1"]})")));
  CHECK(!isFlat(*parseLine(R"({"k":"dev","o":{}})")));
  CHECK(!isFlat(*parseLine(R"({"k":"dev","grid":[[1]]})")));
}
