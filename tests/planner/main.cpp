// The Catch2 v2 runner for the planner tests; the tests themselves live in test_*.cpp.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
