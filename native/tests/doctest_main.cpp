// The doctest runner shared by the helper's unit tests (native/tests/CMakeLists.txt,
// sdma_add_test ... DOCTEST): doctest's main(), compiled once.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
