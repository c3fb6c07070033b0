// fleetcast: forecast an LLM inference fleet. Exit codes: 0 ok, 1 failed run, 2 bad input or usage.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "dispatch.hpp"
#include "fleetcast/specs/error.hpp"

int main(int argc, char** argv) {
  try {
    return fleetcast::cli::dispatch(argc, argv);
  } catch (const fleetcast::InputError& e) {
    std::fprintf(stderr, "fleetcast: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fleetcast: run failed: %s\n", e.what());
    return 1;
  }
}
