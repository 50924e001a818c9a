// The HIP runtime settings the engine measurements put into the helper's environment
// (runtime_knobs.hpp): what is set, what was there before, putting it back, and how hello
// names them (docs/PROTOCOL.md, hello's runtimeKnobs).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "protocol/reporter.hpp"
#include "backend/runtime_knobs.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma;
using namespace sdma::testing;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "<unset>" : value;
}

TEST_CASE("setsBothAndRemembers") {
  unsetenv("ROC_P2P_SDMA_SIZE");
  setenv("GPU_FORCE_BLIT_COPY_SIZE", "64", 1);
  const std::vector<RuntimeKnob> knobs = setEngineKnobs();
  CHECK_MESSAGE(
      (knobs.size() == 2 && knobs[0].name == "ROC_P2P_SDMA_SIZE" && knobs[1].name == "GPU_FORCE_BLIT_COPY_SIZE"),
      ("the two knobs, peer threshold first"));
  CHECK_MESSAGE((knobs[0].value == "0" && knobs[1].value == "0"), ("both set to 0"));
  CHECK_MESSAGE((env("ROC_P2P_SDMA_SIZE") == "0" && env("GPU_FORCE_BLIT_COPY_SIZE") == "0"),
                ("the process environment holds them (children inherit it)"));
  CHECK_MESSAGE((!knobs[0].previous), ("ROC_P2P_SDMA_SIZE was unset: no previous value"));
  CHECK_MESSAGE((knobs[1].previous && *knobs[1].previous == "64"),
                ("GPU_FORCE_BLIT_COPY_SIZE=64 before: previous 64, overridden"));
  restoreKnobs(knobs);
  CHECK_MESSAGE((env("ROC_P2P_SDMA_SIZE") == "<unset>" && env("GPU_FORCE_BLIT_COPY_SIZE") == "64"),
                ("restored: the unset one unset again, the other back to 64"));
  unsetenv("GPU_FORCE_BLIT_COPY_SIZE");
}

std::string helloLine(const std::vector<RuntimeKnob>& knobs) {
  std::FILE* out = std::tmpfile();
  {
    Reporter reporter(out);
    reporter.hello(std::string_view("sweep"), "sim", true, {"sim"}, knobs);
  }
  std::rewind(out);
  std::string line;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, out) != nullptr) line += buffer;
  std::fclose(out);
  return line;
}

TEST_CASE("helloNamesThem") {
  const std::string with =
      helloLine({{"ROC_P2P_SDMA_SIZE", "0", std::string("4096")}, {"GPU_FORCE_BLIT_COPY_SIZE", "0", std::nullopt}});
  CHECK_MESSAGE(
      (with.find(",\"runtimeKnobs\":[{\"name\":\"ROC_P2P_SDMA_SIZE\",\"value\":\"0\",\"previous\":\"4096\","
                 "\"setBy\":\"helper\"},{\"name\":\"GPU_FORCE_BLIT_COPY_SIZE\",\"value\":\"0\",\"previous\":null,"
                 "\"setBy\":\"helper\"}]}") != std::string::npos),
      ("hello: runtimeKnobs with name, value, previous (null when unset) and setBy"));
  CHECK_MESSAGE((helloLine({}).find("runtimeKnobs") == std::string::npos), ("no knobs: the field is left out"));
  const std::string longer = helloLine({{"ROC_P2P_SDMA_SIZE", "0", std::string(5000, '7')}});
  CHECK_MESSAGE((longer.find(std::string(4096, '7') + "\"") != std::string::npos &&
                 longer.find(std::string(4097, '7')) == std::string::npos),
                ("a previous value longer than protocol text is cut at 4096 bytes"));
}

}  // namespace
