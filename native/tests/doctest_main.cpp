// The one main of the native doctest tests: words that do not start with '-' are the test's
// own arguments (fixture directories that ctest passes); everything else goes to doctest.
#define DOCTEST_CONFIG_IMPLEMENT
#include "doctest_support.hpp"

namespace sdma::testing {

namespace {
std::vector<std::string>& argsStore() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace

const std::vector<std::string>& appArgs() { return argsStore(); }

std::string appArg(std::size_t index, const char* what) {
  REQUIRE_MESSAGE(index < appArgs().size(), "missing argument ", index + 1, ": ", what);
  return appArgs()[index];
}

}  // namespace sdma::testing

int main(int argc, char** argv) {
  std::vector<char*> doctestArgs;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && argv[i][0] != '-') {
      sdma::testing::argsStore().emplace_back(argv[i]);
    } else {
      doctestArgs.push_back(argv[i]);
    }
  }
  doctest::Context context;
  context.applyCommandLine(static_cast<int>(doctestArgs.size()), doctestArgs.data());
  return context.run();
}
