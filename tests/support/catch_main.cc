// The Catch2 entry point for the engine and C API suites.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
